-- After VACUUM ANALYZE: every page all-visible (allvisfrac 1), index-only scans fetch
-- no heap page.
select relpages, reltuples, relallvisible from pg_class where relname = 'v1';
explain select a from v1 where a < 1000;
explain select a from v1 where a between 100 and 5000;
explain select b, c from v1 where b = 5;
explain select count(*) from v1 where b = 5 and c < 10000;
explain select c from v1 where b < 50 and c < 100;
explain select a from v1 order by a limit 10;
explain select max(a) from v1;
explain select count(*) from v1;
-- A Bitmap Heap Scan for count(*): PostgreSQL 15 reads every heap page all the same
-- (the scan returns a physical target list, so can_skip_fetch is false).
explain select count(*) from v1 where b = 5 or b = 7;
-- The effective_io_concurrency article's query after its VACUUM ANALYZE: a Seq Scan by
-- default, a Bitmap Heap Scan with enable_seqscan off (the BitmapOr reads minor_idx
-- whole), an Index Only Scan of minor_idx only with bitmap scans off as well.
explain select * from v1e where major between 10 and 100 or minor between 800 and 900;
explain select * from v1e where major between 10 and 100 or minor between 800 and 802;
set enable_seqscan = off;
explain select * from v1e where major between 10 and 100 or minor between 800 and 900;
set enable_bitmapscan = off;
explain select * from v1e where major between 10 and 100 or minor between 800 and 900;
explain select * from v1e where major between 10 and 100 or minor between 800 and 802;
reset enable_seqscan;
reset enable_bitmapscan;
-- Heap Fetches: none on an all-visible table.
explain (analyze, costs off, timing off) select b, c from v1 where b = 5;
explain (analyze, costs off, timing off) select a from v1 where a between 100 and 5000;
-- 3,000 more rows: the last page and the new ones are not all-visible; relallvisible
-- and relpages stay as VACUUM left them until the next VACUUM or ANALYZE.
insert into v1 select i, i % 100, (i * 7919) % 27000 from generate_series(27001, 30000) s(i);
select relpages, reltuples, relallvisible from pg_class where relname = 'v1';
explain select a from v1 where a < 1000;
explain select a from v1 where a between 100 and 5000;
explain select b, c from v1 where b = 5;
explain select count(*) from v1 where b = 5 and c < 10000;
-- Heap Fetches: the entries on the old last page and on the new pages.
explain (analyze, costs off, timing off) select b, c from v1 where b = 5;
explain (analyze, costs off, timing off) select a from v1 where a between 26000 and 28000;
-- ANALYZE counts the map: relallvisible = the pages still all-visible.
analyze v1;
select relpages, reltuples, relallvisible from pg_class where relname = 'v1';
explain select a from v1 where a < 1000;
explain select a from v1 where a between 100 and 5000;
explain select b, c from v1 where b = 5;
-- VACUUM alone marks every page again.
vacuum v1;
select relpages, reltuples, relallvisible from pg_class where relname = 'v1';
explain select a from v1 where a between 100 and 5000;
explain select b, c from v1 where b = 5;
explain (analyze, costs off, timing off) select a from v1 where a between 26000 and 28000;
