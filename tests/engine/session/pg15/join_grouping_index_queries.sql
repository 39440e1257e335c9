select c.cid, count(*), sum(o.amount) from o join c on o.cust = c.cid where c.cid < 50 group by c.cid order by 1
select l.oid, count(*) from o join l on l.oid = o.id where o.id < 1000 group by l.oid order by 1 limit 10
select c.cid, max(o.placed) from c join o on o.cust = c.cid group by c.cid
select l.oid, l.line, sum(l.qty) from o join l on l.oid = o.id where o.id < 200 group by 1, 2 order by 1, 2 limit 7
select r.rid, count(*) from r join c on c.region = r.rid group by r.rid order by 1
select count(*), avg(l.qty) from o join l on l.oid = o.id where o.id between 100 and 300
select o.id, count(l.line) from o join l on l.oid = o.id where o.id < 50 group by o.id having count(*) > 5 order by o.id desc
