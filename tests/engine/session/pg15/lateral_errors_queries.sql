select * from c right join lateral (select o.id from o where o.cust = c.cid) s on true
select * from c full join lateral (select o.id from o where o.cust = c.cid) s on true
select * from c, lateral (select o.id from o where o.cust = r.rid) s, r
select * from c, lateral (select o.id from o where o.cust = c.nope) s
select * from c, lateral r
select * from c, lateral (select o.id from o where o.cust = c.cid)
select * from c, lateral (select o.id from o where o.cust = c.cid) s(a, b)
select * from c right join lateral (select o.id from o where o.cust = cid) s on true
select * from c, lateral (select o.id from o where o.cust = s2.cid) s, lateral (select cid from c c2) s2
