create table la (id int, x int, v int);
create table lb (id int, y int, w text);
insert into la select i, i % 100 + 1, i % 7 from generate_series(1, 10000) i;
insert into lb select i, (i * 37) % 1000, 'w' || i from generate_series(1, 2000) i;
create index lb_id on lb (id);
analyze la;
analyze lb;
