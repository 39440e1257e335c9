select lower(t), floor(r) from s order by c, ts limit 10
select upper(v) || '!', n * 2 from s order by t, d limit 5
select length(t), f + 1 from s order by t, f limit 7
select abs(f), n - 1 from s where n > 1000 order by d limit 6
select t || v, sm * 2 from s order by sm, id limit 8
select round(n, 1), extract(year from d) from s where t = 'k17' order by ts
select coalesce(n, 0) + 1, lower(c) from s order by r desc, id limit 4
select ts + interval '1 day', b from s where sm = 5 and id < 400 order by id
select case when b then 'y' else 'n' end, n from s order by n limit 3
select t, n * n from s where d > '2023-01-01' order by d, sm limit 5
select id * 2, lower(t) from s order by ts desc limit 5 offset 10
select upper(t), d - 1 from s where t like 'k1%' order by t, ts limit 6
select n / 3, substring(t from 2 for 3) from s order by v, c, id limit 9
select t from s where id = 5 order by id, sm
select id, n from s where d = '2021-06-13' order by d, id limit 4
