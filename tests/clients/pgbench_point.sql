-- pgbench_test.py: a point lookup by primary key (pgbench -M simple sends the
-- statement with :id replaced).
\set id random(1, 20000)
SELECT a, b FROM t WHERE a = :id;
