select c.region, count(*) from o join c on o.cust = c.cid group by c.region order by 1
select o.cust, sum(o.amount) from o join c on o.cust = c.cid group by o.cust order by 2 desc, 1 limit 5
select r.label, count(*), avg(c.cid) from c join r on c.region = r.rid group by r.label order by r.label
select count(*) from o join l on l.oid = o.id
select count(*), sum(l.qty), min(o.placed), max(o.note) from o join l on l.oid = o.id where o.id < 100
select c.region, r.label, count(*) from c join r on c.region = r.rid group by 1, 2 order by 1
select c.region % 3 as g, count(*) from o join c on o.cust = c.cid group by g order by g
select region, count(*) from o join c on o.cust = c.cid group by region having count(*) > 1500 order by 2, 1
select o.cust, count(distinct l.qty) from o join l on l.oid = o.id group by o.cust order by 1 limit 10
select l.qty, count(*) from o join l on l.oid = o.id where o.amount > 50 group by l.qty order by count(*) desc, 1
select r.rid, count(*), sum(o.amount) from o join c on o.cust = c.cid join r on r.rid = c.region group by r.rid order by r.rid
select c.cid, count(*) from o join c on o.cust = c.cid group by c.cid having max(o.amount) > 99 order by 1 limit 10
select c.region, sum(o.amount + 1) from o join c on o.cust = c.cid where c.cid < 100 group by 1
select o.note, count(*) from o, r where o.cust = r.rid group by o.note order by 1
select count(*) from c, r
select o.cust, c.cid, count(*) from o join c on o.cust = c.cid group by o.cust, c.cid order by 1 limit 3
select c.region + r.rid as k, count(*) from c join r on c.region = r.rid group by 1 order by 1
select max(o.amount), min(c.name) from o join c on o.cust = c.cid where c.region = 3
select c.region, count(*) from o join c on o.cust = c.cid where c.region = 3 group by c.region
select r.label, max(o.placed) from o join c on o.cust = c.cid join r on r.rid = c.region group by r.label having count(*) > 10 order by max(o.placed), 1
select o.id % 10, count(*), sum(l.qty) from o join l on l.oid = o.id group by 1 order by 3 desc limit 4
select count(*) from c join r on c.region = r.rid having count(*) > 5
select c.region, count(*) from o join c on o.cust = c.cid group by c.region order by c.region desc limit 3 offset 2
select c.region, o.note, count(*) from o join c on o.cust = c.cid join r on r.rid = c.region where r.label <> 'region3' group by 1, 2 order by 3 desc, 1, 2 limit 5
select sum(c.region * o.id) / count(*), min(r.label) from o, c, r where o.cust = c.cid and c.region = r.rid and o.id < 5000
select o.amount, count(c.name) from o join c on c.cid = o.amount group by o.amount order by o.amount desc, count(c.name) desc limit 5
