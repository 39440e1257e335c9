-- The random_page_cost article's statements, as tools/experiments/rpc.cc runs
-- them, at 20,000 rows instead of 1,000,000: psql sends them unchanged.
\timing on
CREATE TABLE t (a int, b int) WITH (fillfactor = 10);
INSERT INTO t SELECT i, i FROM generate_series(1, 20000) s(i) ORDER BY random();
CREATE INDEX t_a_idx ON t (a);
VACUUM ANALYZE t;
SELECT count(*) FROM t;
SELECT pg_relation_size('t');
SET effective_io_concurrency = 16;
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t;
SET enable_seqscan = off;
EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t ORDER BY a;
RESET enable_seqscan;
SET random_page_cost = 1.1;
EXPLAIN SELECT * FROM t WHERE a BETWEEN 1 AND 2000;
SELECT min(a), max(a), sum(b) FROM t WHERE a BETWEEN 1 AND 2000;
