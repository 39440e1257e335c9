select o.cust, c.name from o join c on c.cid = o.cust order by o.cust limit 5
select o.cust, c.name from o left join c on c.cid = o.cust order by o.cust limit 5
select o.id, o.cust from o where exists (select 1 from c where c.cid = o.cust) order by o.cust limit 4
select o.id, o.cust from o where not exists (select 1 from c where c.cid = o.cust) order by o.cust limit 4
select c.cid, r.label from c join r on r.rid = c.region order by c.cid limit 3
select l.oid, l.line, o.amount from l join o on o.id = l.oid order by l.oid, l.line limit 6
select c.cid, count(*) from c join o on o.cust = c.cid group by c.cid order by c.cid limit 3
select o.cust, c.name from o join c on c.cid = o.cust order by o.cust
