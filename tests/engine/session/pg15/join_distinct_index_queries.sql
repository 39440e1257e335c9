select distinct o.cust from o join c on o.cust = c.cid order by 1 limit 10
select distinct c.cid, c.region from c join o on o.cust = c.cid where c.cid < 40 order by c.cid
select distinct l.oid from l join o on l.oid = o.id where o.id < 50 order by 1
select distinct r.rid, r.label from r join c on c.region = r.rid order by r.rid
