-- q1: the SQL PostgreSQL 15 accepts that tidepool added (IS [NOT] NULL, BETWEEN
-- SYMMETRIC, OFFSET, FETCH FIRST, NULLS FIRST/LAST, count(1), count(DISTINCT ...),
-- schema-qualified names). 20,000 rows, sampled whole by ANALYZE; the data is a function
-- of the row number, so tidepool builds the same table and statistics itself.
drop table if exists q1;
create table q1 (a int, b int, c int, d int);
insert into q1 select i, i % 100, (i * 7919) % 20000, i / 50 from generate_series(1, 20000) s(i);
create index q1_a on q1 (a);
create index q1_cd on q1 (c, d);
analyze q1;
-- q2: sort orders from equality (a = const makes a redundant in an index (a, c)'s
-- order) and IN lists (ordered on an index's first column only).
drop table if exists q2;
create table q2 (a int, b int primary key, c int);
insert into q2 select i % 10, i, (i * 37) % 997 from generate_series(1, 5000) s(i);
create index q2_ac on q2 (a, c);
analyze q2;
