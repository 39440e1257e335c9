-- The EXPLAIN statements whose output pg15_sql_test.cc compares with tidepool's
-- (run after q1_setup.sql).
explain select * from q1 where a is null;
explain select * from q1 where a is not null;
explain select * from q1 where d is null and c < 100;
explain select * from q1 where a isnull or c = 3;
explain select * from q1 where a between symmetric 10 and 5;
explain select * from q1 where b not between symmetric 10 and 5;
explain select * from public.q1 where a = 5;
explain select * from q1 offset 5;
explain select * from q1 order by a limit 5 offset 10;
explain select * from q1 limit all offset 0;
explain select * from q1 order by a offset 100;
explain select * from q1 order by a nulls first limit 3;
explain select * from q1 order by a desc nulls last limit 3;
explain select * from q1 order by a desc nulls first limit 3;
explain select * from q1 order by a fetch first 3 rows only;
explain select * from q1 order by a offset 2 rows fetch next row only;
explain select count(1) from q1;
explain select count(distinct b) from q1;
explain select count(distinct b), count(b) from q1 where a < 1000;
