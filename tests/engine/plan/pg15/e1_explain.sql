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
