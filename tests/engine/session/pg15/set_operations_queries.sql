select id from o where id < 5 union all select cid from c where cid < 3
select id from o union all select rid from r
select id, cust from o where id < 4 union all select oid, line from l where line < 3 order by 1, 2
select cust from o union select region from c order by 1 limit 5
select cust from o union select region from c
select region from c union select rid from r order by 1
select note from o union select label from r order by 1 limit 7
select label from r union all select note from o where id < 3
select id from o where id < 10 union select cid from c where cid < 5 order by id desc
select cust, count(*) from o group by cust having count(*) > 40 union all select cid, region from c where cid < 3 order by 1, 2
select o.id, c.name from o join c on o.cust = c.cid where o.id < 20 union all select rid, label from r order by 1, 2
select o.id, c.name from o join c on o.cust = c.cid where o.id < 20 union select rid, label from r order by 1, 2
select id from o where id < 3 union all select id from o where id > 19997 union all select rid from r where rid < 2 order by 1
select id from o where id < 3 union select id from o where id < 5 union all select rid from r where rid < 2 order by 1
(select id from o order by id desc limit 3) union all (select rid from r order by rid limit 2)
select cust, null from o where id < 5 union select region, name from c where cid < 4 order by 1, 2 nulls first
select region, amount from c, o where c.cid = 7 and o.id = c.cid union select rid, rid * 2 from r where rid < 3 order by 1
select id from o where id < 3 union select id from o where id < 4 limit 5
select cust from o union select cust from o order by cust limit 4
select id + 1 as k from o where id < 4 union select rid from r where rid < 3 order by k
select placed from o where id < 3 union select placed from o where id between 2 and 4 order by 1
select id, note from o where id < 4 union all select rid, label from r where rid < 2 order by 2 desc, 1 offset 1 limit 3
select cust from o union all select rid from r order by 1 limit 5
select cid from c union all select cid from c order by cid desc limit 3
select oid from l where false union all select rid from r order by 1
select rid from r union all select cid from c union all select region from c order by 1 desc limit 6
select rid from r union all select oid from l order by 1
select label from r union all select name from c order by 1 limit 4
select label from r union select null from r order by 1
select label from r union select label from r order by 1 limit 2
select null, cust from o where id < 3 union all select 'x', rid from r where rid < 2 order by 2, 1
select 1 union select 2
select id from o where id < 3 union all select 5 order by 1
select null union select 2 union select 2 order by 1
select null, note from o where id < 3 union select id, 'x' from o where id < 3 order by 1, 2
