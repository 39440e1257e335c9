select v, count(*) from s group by v order by v
select b, count(*), count(b) from s group by b order by b
select sm, sum(n), avg(n), min(t), max(t) from s where sm < 5 group by sm order by sm
select c, max(d), min(ts) from s where id < 500 group by c order by c limit 5
select n, count(*) from s where id < 200 group by n order by n nulls first limit 8
select v, b, count(*) from s where sm < 3 group by v, b order by v, b
select sm % 7 as m, count(*), sum(id) from s group by sm % 7 order by 1
select sm % 7, count(*) from s group by 1 order by count(*) desc, 1
select length(t), count(*) from s group by length(t) order by 1
select date_trunc('month', ts), count(*) from s where id < 2000 group by 1 order by 1
select v, count(*) from s group by v having count(*) > 399 order by v
select v, sum(f) from s group by v having sum(f) > 575000 and min(sm) < 3 order by 2 desc
select sm, count(*) from s group by sm having sm < 4 order by sm
select sm, count(*) from s group by sm having sm > 100 and count(*) > 0 order by sm desc
select v, count(*) as k from s group by v order by k, v limit 3
select v as x, avg(r) from s group by x order by x desc limit 4
select b, avg(id), sum(sm) from s group by b order by avg(id)
select v, count(distinct c), count(distinct sm) from s group by v order by v limit 5
select sm, sum(distinct n) from s where sm < 4 group by sm order by sm
select d, count(*) from s where d between '2020-02-01' and '2020-02-10' group by d order by d
select iv, count(*) from s where id < 400 group by iv order by iv limit 6
select sm, count(*) * 2 + 1, max(id) - min(id) from s where sm < 3 group by sm order by sm
select sm from s where sm < 6 group by sm order by sm
select v from s group by v order by v desc limit 3
select count(*) from s group by v order by 1 desc limit 2
select v, t is null, count(*) from s where id < 100 group by v, t is null order by 1, 2 limit 5
select sm, count(*) from s where sm = 7 group by sm
select v, sm, count(*) from s where sm = 7 group by v, sm order by v limit 3
select id / 1000, count(*), min(id) from s group by id / 1000 order by 1 limit 5
select sm, count(*) from s where id < 0 group by sm
select c, count(*) from s group by c order by count(*) desc, c limit 5
select b, count(*) from s where n is null group by b order by b
select sm, max(w) from s where id > 19990 group by sm order by sm
select v, count(*) from s group by v, v order by v limit 2
select count(*) from s having count(*) > 5
select count(*), sum(sm) from s where id < 0 having count(*) = 0
select max(v) from s having min(sm) >= 0 and 1 = 1
select count(*) from s where id < 10 having count(*) > 100
select v, count(*) from s group by v having 1 = 1 order by v limit 2
