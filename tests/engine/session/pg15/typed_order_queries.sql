select id + 1 from s order by 1 desc limit 3
select id from s order by id % 7, id limit 5
select lower(t) as x from s where id < 30 order by x, 1 limit 6
select id, t from s order by t || 'a', id limit 4
select id * 2 as x, v from s order by x desc, v limit 3
select id from s order by -id limit 3
select t from s where id < 100 order by length(t) desc, t limit 5
select id from s where id < 10 order by n * 2 desc
select id, n * 2 from s where id < 20 order by 2 nulls first
select id, n * 2 from s where id < 20 order by n * 2 desc nulls last, id
select id from s order by 1 + 1, id limit 2
select c, upper(v) from s where id < 15 order by upper(v), c
select d + 30 as later, id from s where id < 8 order by later desc
select id, extract(month from d) from s where id < 40 order by 2, 1 limit 7
select coalesce(n, -1), id from s where id between 15 and 20 order by 1, 2
select id from s where v = 'v3' order by v || 'x', id limit 3
select r * 2, id from s where id < 10 order by r * 2 desc, id
select ts - interval '1 day', id from s where id < 5 order by 1 desc
select case when b then 'yes' else 'no' end as yn, id from s where id < 12 order by yn, id
select id from s where id < 6 order by abs(f - 0.5), id
select id from s order by id % 7, -id limit 3
select id, t from s where id < 50 order by length(t), t || 'x' desc, id limit 6
select distinct lower(v) from s order by 1 desc
select distinct id % 7 as m, b from s order by b, m limit 5
select distinct sm % 4, sm % 6 from s order by 2, 1
