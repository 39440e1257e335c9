select count(*) from l join o on o.id = l.oid join c on c.cid = o.cust
select count(*) from c join o on o.cust = c.cid join l on l.oid = o.id where c.region = 3
select count(*) from o join (c join r on r.rid = c.region) on o.cust = c.cid
select count(*) from r join c on c.region = r.rid left join o on o.cust = c.cid
select count(*) from o, c, r where o.cust = c.cid and c.region = r.rid and r.rid < 3
select count(*) from o join c on o.cust = c.cid, r where c.region = r.rid
select count(*) from o join c on o.cust = c.cid where exists (select 1 from l where l.oid = o.id)
select count(*) from r cross join c join o on o.cust = c.cid where r.rid = c.region
select count(*) from o full join c on o.cust = c.cid join r on r.rid = c.region
select c.region, count(*) from l join o on o.id = l.oid join c on c.cid = o.cust group by c.region order by 1
select count(*) from o join c on o.cust = c.cid join r on r.rid = c.region where o.id in (select oid from l where qty > 5)
