select a, a + 1, t || 'x' from w where a < 5 order by a
select a * 2 as dbl, n * (1 - 0.5), round(n, 1), abs(f) from w where a between 10 and 14 order by a
select upper(t), length(v), lower(c), c || '|' from w where a < 4 order by a
select d + 30, ts - interval '1 hour', extract(year from d), date_part('day', ts) from w where a < 4 order by a
select case when a % 2 = 0 then 'even' else 'odd' end, coalesce(t, 'none'), nullif(a % 3, 0) from w where a between 15 and 19 order by a
select a::text as at, n::int, f::numeric, d::timestamp, a / 3, a % 3, -a from w where a < 4 order by a
select b, b is true, not b, t like 'abc1%' from w where a between 17 and 20 order by a
select substring(t from 2 for 3), position('c' in t), btrim(c), md5(v) from w where a < 3 order by a
select greatest(a, 100), least(n, 5.5), a::float8 / 3 from w where a < 4 order by a
select n + f, n * a, f * a, a + 2147483647::int8 from w where a < 3 order by a
select 'lit', 1.5, 42 from w where a < 3 order by a
select t, n from w where a > 195 order by a limit 2
