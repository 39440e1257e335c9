select p.id, (select count(*) from q where q.n = p.k) from p where p.id < 20 order by 1
select p.id, (select count(*) from q where q.tz = p.d) from p where p.id < 20 order by 1
select p.id, (select count(*) from q where q.t = p.name) from p where p.id < 20 order by 1
select p.id, (select count(*) from q where q.v = p.tag) from p where p.id < 20 order by 1
select p.id, (select count(*) from q where q.i = p.big) from p where p.id < 20 order by 1
select p.id, (select max(q.x) from q where q.b = p.k + 1) from p where p.id < 20 order by 1
select p.id from p where (select count(*) from q where q.n = p.k and q.i > p.id) > 30 order by 1
select p.id, (select count(*) from q where q.t = p.name || '0') from p where p.id < 10 order by 1
select p.id, (select count(*) from q where q.n = nullif(p.k, 3)) from p where p.id < 10 order by 1
select p.id, (select sum(q.x) from q where q.n = p.k * 2 and q.tz >= p.d) from p where p.id between 5 and 15 order by 1
select p.id, (select min(q.x) from q where q.i = p.id + 0.5) from p where p.id < 10 order by 1
select p.id, s.x from p, lateral (select q.x from q where q.n = p.k order by q.x limit 2) s where p.id < 12 order by 1, 2
select p.id, s.x from p left join lateral (select q.x from q where q.i = p.big + 1 order by q.x desc limit 1) s on true where p.id < 12 order by 1, 2
select p.id, s.x from p, lateral (select q.x from q where q.tz = p.d order by q.x limit 1) s where p.id < 8 order by 1, 2
select count(*) from q where q.v = (select max(tag) from p)
select count(*) from q where q.b = (select max(k) from p)
select count(*) from q where q.t = (select min(name) from p where id > 990)
select count(*) from q where n < (select min(n) from q where x = 7) and x < 50
select count(*) from q where (select max(i) - 5 from q) <= i
select count(*) from q where t > (select max(name) from p) and i >= 0
select count(*) from q where i < 100 and i < (select max(k) from p)
select p.id, (select count(*) from q where q.i < p.k) from p where p.id < 6 order by 1
select p.id, (select count(*) from q where p.name >= q.t and q.i < 3000) from p where p.id < 6 order by 1
select q.x, (select count(*) from p where p.d = q.tz) from q where q.x < 6 order by 1
select q.x, (select count(*) from p where p.d = q.tz + interval '1 hour') from q where q.x < 6 order by 1
