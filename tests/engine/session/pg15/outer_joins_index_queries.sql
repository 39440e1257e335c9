select o.id, r.label from o left join r on r.rid = o.cust where o.id < 50 order by o.id
select o.id, c.name from o left join c on c.cid = o.cust where o.id between 100 and 140 order by o.id
select c.cid, o.id from c left join o on o.cust = c.cid where c.cid < 3 order by 1, 2
select c.cid, o.id from c left join o on o.cust = c.cid order by c.cid limit 8
select o.id from o left join r on r.rid = o.cust where r.rid is null and o.id < 100 order by o.id
select o.id, l.line from o left join l on l.oid = o.id where o.id < 10 order by o.id, l.line
select r.rid, o.id from r left join o on o.cust = r.rid and o.id < 2000 order by 1, 2
select o.id, c.cid from o full join c on c.cid = o.cust where o.id < 30 or c.cid > 795 order by 1, 2
select o.id, c.cid from o left join c on o.cust = c.cid where o.cust = 7 order by o.id
select o.id from o left join r on o.cust = r.rid where o.id < 20 order by o.id
select o.id, r.label from o left join r on r.rid = o.cust and r.label like 'region%' where o.id < 8 order by o.id
select c.cid, l.line from c left join o on o.cust = c.cid left join l on l.oid = o.id where c.cid = 3 order by 2 limit 6
select count(*) from c right join r on c.cid = r.rid + 1000 where r.rid < 8 and not exists (select 1 from o where o.cust = c.region)
select count(*) from c right join r on c.cid = r.rid + 1000, o where o.cust = coalesce(c.region, 0) + 7 and r.rid < 8
select c.cid, o.id, l.line from c left join (o join l on l.oid = o.id) on o.cust = c.cid where c.cid < 3 order by 1, 2, 3
select c.cid from c where not exists (select 1 from o join l on l.oid = o.id where o.cust = c.cid and l.qty = 4) and c.cid < 20 order by 1
select c.cid, count(*) from c where exists (select 1 from o join l on l.oid = o.id where o.cust = c.cid and l.qty = 4) and c.cid < 9 group by 1 order by 1
select c.cid, count(l.line), count(r.rid) from c left join (o join l on l.oid = o.id left join r on r.rid = l.qty) on o.cust = c.cid where c.cid in (4, 7) group by 1 order by 1
select c.cid, o.id from c left join (o join l on l.oid = o.id and l.line < 3) on o.cust = c.cid where c.region = 3 and c.cid < 40 order by 1, 2
