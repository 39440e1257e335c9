select count(*) from s where t = 'k42'
select id, t from s where t = 'k42' order by id
select count(*) from s where 'k42' = t
select count(*) from s where t = 'common'
select count(*) from s where t in ('k1', 'k2', 'k3')
select count(*) from s where t in ('k1', null)
select count(*) from s where t > 'k2990'
select count(*) from s where t between 'k100' and 'k1005'
select count(*) from s where t = 'k42' and d > '2021-01-01'
select t, d from s where t = 'k42' and d > '2021-01-01' order by d
select count(*) from s where v = 'v7'
select count(*) from s where v in ('v7', 'v8')
select count(*) from s where c = 'c17'
select count(*) from s where c = 'c17  '
select count(*) from s where n = 12.5
select count(*) from s where n is null
select count(*) from s where n between 100 and 101
select count(*) from s where f = 1.0
select count(*) from s where d = '2020-03-01'
select count(*) from s where d between '2020-03-01' and '2020-03-10'
select count(*) from s where ts = '2021-01-02 00:40'
select id from s where ts = '2021-01-02 00:40'
select count(*) from s where ts between '2021-01-05' and '2021-01-06'
select count(*) from s where sm = 5
select count(*) from s where sm in (5, 6, 7)
select count(*) from s where iv = '3 hours'
select id, t from s order by t limit 5
select id, t from s order by t desc limit 5
select id, d from s order by d limit 4
select id, d from s order by d desc, id limit 4
select t from s where t = 'k42'
select t, d from s where t = 'k42' order by d
select ts, id from s where ts < '2021-01-01 03:00' order by ts
select id from s where t = 'k42' and v = 'v42'
select count(*) from s where t like 'k42%'
select count(*) from s where t = 'k42' or t = 'k43'
select count(*) from s where t < 'k1' and t > 'j'
select count(*) from s where r = 1.0
select count(*) from s where t like 'k42'
select count(*) from s where t like 'k42_'
select count(*) from s where v like 'v4%'
select count(*) from s where t not like 'k42%'
select t from s where t like 'k29%' order by t limit 3
select id from s where t like 'k299%' and d < '2021-01-01'
select count(*) from s where n < 5 and n is not null
select count(*) from s where t >= 'k42' and t like 'k4%'
select count(*) from s where t ilike 'K42%'
select id, t from s where t in ('k7', 'k8') order by t desc, id
select min(t), max(t) from s
select max(v) from s
select min(v) from s where v > 'v3'
select min(d), max(n) from s
select max(c) from s where c < 'c2'
select max(ts) from s where t = 'k42'
select min(iv) from s
select v from s where v = 'v7' order by v limit 2
select v from s where v like 'v1%' order by v limit 2
select count(*) from s where t like 'k42%' or d = '2020-03-01'
select count(*) from s where v like 'v4%' or (t like 'k1%' and n > 100)
select count(*) from s where (t like 'k4%' or t like 'k5%') and sm < 10
select count(*) from s where b
select count(*) from s where not b
select count(*) from s where b is true and sm = 3
select count(*) from s where b is false or t = 'k42'
select id from s where b and id < 40 order by id
select count(*) from s where r < 1.1
select count(*) from s where r = 1.1
select count(*) from s where r in (1.0, 1.1, 2.0)
select count(*) from s where d < '2020-03-01 12:00'::timestamp
select count(*) from s where d = '2020-03-01 12:00'::timestamp
select count(*) from s where d >= '2020-03-01'::timestamp and d < '2020-03-05'
select count(*) from s where f > 1.5::real and f < 2.5::real
select count(*) from s where ts > '2021-01-05'::date and ts < '2021-01-06'::date
select id from s where ts between '2021-01-05'::date and '2021-01-05 02:00' order by ts
