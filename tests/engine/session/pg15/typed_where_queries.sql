select a from w where t like 'abc1%' order by a
select a from w where t ilike 'ABC2_' order by a
select a from w where t not like '%3' order by a
select a, t from w where t > 'abc35' order by a
select a from w where n > 30.5 and n < 40 order by a
select a from w where n = 12.34 order by a
select a from w where d < '2020-03-01' order by a
select a from w where d between '2020-05-01' and '2020-05-10' order by a
select a from w where v = 'v3' and c = 'c1' order by a
select a from w where c = 'c2  ' order by a
select a from w where b order by a
select a from w where not b order by a
select a from w where b is null order by a
select a from w where b is not true order by a
select a from w where f > 20 order by a
select a from w where f < a order by a
select a from w where a::numeric < n / 10 order by a
select a from w where length(t) = 4 order by a
select a from w where lower(upper(t)) = 'abc7' order by a
select a from w where substring(t from 2 for 2) = 'bc' and a < 10 order by a
select a from w where position('c3' in t) > 0 order by a
select a from w where t || v = 'abc5v5' order by a
select a from w where coalesce(t, 'none') = 'none' order by a
select a from w where nullif(a % 5, 0) is null order by a
select a from w where case when a > 100 then t else v end = 'v1' order by a
select a from w where ts >= '2021-01-10' and ts < '2021-01-11' order by a
select a from w where d + 30 > '2020-12-01' order by a
select a from w where ts - interval '1 day' < d order by a
select a from w where extract(month from d) = 3 order by a
select a from w where date_trunc('day', ts) = '2021-01-05' order by a
select a from w where t in ('abc1', 'abc2', 'abc3') order by a
select a from w where v not in ('v1', 'v2') and a < 30 order by a
select a from w where abs(f) > 100 order by a
select a from w where round(n) = 20 order by a
select a from w where md5(t) like 'a%' order by a
select a from w where btrim(c) = 'c3' and a < 20 order by a
select a from w where greatest(a, 150) = a order by a
select a from w where (a > 190 or t = 'abc0') and not (a in (40, 80)) order by a
select a from w where case a when 1 then 'x' when 2 then 'y' else 'z' end = 'x'
select a from w where case n when 1 then 'x' end = 'x'
select a from w where case t when 'abc1' then 1 when 'abc2' then 2 end > 0
select a from w where substring(t, 2) = 'bc1'
select a from w where left(t, 2) = 'ab' and right(t, 2) = '11'
select a from w where extract(month from 'infinity'::timestamp) is null and a < 3
