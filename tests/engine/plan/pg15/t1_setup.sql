select setseed(0.42);
create table t1 (a int, b int, c int, d int);
insert into t1 select p.a, i, i % 100, i + (random()*300000)::int
  from generate_series(1,1000000) i
  join (select row_number() over () as rn, a from (select g as a from generate_series(1,1000000) g order by random()) s) p on p.rn = i;
create index t1_a on t1(a);
create index t1_b on t1(b);
create index t1_c on t1(c);
create index t1_d on t1(d);
vacuum analyze t1;
