-- v1: the visibility map. 27,000 rows (a = i, b = i % 100, c = i * 7919 % 27000), indexes
-- on (a) and (b, c), VACUUM ANALYZE: every page all-visible, relallvisible = relpages.
-- v1e: the effective_io_concurrency article's table (major PRIMARY KEY, an index on
-- (major, minor)), 30,000 rows with minor a function of the row number, VACUUM ANALYZE.
drop table if exists v1;
drop table if exists v1e;
create table v1 (a int, b int, c int);
insert into v1 select i, i % 100, (i * 7919) % 27000 from generate_series(1, 27000) s(i);
create index v1_a on v1 (a);
create index v1_bc on v1 (b, c);
vacuum analyze v1;
create table v1e (major int primary key, minor int);
create index v1e_minor_idx on v1e (major, minor);
insert into v1e select g, (g * 7919) % 1000 from generate_series(1, 30000) g;
vacuum analyze v1e;
