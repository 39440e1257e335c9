-- b1: B-tree deduplication. 30,000 rows (sampled whole by ANALYZE); b has 20 values,
-- c = i / 1000 runs of 1,000, a is distinct. b1's indexes deduplicate (the default),
-- b2 holds the same rows with deduplicate_items = off, so its indexes are the size of
-- distinct-key ones and the same plans cost more.
drop table if exists b1;
create table b1 (a int, b int, c int);
insert into b1 select i, i % 20, i / 1000 from generate_series(1, 30000) s(i);
create index b1_b on b1 (b);
create index b1_c on b1 (c);
create index b1_bc on b1 (b, c);
create index b1_a on b1 (a);
analyze b1;
drop table if exists b2;
create table b2 (a int, b int, c int);
insert into b2 select i, i % 20, i / 1000 from generate_series(1, 30000) s(i);
create index b2_b on b2 (b) with (deduplicate_items = off);
create index b2_c on b2 (c) with (deduplicate_items = off);
analyze b2;
