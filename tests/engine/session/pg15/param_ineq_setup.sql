-- Inner tables whose index keys a join clause bounds (`key <= outer.col`): the
-- parameterized scans take the outer value as a runtime inequality key.
create table ji (id int, a int, b bigint, n numeric, c int);
insert into ji select i, (i * 7919) % 5000, i % 3000, (i % 800) * 1.25, i % 10 from generate_series(1, 20000) i;
create index ji_a on ji (a);
create index ji_b on ji (b);
create index ji_n on ji (n);
create index ji_c_a on ji (c, a);
create table jo (k int, lo int, hi int, s smallint, big bigint);
insert into jo select i, i * 10, i * 10 + 25, i % 40, i * 3 from generate_series(1, 400) i;
analyze ji;
analyze jo;
-- A date and a timestamp outer value against timestamp and timestamptz keys.
create table tzt (id int, tz timestamptz, ts timestamp);
insert into tzt select i, timestamptz '2020-01-01 00:00+00' + (i % 400) * interval '1 day', timestamp '2020-01-01' + (i % 500) * interval '1 day' + (i % 5) * interval '1 hour' from generate_series(1, 20000) i;
create index tzt_tz on tzt (tz);
create index tzt_ts on tzt (ts);
create table dd (k int, d date, ts timestamp);
insert into dd select i, date '2020-01-01' + i, timestamp '2020-01-01 06:00' + i * interval '1 day' from generate_series(1, 300) i;
analyze tzt;
analyze dd;
-- varchar keys bounded by text and varchar values: compared as text.
create table vi (id int, v varchar(12));
insert into vi select i, 'v' || (i % 3000) from generate_series(1, 20000) i;
create index vi_v on vi (v);
create table vo (k int, t text, w varchar(12));
insert into vo select i, 'v' || (i * 7), 'v' || (i * 11) from generate_series(1, 300) i;
analyze vi;
analyze vo;
