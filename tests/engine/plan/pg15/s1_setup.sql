create table s1 (x int, y int, z int, w int);
insert into s1 select i % 250, (i::bigint * 7919) % 20011,
  case when i % 10 = 0 then null else i / 3 end, floor(sqrt(i))::int
  from generate_series(1, 20000) i;
analyze s1;
