select * from (select id from o)
select t.cust from (select id from o) t
select o.id from (select id from o) s
select nope from (select id from o) s
select s.nope from (select id from o) s
select id from (select id from o) s, (select id from o) s2
select * from (select id from o) s, (select cid from c) s
select * from (select id, cust from o) s(a, b, x)
select * from o, (select cid from c where c.cid = o.cust) s
select * from (select id from nosuch) s
select * from (select id from o) s join c on s.id = c.cid join r on r.rid = x.y
select * from (select id, cust from o) s join c using (cust)
select * from (select id, cust, id as cust from o) s join c on c.cid = s.cust
with w as (select id from o) select w.cust from w
with w as (select * from w) select * from w
with a as (select * from b), b as (select cid from c) select * from a
with w as (select id from o) select * from w, w
with w(x, y, z) as (select id, cust from o) select * from w
select * from (select id from o) s, c s
