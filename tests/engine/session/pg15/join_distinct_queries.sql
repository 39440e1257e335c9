select distinct c.region from o join c on o.cust = c.cid
select distinct c.region from o join c on o.cust = c.cid order by 1
select distinct c.region, r.label from c join r on c.region = r.rid order by r.label desc
select distinct o.cust, c.cid from o join c on o.cust = c.cid order by 1 limit 5
select distinct o.note, c.region from o join c on o.cust = c.cid where o.id < 3000 order by c.region, o.note limit 10
select distinct c.region, o.cust % 3 as m from o join c on o.cust = c.cid order by m, 1
select distinct l.qty, o.placed from o join l on l.oid = o.id where o.id < 200 order by o.placed desc nulls last, l.qty limit 7 offset 2
select distinct c.region from o left join c on o.cust = c.cid order by 1 nulls first
select distinct r.label, c.region from r left join c on c.region = r.rid order by 1, 2
select distinct c.region from c where c.cid not in (1, 2) and not exists (select 1 from o where o.cust = c.cid) order by 1
select distinct o.cust, o.cust from o join c on o.cust = c.cid where c.region = 3 order by 1 limit 4
select distinct c.region, r.rid from c join r on c.region = r.rid where r.rid = 4
select distinct * from c join r on c.region = r.rid where c.cid < 30 order by c.cid
select distinct o.amount * 2, c.region from o join c on o.cust = c.cid where o.id between 100 and 400 order by 2, 1 limit 8
select distinct c.region, o.placed from o, c where o.cust = c.cid and o.id < 5000
select distinct l.qty from l join o on l.oid = o.id join c on o.cust = c.cid order by l.qty desc
select distinct r.label from o full join c on o.cust = c.cid left join r on r.rid = c.region order by 1 nulls first limit 3
