select o.id, c.cid from o join c on o.cust = c.cid where o.id < 100 order by o.id, c.cid desc
select c.cid, o.id from c left join o on o.cust = c.cid where c.cid < 50 order by c.name, c.cid desc, o.id
select c.cid, o.id from c full join o on o.cust = c.cid where c.region = 1 and o.id < 3000 order by c.cid desc, o.id limit 5
select count(*) from c join o on o.cust = c.cid where o.id < 500 group by c.cid order by c.cid desc limit 3
select l.oid, o.id from l join o on o.id = l.oid where l.qty = 3 order by o.id desc, l.line limit 4
select o.id, c.name from o join c on o.cust = c.cid where o.id < 50 order by c.cid, o.id
select count(*) from c left join o o1 on o1.amount = c.cid left join o o2 on c.cid = o2.amount where c.region = 2
select c.cid, o2.id from c join o o1 on c.cid = o1.amount left join o o2 on c.cid = o2.amount where c.region = 2 and o1.id < 5000 order by 1, 2 limit 5
select o.id, l.line from o join c on c.cid = o.amount right join l on l.oid = o.amount where o.id < 300 and l.qty = 2 order by 1, 2
