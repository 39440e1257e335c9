select distinct v from s
select distinct b from s
select distinct sm from s where sm < 10
select distinct v, b from s order by v, b limit 5
select distinct t from s where id < 300
select distinct t from s where id < 40 order by t
select distinct d from s order by d desc limit 3
select distinct n from s where id < 25
select distinct n from s where id < 25 order by n desc
select distinct r from s where id < 12 order by r
select distinct c, v from s where id < 30 order by 2, 1
select distinct v from s order by v
select distinct iv from s where id < 100 order by iv limit 4
select distinct ts from s where id < 4
select distinct w from s where id < 100
select distinct c from s where id > 19990
select distinct v, c from s where v = 'v3' and id < 500
select distinct t, t from s where id < 10 order by t
select distinct f from s where f < 1 order by f
select distinct b, v from s where b is not null order by b, v limit 6
select distinct lower(t) from s where id < 200
select distinct id % 7, b from s
select distinct length(t), 1 from s
select distinct extract(year from d) from s where id < 5000
select distinct sm > 100 from s
select distinct n * 2, v from s where id < 40
select distinct v || 'x', v from s where v < 'v2' order by v
