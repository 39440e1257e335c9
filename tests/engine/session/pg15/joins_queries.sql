select o.id, c.name from o join c on o.cust = c.cid where o.id < 30 order by o.id
select c.name, r.label from c join r on c.region = r.rid where c.cid < 40 order by c.cid
select o.id, c.name, r.label from o join c on o.cust = c.cid join r on r.rid = c.region where o.amount > 98 order by o.id limit 10
select * from r, c where r.rid = c.region and c.cid between 100 and 110 order by c.cid
select o.id, l.line from o join l on l.oid = o.id where o.placed = '2020-02-01' order by 1, 2
select r.rid, c.cid from r cross join c where c.cid < 3 order by 1, 2
select o.id, c.cid from o, c where o.cust < c.cid and c.cid < 2 and o.id < 20 order by 1, 2
select o.id + c.cid as s, upper(c.name) from o join c on o.cust = c.cid where o.id between 500 and 520 order by s desc
select x.id, y.id from o x join o y on x.cust = y.cust where x.id < 3 and y.id < 600 order by 1, 2
select id, name from o join c on cust = cid where id < 10 order by id
select o.note, r.label from o, c, r where o.cust = c.cid and c.region = r.rid and o.id < 100 and r.rid = 3 order by o.id
select o.id, c.name from o join c on o.cust = c.cid and c.region = 5 where o.id < 200 order by o.id
select o.id, c.name from o, c where o.cust = c.cid and (o.id < 5 or c.region = 11) and o.id < 1000 order by o.id
select o.id, l.qty, c.region from o join l on o.id = l.oid join c on c.cid = o.cust join r on r.rid = c.region where l.qty = 8 and o.id < 300 order by o.id, l.line
select c.cid, o.id from c, o where c.cid = o.cust and o.cust = 7 order by o.id limit 5
select o.id, c.name from o join c on o.cust = c.cid order by c.name, o.id limit 5
select o.id, c.name from o join c on o.cust = c.cid where c.name like 'cust1%' and o.id < 300 order by o.id
