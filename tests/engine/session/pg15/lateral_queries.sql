select c.name, s.id from c, lateral (select o.id from o where o.cust = c.cid) s where c.cid < 5 order by s.id
select c.cid, s.id, s.amt from c cross join lateral (select id, amount as amt from o where o.cust = c.cid and o.id < 100) s order by s.id
select c.cid, s.id from c join lateral (select o.id from o where o.cust = c.cid) s on s.id < 50 order by s.id
select c.cid, s.id from c left join lateral (select o.id from o where o.cust = c.cid and o.id < 30) s on true where c.cid < 10 order by c.cid, s.id
select c.cid, s.k from c, lateral (select o.id + c.region as k from o where o.cust = c.cid) s where c.cid = 7 order by s.k
select r.rid, s.oid from r, lateral (select l.oid from l where l.qty = r.rid and l.oid < 20) s order by r.rid, s.oid
select o.id, c.name, s.line from o join c on o.cust = c.cid, lateral (select l.line from l where l.oid = o.id) s where o.id < 20 order by o.id, s.line
select o.id, s.line from o, c, lateral (select line from l where l.oid = o.id and l.qty = c.region) s where o.cust = c.cid and o.id < 10 order by o.id, s.line
select c.cid, s.id from c, lateral (select id from o where cust = cid) s where c.cid < 3 order by s.id
select s.x from c, lateral (select o.id from o where o.cust = c.cid) s(x) where c.cid = 3 order by s.x
select c.cid, s.id from c left join lateral (select o.id from o where o.cust = c.cid) s on s.id < 1000 where c.cid < 5 order by c.cid, s.id
select t.cid, s.id from (select cid from c where region = 1) t, lateral (select id from o where o.cust = t.cid) s where t.cid < 30 order by s.id
select c.region, count(*) from c, lateral (select o.id from o where o.cust = c.cid) s group by c.region order by c.region
select c.cid, s.id, s.line from c, lateral (select o.id, u.line from o, lateral (select l.line from l where l.oid = o.id) u where o.cust = c.cid) s where c.cid = 2 order by s.id, s.line
select count(*) from c cross join lateral (select o.id from o where o.cust = c.cid and o.amount > c.region) s
select r.rid, s.line from r left join lateral (select l.line from l where l.oid = r.rid and l.qty = 3) s on true order by r.rid, s.line
