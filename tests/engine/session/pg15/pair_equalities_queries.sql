select a from w where a = f and f = a order by a
select a from w where t = v and a < 10 and v = t
select a from w where n = a and a > 2 and a = n order by a
select count(*) from w where d = ts and ts = d
select a from w where a = f and b and f = a and a > 3 order by a
select a from w where t = v or v = t order by a
select a from w where lower(t) = upper(t) and upper(t) = lower(t) and a = 7
select a from w where n = f and f = n and n = a order by a
select a, t from w where t = c and c = t and a < 30 order by a
select a from w where a + 1 = f and f = a + 1 and f > 2 order by a
select a from w where t = t and a < 3 order by a
select a from w where t = t or a = 2 order by a
select a from w where t::varchar = v order by a
select a, v::text::varchar from w where v::text::varchar = 'v3' order by a
