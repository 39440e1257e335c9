-- Equalities come after the other restrictions, one per column; two constants for
-- one column make the restriction false (a gating Result, one row estimated).
explain select * from e1 where d = 5 and c < 300;
explain select * from e1 where c < 3 and d = 5 and a < 300 and b = 7;
explain select * from e1 where d = 7 and d = 7;
explain select * from e1 where d = 7 and d in (7);
explain select * from e1 where a = 1 and a = 2;
explain select * from e1 where a = 1 and a = 2 and d = 3;
explain select a from e1 where b = 1 and c < 5000 and b = 2 and d = 4 and c = 7 order by a limit 3;
explain select count(*) from e1 where a = 1 and a = 2;
explain select max(a) from e1 where b = 1 and b = 2;
explain select min(c) from e1 where d = 10 and d = 11;
explain select * from e1 where d = 3 and not (d <> 4);
explain select * from e1 where b = 5 and b = 5 and c > 100;
explain select * from e1 where (a = 1 or a = 2) and b = 3;
explain select * from e1 where b = 3 and c between 10 and 5000 order by c;
-- A BitmapOr whose arms take a restriction another bitmap scan applies is not ANDed
-- with that scan (choose_bitmap_and's clause usage counts every arm's conditions).
explain select count(*) from e1 where (c < 100 or c > 19900) and b = 2;
explain select count(*) from e1 where (c < 100 or c > 19900) and b = 2 and c < 19950;
-- A key with NULLS LAST descending ends what an index can give: Incremental Sort.
explain select * from e1 where b < 3 order by b, c desc nulls last limit 5;
explain select * from e1 order by a, d desc nulls last limit 3;
-- min/max of a column WHERE fixes: any path is presorted.
explain select max(a) from e1 where a = 77;
explain select min(b), max(b) from e1 where b = 4;
-- Each OR arm takes the index whose bitmap makes the cheapest heap scan
-- (choose_bitmap_and), not the cheapest index scan: here (z, x) with z's IN list.
explain select * from e2 where (x < 29 or x <= 712) and z in (0, 1, 5) and x > 811 order by z;
explain select count(*) from e2 where (x < 5 or x > 990) and z = 3;
-- Numeric constants against an integer column form their own class.
explain select * from e1 where d in (6.5) and c < 100 and d = 2.5;
explain select * from e1 where d = 3.0 and d = 3.00;
explain select * from e2 where y in (30292, 80542) and x < 5;
-- A constant shared by two columns' restrictions merges their classes (process_equivalence).
explain select * from e1 where d = 5 and a < 300 and c = 6 and b = 5;
explain select * from e1 where b = 5 and d = 6 and c = 5 and a = 6;
