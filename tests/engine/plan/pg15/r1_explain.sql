-- 1. arrays of one and zero elements stay array operators
explain select * from r1 where a = any ('{5}');
explain select * from r1 where a = any (array[5]);
explain select * from r1 where d <> all (array[7]);
explain select * from r1 where d <> all ('{7}');
explain select * from r1 where a in (5);
explain select * from r1 where a = any ('{}');
explain select * from r1 where d = any ('{}');
explain select * from r1 where d <> all ('{}');
explain select count(*) from r1 where a = any ('{}');
explain select * from r1 where b = any ('{3}') and c < 500;
explain select * from r1 where c = any ('{17}') order by c, d;
-- 2. an AND inside an OR arm: a BitmapAnd inside the BitmapOr
explain select * from r1 where (b = 3 and c < 2000) or a < 10;
explain select * from r1 where (b = 3 and d = 7) or (a < 10 and c < 100);
explain select * from r1 where (b < 2 and a < 5000) or (c < 20 and d > 300);
explain select * from r1 where ((b = 3 or b = 4) and c < 1000) or a < 20;
explain select * from r1 where (b = 5 or (a < 50 and c < 10000)) and d < 300;
-- 3. enable_sort = off
set enable_sort = off;
explain select * from r1 where d < 100 order by a;
explain select * from r1 where d < 100 order by c;
explain select * from r1 where b = 3 order by c, a;
explain select * from r1 where b < 50 order by b, a limit 10;
explain select a, d from r1 order by d;
explain select * from r1 order by b, c, a limit 100;
reset enable_sort;
-- 4. a bitmap heap scan over a whole index
set enable_seqscan = off;
set enable_indexscan = off;
explain select * from r1;
explain select d from r1;
explain select count(*) from r1;
reset enable_seqscan;
reset enable_indexscan;
-- 5. serial Incremental Sort against Gather Merge under a LIMIT, parallel lowered
set parallel_setup_cost = 0;
set parallel_tuple_cost = 0;
set min_parallel_table_scan_size = 0;
set min_parallel_index_scan_size = 0;
explain select * from r1 order by b, a limit 10;
explain select * from r1 where d < 300 order by b, d limit 5;
explain select * from r1 order by c, a limit 20;
reset all;
-- 6. filters the index conditions imply
explain select * from r1 where a = 7 and a <> 3;
explain select * from r1 where a = 7 and a > 3;
explain select * from r1 where a < 7 and a < 10;
explain select * from r1 where b = any ('{3,4}') and b <> 5;
explain select * from r1 where a between 5 and 10 and a <> 20;
explain select * from r1 where c = 5 and c <> 6 and d = 1;
-- 7. the constant on the left
explain select * from r1 where 5 < a and a < 9;
explain select * from r1 where 7 = a;
explain select * from r1 where 5 between c and d;
explain select * from r1 where 100 >= d;
-- 8. min / max with IS NULL
explain select min(a) from r1 where a is null;
explain select max(c) from r1 where c is null;
explain select min(a) from r1 where b is null;
-- 9. aliases
explain select * from r1 x where x.a < 5;
explain select x.a from r1 as x where a < 5 order by x.a;
explain select count(*) from r1 x where b = 3;
explain select * from r1 x where (b = 3 and c < 2000) or a < 10;
explain select min(a), max(a) from r1 x where b < 5;
explain select min(a), max(c) from r1;
