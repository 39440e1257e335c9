select distinct c.region from o join c on o.cust = c.cid order by c.name
select distinct o.cust from o join c on o.cust = c.cid order by o.cust + 1
select distinct c.region from o join c on o.cust = c.cid order by c.region, o.id desc
select distinct c.region, o.cust from o left join c on o.cust = c.cid order by 3
select distinct cid from c join c c2 on c.cid = c2.cid
select distinct c.nope from o join c on o.cust = c.cid
select distinct o.cust * 2 from o join c on o.cust = c.cid order by o.cust * 3
select distinct r.label from c join r on c.region = r.rid order by r.rid limit 2
