select distinct c.region, r.label from c join r on c.region = r.rid where 1 = 0 order by r.label limit 3
select distinct o.cust + 1 from o join c on o.cust = c.cid where false
select distinct o.note from o join c on o.cust = c.cid and c.region = 1 and c.region = 2
select c.region, count(*) from o join c on o.cust = c.cid where 1 = 0 group by c.region
select count(*), max(c.name), sum(o.amount) from o join c on o.cust = c.cid where null
select c.name, sum(o.amount) from o join c on o.cust = c.cid where 1 = 0 group by 1 having count(*) > 1 order by 2 desc limit 2
select count(*), sum(o.amount) from o left join c on o.cust = c.cid where c.region = 1 and c.region = 2
