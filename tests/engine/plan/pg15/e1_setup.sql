-- e1: equivalence classes. 20,000 rows (sampled whole by ANALYZE), the data a function
-- of the row number; an index on (a), one on (b, c), none on d.
drop table if exists e1;
create table e1 (a int, b int, c int, d int);
insert into e1 select i, i % 100, (i * 7919) % 20000, i / 50 from generate_series(1, 20000) s(i);
create index e1_a on e1 (a);
create index e1_bc on e1 (b, c);
analyze e1;
