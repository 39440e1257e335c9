select dd.k, tzt.id from dd join tzt on tzt.tz = dd.d where dd.k < 5 order by 1, 2
select dd.k, tzt.id from dd join tzt on tzt.ts = dd.d where dd.k < 5 order by 1, 2
select dd.k, count(tzt.id) from dd left join tzt on tzt.tz = dd.d where dd.k < 50 group by dd.k order by 1
select dd.k, tzt.id from dd join tzt on tzt.ts = dd.d where dd.k between 100 and 103 and tzt.id < 9000 order by 1, 2
select dd.k, nk.id from dd join nk on nk.n = dd.k where dd.k < 4 and nk.id > 50 order by 1, 2
select dd.k, count(*) from dd join nk on nk.n = dd.k * 1.5 where dd.k between 10 and 12 group by dd.k order by 1
select dd.k, nk.id from dd join nk on nk.t = 'k' || dd.k where dd.k < 3 order by 1, 2
select a.id, b.id from nk a join nk b on b.t = a.c where a.id < 3 order by 1, 2
select dd.k, nk.id from dd left join nk on nk.c = 'c' || dd.k where dd.k < 3 order by 1, 2
select count(*) from vk a join vk b on b.v = a.w where a.id < 2000
select a.id, b.id from vk a join vk b on b.v = a.w where a.id < 30 order by 1, 2
select count(*) from sk join nk on nk.n = sk.s where sk.id < 3000
select sk.s, count(*) from sk join nk on nk.n = sk.s * 3 where sk.id < 3000 group by 1 order by 1
select dd.k from dd where dd.k < 5 and exists (select 1 from sd where sd.s = dd.k and sd.id > 100) order by 1
select dd.k from dd where dd.k < 5 and not exists (select 1 from sd where sd.s = dd.k and sd.id > 100) order by 1
select count(*) from vk join tk on tk.t = vk.w where vk.id < 100
select tk.id, vk.id from tk join vk on vk.v = tk.t where tk.id < 12 order by 1, 2
select tsx.id, count(*) from tsx join dt on dt.d = tsx.ts where tsx.id < 12 group by 1 order by 1
select tsx.id, dt.k from tsx left join dt on dt.d = tsx.ts where tsx.id between 4 and 6 order by 1, 2
select nk.id, nk.t, nk.n from nk where nk.n in (select sk.s from sk where sk.id < 10) order by 1
select nk.id, nk.c from nk where nk.n in (select sk.s * 3 from sk where sk.id < 40) and nk.id < 5000 order by 1
select t.id, k.k from tzt t join dk k on k.d = t.tz where t.id < 6 order by 1, 2
select t.id, count(k.k) from tzt t left join dk k on k.d = t.tz + interval '1 hour' where t.id < 20 group by t.id order by 1
select count(*) from tzt t join dk k on t.tz = k.d where t.id between 100 and 140
select nk.id, sk.id from nk join sk on nk.n = sk.s where nk.n = 15 and sk.id < 200 order by 1, 2
select count(*) from nk, sk, dd where nk.n = sk.s and nk.n in (15) and dd.k = sk.id
select count(*) from nk join sk on sk.s + 1 = nk.n join dd on dd.k = nk.id where nk.n = 16.5
select tk.id, vk.id from tk left join vk on tk.t = vk.v where tk.id < 4 order by 1, 2
select count(*) from nk, sk where (case when true then 'a' else 'b' end = 'b') or nk.id = sk.id
select sk.id, case when false then 0 when sk.s > 5 then 1 else 2 end, case when sk.s > 5 then 1 when true then 7 end from sk join nk on nk.id = sk.id where sk.id < 9 order by 1
select count(*) from nk a, nk b, sk where a.n = sk.s and b.n = sk.s and sk.id < 100
select count(*) from nk a, nk b, sk where a.n = b.n and b.n = sk.s and a.id < 50
select a.id, b.id from rf a join rf b on a.r = b.f where a.f in (select nk.n from nk where nk.id < 40) order by 1, 2
select count(*) from rf a join rf b on a.r = b.f join rf c on c.f = a.r where a.id < 100
select a.id, b.id, c.id from rf a join rf b on a.r = b.f join rf c on c.r = b.f where a.id < 30 and c.id < 400 order by 1, 2, 3
select count(*) from sk, rf a, rf b where a.f = sk.s and b.f = a.r and sk.id < 200
select count(*) from nk, sk where nk.id = sk.id and (nk.n between 10 and 20 or sk.s < 3)
select count(*) from nk, sk where nk.id = sk.id and ((nk.n >= 10 and nk.n <= 20 and nk.id > 5) or sk.s < 3)
select count(*) from rf a where a.id < 2000 and a.f in (select b.r from rf b where b.id < 5000)
select count(*) from sk a left join nk on a.s = nk.n join sk b on nk.n = b.s where a.id < 40 and b.id < 60
select a.id, b.id from sk a join nk on a.s = nk.n join sk b on nk.n = b.s where a.id < 12 and b.id < 9 and nk.id < 3000 order by 1, 2
select t, x.id, y.id from (select t, id from tk where id < 60) x left join (select v as t, id from vk where id < 80) y using (t) order by 1, 2
select t, count(*) from (select t from tk where id < 60) x join (select v as t from vk where id < 80) y using (t) group by t order by 1
select k, count(*) from (select s as k from sk where id < 40) a right join (select k from dt where k < 50) b using (k) group by k order by 1
select count(*) from dd, tzt where dd.d = tzt.tz and dd.d = '2020-03-01'
select dd.k, tzt.id from dd join tzt on tzt.ts = dd.d where dd.d = date '2020-02-01' and tzt.id < 3000 order by 2
select count(*) from dd, tzt, dk where dd.d = tzt.tz and tzt.tz = dk.d and dd.k < 20
select count(*) from dd join tzt on dd.d = tzt.ts left join dk on dk.d = tzt.ts where dd.k between 5 and 9
select count(*) from rf a, sk b where a.f = b.id and b.s < 5 and exists (select 1 from nk where a.f = nk.n)
select count(*) from rf a, nk b where a.f = b.id and b.n < 30 and exists (select 1 from sk where a.f = sk.s and sk.id < 300)
select count(*) from rf a, dt b where a.id = b.k and b.k < 500 and a.f in (select n from nk where id < 4000)
select dd.k, count(*) from dd join tzt on dd.d = tzt.tz where tzt.tz = timestamptz '2020-03-01 00:00+00' + interval '1 day' group by 1
select count(*) from dd full join dk on dd.d = dk.d where dk.d = date '2020-05-01' + 3 and dd.k < 200
select count(*) from tzt, dd, dk where tzt.tz = dd.d and dk.d = tzt.tz and dd.k < 20 and tzt.id < 15000
