select v, count(*), sum(n) from s group by v
select sm % 7, sum(sm), count(*) from s group by 1 order by 1
select count(*), max(t) from s having count(*) > 1
select c, count(*) from s where sm < 60 group by c order by 2 desc, 1 limit 3
select b, min(d), max(ts), count(*) from s group by b order by b
