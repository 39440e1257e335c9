-- p1: 30,000 rows at fillfactor 10 (1,667 pages, 13 MB: over min_parallel_table_scan_size,
-- one worker by the log-base-3 rule), small enough that ANALYZE samples every row, so
-- PostgreSQL and tidepool store the same statistics. p1_small: 17,000 rows (945 pages,
-- under 8 MB: no parallel path unless parallel_workers is set).
drop table if exists p1;
drop table if exists p1_small;
create table p1 (a int, b int, c bigint) with (fillfactor=10);
insert into p1 select i, i % 1000, i::bigint * 100000 from generate_series(1, 30000) s(i);
create table p1_small (a int, b int, c bigint) with (fillfactor=10);
insert into p1_small select i, i % 1000, i::bigint * 100000 from generate_series(1, 17000) s(i);
analyze p1;
analyze p1_small;
