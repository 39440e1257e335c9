-- pi: parallel index and bitmap heap scans. 30,000 rows at fillfactor 10 (1,667
-- pages), sampled whole by ANALYZE; a shuffled, b = i % 1000, c ordered. Indexes on
-- (a), (b), (b, a) and (c). piv: the same rows, VACUUM'd (every page all-visible).
drop table if exists pi;
drop table if exists piv;
create table pi (a int, b int, c bigint) with (fillfactor=10);
insert into pi select (i * 7919) % 30000, i % 1000, i from generate_series(1, 30000) s(i);
create index pi_a on pi (a);
create index pi_b on pi (b);
create index pi_ba on pi (b, a);
create index pi_c on pi (c);
analyze pi;
create table piv (a int, b int, c bigint);
insert into piv select (i * 7919) % 30000, i % 1000, i from generate_series(1, 30000) s(i);
create index piv_a on piv (a);
create index piv_b on piv (b);
vacuum analyze piv;
