select count(*) from o join l on l.oid = o.id
select c.name, count(*) from o join c on o.cust = c.cid group by c.name order by 2 desc, 1 limit 3
select distinct o.note, o.cust from o join c on o.cust = c.cid where c.region < 6
select o.cust, sum(o.amount) from o group by o.cust order by 2 desc limit 4
