-- v2: VACUUM alone on a table never analyzed: relpages, reltuples and relallvisible after
-- each VACUUM (every page read; then the new pages and the old last one; then only the
-- last page, which keeps the old count; then vac_estimate_reltuples over the skipped run).
drop table if exists w;
create table w (a int, b int);
insert into w select i, i from generate_series(1, 30000) s(i);
vacuum w;
select relpages, reltuples, relallvisible from pg_class where relname = 'w';
insert into w select i, i from generate_series(1, 100) s(i);
vacuum w;
select relpages, reltuples, relallvisible from pg_class where relname = 'w';
vacuum w;
select relpages, reltuples, relallvisible from pg_class where relname = 'w';
insert into w select i, i from generate_series(1, 5000) s(i);
vacuum w;
select relpages, reltuples, relallvisible from pg_class where relname = 'w';
