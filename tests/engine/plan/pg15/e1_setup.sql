-- e1: equivalence classes. 20,000 rows (sampled whole by ANALYZE), the data a function
-- of the row number; an index on (a), one on (b, c), none on d.
drop table if exists e1;
create table e1 (a int, b int, c int, d int);
insert into e1 select i, i % 100, (i * 7919) % 20000, i / 50 from generate_series(1, 20000) s(i);
create index e1_a on e1 (a);
create index e1_bc on e1 (b, c);
analyze e1;
-- e2: two indexes that can serve an OR arm on x, one of them with z too.
drop table if exists e2;
create table e2 (x int, y int, z int);
insert into e2 select (i * 31) % 1000, i * 3, i % 7 from generate_series(1, 30000) s(i);
create index e2_x on e2 (x);
create index e2_zx on e2 (z, x);
analyze e2;
