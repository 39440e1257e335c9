create table z (k int, tz timestamptz, ts timestamp, d date, zone text);
insert into z select g, timestamptz '2020-01-01 00:00+00' + g * interval '37 minutes', timestamp '2020-01-01' + g * interval '1 hour', date '2020-01-01' + g / 24, case g % 3 when 0 then 'UTC' when 1 then 'EST' else 'cet' end from generate_series(1, 5000) g;
insert into z values (5001, 'infinity', '-infinity', 'infinity', 'UTC'), (5002, NULL, NULL, NULL, NULL), (5003, '1999-12-31 23:59:59.999999-05', '1999-12-31 23:59:59', '1999-12-31', 'PDT');
create index z_tz on z (tz);
create index z_ts_tz on z (ts, tz);
analyze z;
