select o.id, c.name from o join c on o.cust = c.cid where o.id < 3000
select o.id, c.name, r.label from o join c on o.cust = c.cid join r on r.rid = c.region where o.amount > 90
select o.id, l.line from o join l on l.oid = o.id where o.placed = '2020-02-01'
select o.note, c.region from o, c where o.cust = c.cid and c.region = 4
select o.id from o where exists (select 1 from c where c.cid = o.cust and c.region = 3)
select o.id from o where not exists (select 1 from c where c.cid = o.cust and c.region < 11)
select o.id, c.name from o left join c on o.cust = c.cid and c.region = 2 where o.id < 2000
select l.oid, l.qty, o.amount from l join o on o.id = l.oid where l.qty = 3
select o.id, c.cid from o, c where o.cust < c.cid and c.cid < 2 and o.id < 200
select o.id + c.cid as s, upper(c.name) from o join c on o.cust = c.cid where o.amount < 5
select o.id, l.line, c.name from o join l on o.id = l.oid join c on c.cid = o.cust where l.qty = 8 and c.region = 1
select o.id from o where o.cust in (select cid from c where region = 7)
select o.id, c.name from o join c on o.cust = c.cid order by o.id limit 5
select o.id, c.name from o join c on o.cust = c.cid where o.amount < 2 order by c.name desc, o.id
select o.id, l.line from o join l on o.id = l.oid where o.id < 40 order by o.id, l.line
