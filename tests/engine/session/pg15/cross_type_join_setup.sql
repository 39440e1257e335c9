-- Tables joined on a date against timestamp keys (PostgreSQL's cross-type index operators).
create table tzt (id int, tz timestamptz, ts timestamp);
insert into tzt select i, timestamptz '2020-01-01 00:00+00' + (i % 400) * interval '1 day' + (i % 3) * interval '0 hours', timestamp '2020-01-01' + (i % 500) * interval '1 day' from generate_series(1, 20000) i;
create index tzt_tz on tzt (tz);
create index tzt_ts on tzt (ts);
create table dd (k int, d date);
insert into dd select i, date '2020-01-01' + i from generate_series(1, 300) i;
analyze tzt;
analyze dd;
