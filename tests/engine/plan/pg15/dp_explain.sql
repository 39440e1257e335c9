-- The parallel SELECT DISTINCT plans (PostgreSQL 15's partial distinct relation, and the
-- Gather and Gather Merge under a final distinct) whose output pg15_distinct_test.cc
-- compares with tidepool's (run after p1_setup.sql). SET, RESET and ALTER TABLE lines
-- print nothing.
explain select distinct b from p1;
explain select distinct b from p1 order by b limit 5;
explain select distinct b from p1 where b = 1 and b = 2;
set parallel_setup_cost = 10;
explain select distinct b from p1;
explain select distinct a from p1 where b < 10;
explain select distinct b, a from p1;
explain select distinct b from p1 order by b;
explain select distinct b from p1 order by b desc limit 5;
explain select distinct b, a from p1 where a < 20000;
explain select distinct b from p1 where a > 100 limit 3;
set enable_hashagg = off;
explain select distinct b from p1;
explain select distinct b from p1 order by b limit 10;
reset enable_hashagg;
set parallel_tuple_cost = 0.001;
explain select distinct a from p1;
explain select distinct a, b from p1 order by a;
explain select distinct b from p1 where b = 7;
set parallel_leader_participation = off;
explain select distinct b from p1;
reset parallel_leader_participation;
set max_parallel_workers_per_gather = 0;
explain select distinct b from p1;
reset max_parallel_workers_per_gather;
reset parallel_tuple_cost;
alter table p1 set (parallel_workers = 3);
explain select distinct b from p1;
explain select distinct c from p1 where b < 100 order by c desc;
alter table p1 reset (parallel_workers);
reset parallel_setup_cost;
