select v, t from s group by v
select v, count(*) from s group by 3
select v, count(*) from s group by count(*)
select v, count(*) from s group by 2
select v from s group by v having t > 'a'
select v, count(*) from s group by v order by t
select sum(count(*)) from s group by v
select v from s group by v order by 3
select * from s group by v
