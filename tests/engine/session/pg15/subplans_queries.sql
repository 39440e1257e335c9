select id from t where k = (select max(x) from u where z = 3) order by id
select id, v from t where v > (select avg(x) from u) / 20 order by id limit 5
select id, (select y from w where k = 5) from t where id < 5 order by id
select count(*) from t where k < (select min(z) from u where x > 100) + 3
select id from t where k = (select k from u where x = 7) and id < 200 order by id
select id from t where v = (select x from u where x = 5000) order by id
select id, name from t where exists (select 1 from u where z = 3) and id < 10 order by id
select id from t where not exists (select 1 from u where z = 99) and id < 4 order by id
select count(*) from t where exists (select * from u where z = 99)
select id from t where v not in (select z from u) and id < 40 order by id
select count(*) from t where v not in (select z from u)
select count(*) from t where v not in (select a from n)
select count(*) from t where v not in (select k from u where x < 0)
select count(*) from w where k not in (select v from t where id < 20)
select id, v from t where id < 30 and v not in (select a from n where a is not null) order by id
select id, v from t where v is null and v not in (select a from n where a > 5) and id < 70 order by id
select id, (select x from u where x = 5000) as none, (select max(k) from u) from t where id < 3 order by id
select count(*) from t where (select count(*) from n) = 3 and k = 1
select id from t where k = (select y from w where k = 2) / 10 order by id desc limit 3
select count(*) from t where name = (select name from t where id = 5)
select * from w where k = (select k from u where x = 7)
select * from w where k = (select k from u where x = -7)
select count(*) from w where k = (select max(z) from u)
select * from w where k > 490 and k = (select k from u where x = 299)
select count(*) from t join w on w.k = t.id where t.v not in (select z from u where x < 100)
select t.id, w.y from t join w on w.k = t.k where t.v = (select max(z) from u) order by t.id limit 4
select k, count(*) from t where v = (select max(z) from u) group by k order by k limit 2
select k from t group by k having count(*) > (select count(*) from n) + 36 order by k
select id, (select count(*) from u where u.k = t.k) from t where id < 10 order by id
select id from t where v = (select max(y) from w where w.k = t.k) order by id
select id, (select y from w where w.k = t.id) from t where id < 4 order by id
select id, (select max(x) from u where u.k = t.v) as mx from t where id between 12 and 14 order by id
select count(*) from t where k > (select avg(z) from u where u.k = t.id)
select x.id, (select max(t.k) from t where t.id = x.id + 1) from t x where x.id < 3 order by x.id
select id from t where k = (select max(k) from w) - 490 order by id
select count(*) from w where k > (select min(k) from w) + 497 and y < (select max(y) from w where k < 10)
select id, (select count(*) from t t2 where t2.name = t.name and t2.id < 30) from t where id < 3 order by id
select id, (select name from t t2 where t2.id = t.id + 1) from t where id < 3 order by id
select k, count(*) from t where v = (select max(y) / 10 from w where w.k = t.k) group by k order by k limit 3
select id from t where id < 5 order by (select max(x) from u where u.k = t.id) desc, id
select id, exists (select 1 from n where a is null) from t where id < 3 order by id
select count(*) from t where (select max(x) from u where u.k = t.k) is null
select count(*) from t join w on w.k = t.id where exists (select 1 from u where z = 3)
select t.id, w.y from t join w on w.k = t.id where not exists (select 1 from u where z = 99) and t.id < 5 order by t.id
select t.id from t, w where w.k = t.id and exists (select 1 from u where z = 3) order by t.id limit 3
select t.k, count(*) from t join w on w.k = t.id where exists (select 1 from u where z = 3) group by t.k order by t.k limit 2
select id from t where k < (select max(k) from w where y = 50) + (select min(x) from u) order by id limit 2
select t.id, w.y from t join w on w.y = t.id * 10 where w.k = (select k from u where x = 7)
select t.id, w.y, (select count(*) from u where u.k = t.k) from t join w on w.k = t.id where t.id < 20 order by t.id
select t.id, w.y from t join w on w.k = t.id where (select count(*) from u where u.k = t.k and u.z = w.k % 17) > 0 and t.id < 100 order by t.id
select t.id from t join w on w.k = t.id where t.v = (select min(y) / 10 from w w2 where w2.k = t.k) order by 1
select t.id, w.y from t left join w on w.k = t.id + 1990 where t.id > 1995 and coalesce((select count(*) from u where u.k = w.k), -1) >= 0 order by 1
select count(*) from t join w on w.k = t.k where (select count(*) from u where u.k = t.id) = 10
select id from t where false and t.k > (select avg(x) from u)
select t.id from t join w on w.k = t.id where (t.v is null and false) and (select count(*) from u where u.k = t.k) > 0
select t.id, (select count(*) from u where u.k = t.k) from t join w on w.k = t.id order by w.y desc limit 3
select t.id, w.y, (select max(x) from u where u.k = t.k) from t join w on w.k = t.id where t.id < 300 order by t.v, t.id limit 4
select t.id, (select max(x) from u where u.k = t.k) as m from t join w on w.k = t.id order by m desc, t.id limit 2
select id from t where t.k <> null and t.k > (select avg(x) from u)
select t.id from t join w on w.k = t.id where t.v > 3 and (t.name like null or null) and w.y < (select max(x) from u)
select count(*) from t where id between null and 5 and k = (select min(k) from u)
select id from t where (id < 5 or v = null) and k = (select min(k) from u) order by id
select id, (select count(*) from u where u.k = t.k) from t where t.k <> null limit 3
select t.id, (select max(x) from u where t.v = u.k) from t join w on w.k = t.id where false
select id, (select count(*) from u where u.z = t.k) from t where t.k = 3 limit 2
