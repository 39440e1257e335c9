select o.id, c.name from o left join c on o.cust = c.cid where o.id < 30 order by o.id
select o.id, c.name from c right join o on o.cust = c.cid where o.id between 90 and 100 order by o.id
select c.cid, o.id from c left join o on o.cust = c.cid and o.id < 3000 where c.cid < 10 order by 1, 2
select c.cid, c.name from c left join o on o.cust = c.cid where o.id is null order by c.cid
select c.cid from c left join o on o.cust = c.cid where o.cust is null and c.region = 3 order by 1
select o.id, c.region from o left join c on o.cust = c.cid where c.region = 4 and o.id < 400 order by o.id
select o.id, c.cid from o left join c on o.cust = c.cid and c.region = 2 where o.id < 40 order by o.id
select o.id, c.cid from o left join c on o.cust = c.cid and o.amount > 50 where o.id < 25 order by o.id
select o.id, c.name from o left join c on o.cust = c.cid where (c.region is null or c.region > 10) and o.id < 300 order by o.id
select r.rid, r.label, c.cid from r full join c on c.region = r.rid and c.cid < 3 order by 1, 3
select r.rid, c.cid, c.region from r full join c on c.cid = r.rid order by 2, 1 limit 15
select o.id, c.name, r.label from o left join c on o.cust = c.cid left join r on r.rid = c.region where o.id < 20 order by o.id
select o.id, c.cid, r.rid from o left join c on o.cust = c.cid join r on r.rid = o.id % 10 where o.id < 15 order by o.id
select o.id, l.qty from o left join l on l.oid = o.id and l.qty > 7 where o.id < 12 order by o.id, l.line
select c.cid, o.id from c left join o on o.cust = c.cid where c.cid = 5 order by o.id limit 4
select o.id, c.cid from o left join c on o.cust = c.cid order by o.cust, o.id limit 10
select * from r left join c on c.region = r.rid where false
select r.rid, c.cid from r left join c on true where r.rid < 2 and c.cid < 2 order by 1, 2
select r.rid, x.cid from r left join (c x join o y on y.cust = x.cid) on x.region = r.rid and y.id < 3 order by 1, 2
select o.id, coalesce(c.name, 'none') from o left join c on o.cust = c.cid and c.region = 99 where o.id < 6 order by 1
select * from c x left join c y using (cid) where x.cid < 3 order by 1
select * from c x right join c y using (cid) where y.cid > 797 order by 1
select count(*) from o join c on o.cust = c.cid left join r on r.rid = c.region where (o.amount < 50 or r.label <> null) and c.region < 4
select count(*) from o left join c on o.cust = c.cid where (c.name = 'x' or o.id <> null or c.region < 2)
select count(*), count(x.name) from o left join (select cid, name from c where false) x on o.cust = x.cid
select count(*) from o full join (select cid, name from c where false) x on o.cust = x.cid
select count(*), count(x.name) from o left join (select cid, name, region from c where null) x on o.cust = x.cid and x.region < 5
select o.id, x.name from o left join (select cid, name, region from c where cid < 50 and null) x on o.cust = x.cid and x.region < 5 where o.id < 10 order by 1
select count(*), count(x.name) from o left join (select cid, name from c where cid < 50 and false) x on o.cust = x.cid
select count(*), count(c.name) from o left join c on o.cust = c.cid and c.region < 3 and null
select c.cid, r.rid from c left join r on c.name = r.label where c.name = 'region3' or c.cid < 2 order by 1
select c.cid, r.rid from c left join r on c.name = r.label where c.name = 'cust5'
select count(*) from c full join o on c.cid = o.cust where o.note is not null and c.region = 3 and o.cust = 40
select o.id, c.name from o, c where o.cust = c.cid and c.cid = 5 and o.note <> null order by c.cid desc, o.id
