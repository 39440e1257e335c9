select count(*) from s where t = 'common'
select count(*) from s where t = 'k17'
select count(*) from s where t = 'nothing'
select count(*) from s where t < 'k2'
select count(*) from s where t >= 'k555' and t < 'k6'
select count(*) from s where t like 'k1%'
select count(*) from s where t like 'k12_'
select count(*) from s where t like '%99'
select count(*) from s where t not like 'k%'
select count(*) from s where t ilike 'COM%'
select count(*) from s where t like 'common'
select count(*) from s where t in ('k1', 'k2', 'common')
select count(*) from s where t not in ('k1', 'common')
select count(*) from s where t <> 'common'
select count(*) from s where v = 'v7'
select count(*) from s where v > 'v40'
select count(*) from s where v like 'v4%'
select count(*) from s where v in ('v1', 'v2')
select count(*) from s where c = 'c12'
select count(*) from s where c < 'c2'
select count(*) from s where c like 'c1%'
select count(*) from s where n = 12.50
select count(*) from s where n < 100
select count(*) from s where n between 200 and 300
select count(*) from s where n is null
select count(*) from s where n > 1000.5
select count(*) from s where f < 100
select count(*) from s where f > 1000 and f < 1500
select count(*) from s where r < 10
select count(*) from s where r = 1.5
select count(*) from s where r > 40.5::float8
select count(*) from s where d < '2020-06-01'
select count(*) from s where d = '2021-03-03'
select count(*) from s where d between '2022-01-01' and '2022-03-31'
select count(*) from s where d < timestamp '2020-06-01 12:00'
select count(*) from s where ts < '2021-03-01'
select count(*) from s where ts >= '2022-01-01' and ts < '2022-02-01'
select count(*) from s where b
select count(*) from s where not b
select count(*) from s where b is true
select count(*) from s where b is not false
select count(*) from s where b is unknown
select count(*) from s where b = false
select count(*) from s where sm = 7
select count(*) from s where sm < 30
select count(*) from s where sm > 110
select count(*) from s where iv < '10 hours'
select count(*) from s where iv = '5 hours'
select count(*) from s where w = 'w3'
select count(*) from s where w like 'z%'
select count(*) from s where w > 'x'
select count(*) from s where t = 'k17' and v = 'v7'
select count(*) from s where lower(t) = 'common'
select count(*) from s where t || 'x' = 'commonx'
select count(*) from s where id < 100 and t like 'k%'
select id, t, v, c, n from s where id < 5
