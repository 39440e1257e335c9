select distinct on (v) v, id from s order by v, id
select distinct on (v) v, id from s order by v, id desc
select distinct on (c) c, n from s where id < 3000 order by c, n desc nulls last, id limit 10
select distinct on (b) b, id from s order by b, id
select distinct on (d) d, t from s where id < 500 order by d desc, id limit 7
select distinct on (sm) sm, id, ts from s where sm < 5 order by sm, ts desc
select distinct on (n) n from s where n < 20 order by n
select distinct on (1) v, id from s where id < 100 order by 1, 2
select distinct on (v, sm) v, sm, id from s where sm < 3 order by v, sm, id limit 8
select distinct on (t) t, id from s where t like 'k1%' order by t, id limit 5
select distinct on (iv) iv, id from s where id < 400 order by iv, id
select distinct on (v) id from s where id < 300 order by v, r, id
select distinct on (r) r, id from s where r < 1 order by r, id
select distinct on (v) * from s where id < 60 order by v, id
select distinct on (v) v, id from s where v = 'v7' order by v, id
select distinct on (f) f from s where id < 20 order by f
select distinct on (v) v from s
