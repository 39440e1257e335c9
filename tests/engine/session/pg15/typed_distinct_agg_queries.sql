select count(distinct t) from s
select count(distinct v), count(distinct c), count(distinct n) from s
select sum(distinct n), avg(distinct r) from s where id < 300
select count(distinct b), count(distinct d), count(distinct iv) from s
select count(distinct w), min(distinct w) from s
select count(distinct sm), sum(distinct sm), avg(distinct sm) from s
select count(distinct f), sum(distinct f) from s where id < 50
select count(distinct ts), min(distinct ts) from s where id < 1000
select count(distinct t), count(t), count(*) from s where t like 'k1%'
select count(distinct c) from s where c > 'c3'
select sum(distinct n), count(distinct n) from s where n is null
select count(distinct v), count(distinct id) from s where id < 0
