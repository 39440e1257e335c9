select o.id, o.cust from o where exists (select 1 from c where c.cid = o.cust and c.region = 3) and o.id < 400 order by o.id
select c.cid from c where not exists (select 1 from o where o.cust = c.cid) order by c.cid
select r.rid from r where not exists (select 1 from c where c.region = r.rid and c.name like 'cust1%') order by 1
select o.id from o where o.cust in (select cid from c where region = 11) and o.placed < '2020-01-10' order by o.id
select count(*) from o where not exists (select 1 from l where l.oid = o.id)
select o.id, l.qty from o join l on l.oid = o.id where exists (select 1 from c where c.cid = o.cust and c.region = 7) and o.id < 60 order by 1, 2
select o.id from o left join c on c.cid = o.cust where not exists (select * from r where r.rid = c.region) and o.id < 300 order by 1
select o.id from o where exists (select 1 from l where l.oid = o.id and l.qty > 7) order by o.id limit 5
select c.name from c where c.cid in (select o.cust from o join l on l.oid = o.id where l.qty = 8 and l.line < 200) order by 1
select o.id from o where not exists (select 1 from c where c.cid = o.cust) and o.id < 500 order by 1
select * from r where exists (select 1 from c, o where o.cust = c.cid and c.region = r.rid and o.id < 30) order by 1
select count(*) from o where not exists (select 1 from c where (c.region + 100) = o.cust)
select count(*) from l where l.oid in (select o.cust from o where o.id < 3000)
select count(*) from o where exists (select 1 from l where l.qty * 100 = o.cust)
select o.id from o where o.amount in (select l.qty * 10 from l) and o.id < 50 order by 1
select count(*), sum(o.id) from o where o.cust in (select c.cid + 1 from c where c.region = 3)
select count(*) from o where not exists (select 1 from c where c.cid = o.cust and c.name = null)
select count(*) from o where exists (select 1 from c where c.cid = o.cust and (c.region < null or false))
select count(*) from o where o.cust in (select cid from c where region = null)
