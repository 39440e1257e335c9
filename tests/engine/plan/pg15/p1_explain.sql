-- The EXPLAIN statements whose output pg15_parallel_test.cc compares with
-- tidepool's, each after `reset all` and the settings it names (run after
-- p1_setup.sql; the statements that change p1's parallel_workers put it back).
-- 1. defaults: a 30,000-row table saves less CPU than parallel_setup_cost
reset all;
explain select sum(a), count(*), avg(b) from p1;
explain select a from p1 where b < 10;
-- 2. cheaper parallel start-up: Finalize / Partial Aggregate, Gather
reset all; set parallel_setup_cost = 0;
explain select sum(a), count(*), avg(b) from p1;
reset all; set parallel_setup_cost = 10;
explain select count(*) from p1 where b < 500;
explain select min(a), max(c), count(b) from p1;
explain select sum(c), avg(c) from p1;
explain select a from p1 where b < 10;
explain select a from p1 where b < 10 limit 5;
explain select * from p1 where b < 10 limit 200;
-- ORDER BY: Gather Merge; with enable_gathermerge off, Sort over Gather
explain select a from p1 where b < 10 order by a;
set enable_gathermerge = off;
explain select a from p1 where b < 10 order by a;
-- 3. max_parallel_workers_per_gather 0 / 1 / 4, with the reloption asking for 4
reset all; set parallel_setup_cost = 10; set max_parallel_workers_per_gather = 0;
explain select sum(a), count(*), avg(b) from p1;
reset all; set parallel_setup_cost = 10; set max_parallel_workers_per_gather = 1;
alter table p1 set (parallel_workers = 4);
explain select sum(a), count(*), avg(b) from p1;
reset all; set parallel_setup_cost = 10; set max_parallel_workers_per_gather = 4;
explain select sum(a), count(*), avg(b) from p1;
explain select a from p1 where b < 10;
-- 4. parallel_workers = 1 / 8 (capped by max_parallel_workers_per_gather 2, then 8)
alter table p1 set (parallel_workers = 1);
reset all;
explain select sum(a), count(*), avg(b) from p1;
alter table p1 set (parallel_workers = 8);
reset all; set parallel_setup_cost = 10;
explain select sum(a), count(*), avg(b) from p1;
reset all; set max_parallel_workers_per_gather = 8;
explain select sum(a), count(*), avg(b) from p1;
explain select count(*) from p1 where b < 500;
reset all; set max_parallel_workers_per_gather = 8; set parallel_leader_participation = off;
explain select sum(a), count(*), avg(b) from p1;
alter table p1 reset (parallel_workers);
-- 5. parallel_leader_participation off: 1 worker does all the work
reset all; set parallel_setup_cost = 10; set parallel_leader_participation = off;
explain select sum(a), count(*), avg(b) from p1;
explain select a from p1 where b < 10;
-- 6. min_parallel_table_scan_size: p1 has 1,667 pages (13,336 kB)
reset all; set parallel_setup_cost = 0; set min_parallel_table_scan_size = '13336kB';
explain select count(*) from p1;
reset all; set parallel_setup_cost = 0; set min_parallel_table_scan_size = '13344kB';
explain select count(*) from p1;
reset all; set parallel_setup_cost = 0; set min_parallel_table_scan_size = '4440kB';
set max_parallel_workers_per_gather = 4;
explain select count(*) from p1;
-- 7. p1_small (945 pages) is under 8MB: serial, unless its reloption asks
reset all; set parallel_setup_cost = 0;
explain select count(*) from p1_small;
alter table p1_small set (parallel_workers = 2);
explain select count(*) from p1_small;
alter table p1_small reset (parallel_workers);
-- 8. max_parallel_workers = 0: planned as before, no worker launched
reset all; set parallel_setup_cost = 10; set max_parallel_workers = 0;
alter table p1 set (parallel_workers = 2);
explain select sum(a), count(*), avg(b) from p1;
explain (analyze, costs off, timing off, summary off) select sum(a), count(*), avg(b) from p1;
alter table p1 reset (parallel_workers);
-- 9. parallel_tuple_cost: rows through the Gather; with few rows a plain Aggregate
-- over the Gather can be the cheaper (both parallel-unsafe: the cheaper wins)
reset all; set parallel_setup_cost = 0; set parallel_tuple_cost = 0;
explain select sum(a), count(*), avg(b), min(c), max(c), sum(c), avg(c), count(b), min(b), max(a), sum(b) from p1 where a > 29990;
explain select count(*) from p1 where a > 29990;
reset all; set parallel_setup_cost = 0; set parallel_tuple_cost = 0.001;
explain select * from p1;
reset all; set parallel_setup_cost = 0;
explain select * from p1;
-- 10. Gather Merge: each participant sorts its share, the leader merges them
reset all; set parallel_setup_cost = 10;
explain select a from p1 where b < 10 order by a desc;
explain select a, b from p1 where b < 10 order by b, a desc;
explain select a from p1 where b < 10 order by a limit 10;
explain select a from p1 where b < 10 order by a limit 100;
explain select a from p1 where b < 10 order by a limit 1000;
explain select * from p1 where b < 100 order by c desc limit 50;
explain select * from p1 where b < 100 order by c desc;
explain select a from p1 order by a;
explain select a from p1 order by a limit 10;
reset all; set parallel_setup_cost = 0; set parallel_tuple_cost = 0.01;
explain select a from p1 order by a;
explain select a, c from p1 order by c limit 20;
-- the serial plan still wins at the default parallel_setup_cost
reset all;
explain select a from p1 where b < 10 order by a;
explain select a from p1 where b < 10 order by a limit 10;
-- 2 and 4 workers (parallel_workers), leader participation off
alter table p1 set (parallel_workers = 2);
reset all; set parallel_setup_cost = 10;
explain select a from p1 where b < 10 order by a;
explain select a from p1 where b < 10 order by a limit 50;
alter table p1 set (parallel_workers = 4);
reset all; set parallel_setup_cost = 10; set max_parallel_workers_per_gather = 4;
explain select a from p1 where b < 10 order by a;
explain select a, b from p1 where b < 50 order by b desc, a limit 100;
reset all; set parallel_setup_cost = 10; set max_parallel_workers_per_gather = 4; set parallel_leader_participation = off;
explain select a from p1 where b < 10 order by a;
explain select a from p1 where b < 10 order by a limit 20;
alter table p1 reset (parallel_workers);
reset all; set parallel_setup_cost = 10; set parallel_leader_participation = off;
explain select a from p1 where b < 10 order by a;
-- 11. an index on a gives the order: the serial Index Scan competes with Gather Merge
-- (no Index Only Scan here: its cost depends on the visibility map, which autovacuum sets)
create index p1_a on p1 (a);
reset all; set parallel_setup_cost = 10;
explain select a from p1 where b < 10 order by a;
explain select a from p1 where b < 10 order by a limit 10;
explain select a, b from p1 where a < 20000 order by a;
reset all; set parallel_setup_cost = 0; set parallel_tuple_cost = 0.01;
explain select a from p1 where b < 10 order by a;
explain select a, b from p1 order by a;
drop index p1_a;
