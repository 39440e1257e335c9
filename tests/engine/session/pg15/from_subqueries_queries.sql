select * from (select id, cust as k from o where amount > 50) s join c on s.k = c.cid where s.id < 300
select s.k, c.name from (select id, cust as k from o where amount > 50) s join c on s.k = c.cid where c.region = 3
select * from (select id, cust + 1 as k from o where amount > 50) s where s.k < 20 order by k, s.id
select s.total, r.label from (select oid, qty * 2 as total from l where line < 100) s, r where s.oid = r.rid
select x.a, x.b from (select id, cust from o) x(a, b) join c on x.b = c.cid where x.a < 200
select count(*) from (select cust from o where id < 5000) s join c on s.cust = c.cid
select s.region, count(*) from (select c.cid, c.region from c join r on c.region = r.rid) s join o on o.cust = s.cid group by s.region order by s.region
select s.id, c.name from (select id, cust from o where id < 20) s join c on c.cid = s.cust
select s.id, l.qty from (select id, cust from o where id between 100 and 110) s join l on l.oid = s.id
select s.id, x.label from (select id, cust, amount from o where id < 50 and amount > 1) s, (select rid, label from r where rid < 5) x where x.rid = s.cust
select s.v from (select amount * 2 as v, cust from o) s join c on s.cust = c.cid order by s.v desc limit 5
select * from (select id from o where id < 10) o join o o2 on o.id = o2.id
select * from (select * from (select id, cust from o where id < 300) a where a.cust > 10) b join c on b.cust = c.cid
select * from (select o.id, c.name from o join c on o.cust = c.cid where c.region = 2) s join l on l.oid = s.id where l.qty = 3
select t.k, count(*) from (select cust % 10 as k from o) t group by t.k order by t.k
select s.k from (select cust as k from o) s join c on s.k = c.cid where c.cid = 5
with w as (select cid, region from c where region < 4) select o.id, w.region from o join w on o.cust = w.cid where o.id < 100
with big as (select oid, line from l where qty = 2) select o.id, big.line from o join big on big.oid = o.id where o.cust = 17
with w as not materialized (select cid, region from c where region < 4) select * from w join o on o.cust = w.cid join w w2 on w2.cid = o.id
with a as (select cid from c where region = 1), b as (select * from a join o on o.cust = a.cid) select b.id from b where b.amount > 98
select c.name, s.id from c left join (select id, cust from o where amount > 90) s on c.cid = s.cust where c.region = 1
select c.name, s.k from c left join (select id, cust + 1 as k from o where amount > 90) s on c.cid = s.k where c.region = 1
select c.name, s.id from c left join (select id, cust from o where amount > 90) s on c.cid = s.cust where s.id is null
select cust, s.id from (select id, cust from o where id < 30) s join (select cid as cust, name from c) t using (cust) where cust > 3
select * from (select id, cust, cust as k from o where id < 5) s join (select id from o) t using (id)
select s.id from (select id, cust from o where id < 500) s where exists (select 1 from c where c.cid = s.cust and c.region = 3)
select s.id from (select id, cust from o where id < 500) s where not exists (select 1 from c where c.cid = s.cust and c.region = 3)
select s.id, s.k from (select id, cust + 0 as k from o where id < 500) s where s.k in (select cid from c where region = 3)
select s.id from (select id, cust from o where amount > 90) s join r on r.rid = s.cust where exists (select 1 from l where l.oid = s.id and l.qty = 2)
with w as (select cid, region from c where region < 3) select o.id from o join w on o.cust = w.cid where exists (select 1 from l where l.oid = o.id)
select s.id from (select id, cust from o where id < 500) s where exists (select 1 from c where cid = cust)
select s.id from (select id, cust from o) s where exists (select 1 from o where o.id = s.cust)
select s.id from (select id, cust from o where id < 100) s join o on o.id = s.cust where exists (select 1 from o x where x.id = s.cust) and s.id in (select o.cust from o where o.id < 50)
select * from (select o.id, c.name from o left join c on o.cust = c.cid where o.id < 10) s join r on r.rid = s.id
select * from (select o.id, c.name, c.region from o left join c on o.cust = c.cid where c.region = 3) s where s.id < 100
select * from (select o.id, c.name from o left join c on o.cust = c.cid where c.cid is null) s join r on r.rid = s.id % 10
select s.id, s.region from (select o.id, c.region from o left join c on o.cust = c.cid where o.amount > 99 or c.region is null) s
select * from r left join (select o.id, c.name from o left join c on o.cust = c.cid where o.id < 10) s on r.rid = s.id
select * from (select o.id, c.cid from o full join c on o.cust = c.cid where o.id < 5 or c.cid < 3) s
select max(s.c) from (select cust as c from o) s
select count(*), max(s.k) from (select id, cust + 1 as k from o where amount > 50) s where s.k < 20
with w as (select * from l where qty = 3) select count(*) from w where w.line < 1000
select distinct s.c from (select cust as c from o where id < 100) s
select s.c from (select cust as c from o where id < 100) s order by s.c limit 3
select * from (select id, cust + 1 as k from o where amount > 50) s where s.k < 20 order by k, s.id
select t.k, count(*) from (select cust % 10 as k from o) t group by t.k order by t.k
select t.k, count(*) from (select cust % 10 as k, note from o) t group by t.k having count(*) > 1 and max(t.note) > 'a' order by 2 desc, 1
select s.n from (select note as n, id from o) s where s.id < 2000 order by s.n desc limit 10
select s."Weird Name" from (select id as "Weird Name", cust from o where id < 300) s order by 1 desc
select s.k, count(distinct s.id) from (select id, cust as k from o where id < 1000) s group by s.k order by s.k limit 4
