select o.id, c.name from o join c on c.cid = o.cust and (c.region < 3 or o.amount > 90) where o.id < 40 order by 1
select count(*) from o join l on l.oid = o.id and l.qty < o.cust where o.id < 300
select o.id, l.line from o left join l on l.oid = o.id and (l.qty = 3 or o.note = 'n5') where o.id < 20 order by 1, 2
select count(*) from o where o.id < 200 and exists (select 1 from l where l.oid = o.id and (l.qty > 4 or o.amount < 5))
select count(*) from o where o.id < 200 and not exists (select 1 from l where l.oid = o.id and (l.qty > 4 or o.amount < 5))
select o.id, l.line, l.qty from o join l on l.oid = o.id and l.qty + 1 > o.cust % 7 where o.id between 10 and 14 order by 1, 2
select count(*) from o join c on c.cid = o.cust and c.name <> o.note || 'x' where o.id < 2000
