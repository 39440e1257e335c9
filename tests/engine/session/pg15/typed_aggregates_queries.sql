select count(*), count(t), min(t), max(t), min(n), max(n), sum(n), avg(n) from w
select min(d), max(d), min(ts), max(ts), min(v), max(v), min(c), max(c) from w
select sum(f), avg(f), min(f), max(f) from w
select sum(n), avg(n) from w where a > 150
select sum(n), avg(n), min(t), max(d), sum(f) from w where a > 1000
select count(b), count(d), max(a), sum(a), avg(a) from w
select max(t), count(*) from w where t like 'abc1%'
select avg(n), sum(f) from w where b
select min(t) from w where t > 'abc5'
select max(v), min(c) from w where c <> 'c1' and v < 'v5'
select sum(n) from w where n is null
select avg(f), count(f) from w where f < 0
select min(ts), max(ts) from w where ts >= '2021-01-10'
select count(*) from w where d between '2020-03-01' and '2020-06-30'
select min(n), max(n), sum(n) from w where n between 10 and 20
select distinct max(t) from w
select max(t) as m, count(*) as c from w where a % 2 = 0
select count(distinct a), sum(n), min(d) from w
select sum(n * (1 - f)), sum(a * 2), avg(length(t)), max(lower(t)), count(a + 1), min(d + 1) from w
select sum(n * 2), avg(n * 2), sum(a % 7) from w where b
select count(nullif(a, 3)), sum(case when b then 1 else 0 end), max(coalesce(t, 'zzz')) from w
select sum(a), sum(a + 0), sum(a + 0) from w
select count(NULL), sum(1), avg(2.5) from w
select sum(a * 2), max(t || 'x'), count(v), min(c || v) from w where a < 100
select max(extract(year from d)), min(date_trunc('month', ts)), sum(round(n)), avg(abs(f)) from w
