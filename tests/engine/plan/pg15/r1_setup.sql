-- r1: the single-table rules of PostgreSQL 15's planner that issue 30 lists. 20,000
-- rows (sampled whole by ANALYZE), the data a function of the row number; indexes on
-- (a), (b), (c, d) and (b, c).
drop table if exists r1;
create table r1 (a int, b int, c int, d int);
insert into r1 select i, i % 100, (i * 7919) % 20000, i / 50 from generate_series(1, 20000) s(i);
create index r1_a on r1 (a);
create index r1_b on r1 (b);
create index r1_cd on r1 (c, d);
create index r1_bc on r1 (b, c);
analyze r1;
