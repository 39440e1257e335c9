-- d1: SELECT DISTINCT as PostgreSQL 15 plans it (Unique over a Sort or an index scan,
-- HashAggregate, then ORDER BY and LIMIT). 20,000 rows, sampled whole by ANALYZE; the
-- data is a function of the row number, so tidepool builds the same table and
-- statistics itself. The indexes hold no duplicate keys (PostgreSQL's B-tree
-- deduplication would make an index on a duplicate-heavy column smaller than tidepool's).
drop table if exists d1;
create table d1 (a int, b int, c int, d int);
insert into d1 select i, i % 100, i % 7, i / 50 from generate_series(1, 20000) s(i);
create index d1_a on d1 (a);
create index d1_ba on d1 (b, a);
analyze d1;
