select o.id from o join c using (cust)
select id from o, l, o
select cust from o x, o y
select oid from o join l on o.id = l.oid join c on c.cid = z.cust
select q.id from o
select o.id from o x
select * from o join c on o.cust = r.rid, r
select c.id from o join c on o.cust = c.cid
select * from o join c
