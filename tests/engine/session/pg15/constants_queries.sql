select count(*) from w where null
select count(*) from w where false
select count(*) from w where true
select * from w where 1 = 2
select a from w where a = null
select a from w where not (a = null)
select a from w where a <> null or a < 3
select a from w where t = null
select a from w where t || null = 'x'
select a from w where t like null
select a from w where a > 5 and false
select a from w where a > 195 or true and a < 3
select a from w where a > 197 or false
select a from w where a < 3 or null
select a from w where a < 3 and null
select a from w where not (a < 3 and null)
select a from w where not (a > 197 or null)
select a from w where a between null and 5
select a from w where a not between null and 5
select a from w where a not between 5 and null
select a from w where a in (null)
select a from w where a in (1, null)
select a from w where a not in (1, null)
select a from w where t in ('abc1', null)
select a from w where coalesce(null::int, 3) > a
select a from w where coalesce(null, t, 'x') = 'abc2'
select a from w where coalesce(null::text, null) = 'x'
select a from w where nullif(a, null) = 4
select a from w where b = false and a < 10
select a from w where b <> true and a < 10
select a from w where b = true and a < 10
select a from w where (a < 5) = false and a < 8
select a from w where null::int is null and a < 3
select a from w where null::int is not null
select a from w where null::bool is unknown and a < 3
select a from w where false order by a limit 3
select a, t from w where null order by t desc
select count(*), sum(n), max(t) from w where 1 = 0
select min(a) from w where a = null
select a + 1 as x from w where false
select t || null, coalesce(null, t, 'z'), null::int + a, not null::bool, a > 3 and null from w where a < 3
select a from w where a = 1 and a = 2 and null
select a from w where (a < 3 or null) and (t = 'abc1' or false)
select distinct t from w where null
select distinct c, a from w where false order by c limit 3
select distinct b from w where a = null limit 2
