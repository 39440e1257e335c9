select a.id, s.y from la a, lateral (select b.y from lb b where b.id = a.x order by b.y limit 2) s where a.v < 3 order by a.id limit 10
select count(*), sum(s.y) from la a, lateral (select b.y from lb b where b.id = a.x order by b.y limit 2) s where a.v < 10
select count(*), sum(s.y) from la a cross join lateral (select b.y from lb b where b.id = a.x and b.y > 500 order by b.y desc limit 1) s
select count(*), count(s.y) from la a left join lateral (select b.y from lb b where b.id = a.x and b.y > 900 order by b.y limit 1) s on true
select a.x, s.w from la a, lateral (select b.w from lb b where b.id = a.x order by b.w limit 1) s where a.id < 5 order by 1
