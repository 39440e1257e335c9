select count(*) from dd left join tzt on tzt.ts = dd.d
select dd.k, t.id from dd left join tzt t on t.tz = dd.d where dd.k < 4 order by 1, 2
select count(*) from tzt t right join dk on dk.d = t.ts
select count(t.id) from dk full join tzt t on t.tz = dk.d
select count(*) from vk join tk on vk.w = tk.t
select count(*) from tk join vk on vk.v = tk.t
select count(*) from rf a join rf b on a.r = b.f where a.id < 3000
select count(*) from rf a join rf b on b.f = a.r where a.id < 3000 and a.r > 10
