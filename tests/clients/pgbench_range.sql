-- pgbench_test.py: a range scan of 200 rows over a table four times the pool.
\set lo random(1, 19800)
\set hi :lo + 199
SELECT count(*), sum(b) FROM big WHERE a BETWEEN :lo AND :hi;
