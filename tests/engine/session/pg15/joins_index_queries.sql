select o.id, c.name from o join c on o.cust = c.cid where o.id < 30 order by o.id
select c.name, r.label from c join r on c.region = r.rid where c.cid < 40 order by c.cid
select c.cid, o.id from c, o where c.cid = o.cust and c.region = 4 and o.amount > 99.5 order by 1, 2
select o.id, l.qty from o, l where o.id = l.oid and l.line < 40 order by l.line
select l.line, o.note from l join o on o.id = l.oid where l.oid = 77 order by 1
select c.cid, l.line from c, o, l where c.cid = o.cust and o.id = l.oid and c.cid = 7 and l.qty = 3 order by 1, 2
select r.label, c.cid from r join c on c.region = r.rid where c.cid < 20 order by c.cid
select o.id, c.name from o join c on c.cid = o.cust where o.id in (5, 6, 7) order by o.id
select o.id from o join l on o.id = l.oid where o.cust = 3 and l.line < 1000 order by 1
select o.cust, c.region from o join c on c.region = o.id % 12 order by o.cust desc limit 3
select o.cust, r.label from o join r on r.label = o.note order by o.cust limit 5
select o.id, r.label from o, c, r where o.cust = c.cid and c.region = r.rid and (o.id < null or (c.region = 3 and o.amount > 99.5)) order by 1
select count(*) from o join c on o.cust = c.cid where (c.name > null or (c.cid = 7 and o.id > 100)) or (o.id = null)
