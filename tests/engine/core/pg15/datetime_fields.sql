-- extract, date_part and date_trunc of date and timestamp values as PostgreSQL
-- 15.18 computes them, for datetime_test.cc: every field name on every value, and field
-- names PostgreSQL refuses on a few values. Each line: op|field|value|result, the result
-- as text (\N for NULL; date_trunc's as text|raw as in datetime_io.sql), or
-- op|field|value|ERROR|sqlstate|message|detail. Captured with
--   psql -X -q -A -t -f datetime_fields.sql > datetime_fields.out
set timezone = 'UTC';
set datestyle = 'ISO, MDY';
set intervalstyle = 'postgres';
create function pg_temp.raw_ts(t timestamp) returns text language sql as $$
  select t::text || '|' || case when isfinite(t) then
    (extract(epoch from t - timestamp '2000-01-01') * 1000000)::bigint::text else '' end $$;
create function pg_temp.try_field(op text, f text, v text) returns text language plpgsql as $$
declare st text; msg text; det text;
begin
  return coalesce(case op
    when 'extract_date' then pg_catalog.extract(f, v::date)::text
    when 'extract_timestamp' then pg_catalog.extract(f, v::timestamp)::text
    when 'date_part_date' then date_part(f, v::date)::text
    when 'date_part_timestamp' then date_part(f, v::timestamp)::text
    when 'date_trunc_timestamp' then pg_temp.raw_ts(date_trunc(f, v::timestamp))
  end, '\N');
exception when others then
  get stacked diagnostics st = returned_sqlstate, msg = message_text, det = pg_exception_detail;
  return 'ERROR|' || st || '|' || msg || '|' || det;
end $$;
with fields(n, v) as (values
  (0, 'microsecond'),
  (1, 'microseconds'),
  (2, 'us'),
  (3, 'millisecond'),
  (4, 'milliseconds'),
  (5, 'ms'),
  (6, 'second'),
  (7, 'seconds'),
  (8, 'minute'),
  (9, 'hour'),
  (10, 'day'),
  (11, 'month'),
  (12, 'quarter'),
  (13, 'year'),
  (14, 'decade'),
  (15, 'century'),
  (16, 'millennium'),
  (17, 'week'),
  (18, 'dow'),
  (19, 'isodow'),
  (20, 'doy'),
  (21, 'isoyear'),
  (22, 'epoch'),
  (23, 'julian'),
  (24, 'j'),
  (25, 'DAY'),
  (26, 'Year')),
bad_fields(n, v) as (values
  (0, 'timezone'),
  (1, 'timezone_hour'),
  (2, 'foo'),
  (3, 'now'),
  (4, 'jan')),
dates(n, v) as (values
  (0, '2020-01-05'),
  (1, '2020-12-31'),
  (2, '2021-01-01'),
  (3, '2021-01-03'),
  (4, '2019-12-30'),
  (5, '2008-12-29'),
  (6, '2010-01-03'),
  (7, '2000-01-01'),
  (8, '2001-01-01'),
  (9, '1999-12-31'),
  (10, '1970-01-01'),
  (11, '1960-06-15'),
  (12, '0001-01-01'),
  (13, '0001-12-31 BC'),
  (14, '0002-01-01 BC'),
  (15, '0010-06-01 BC'),
  (16, '0011-06-01 BC'),
  (17, '0100-01-01 BC'),
  (18, '0101-01-01 BC'),
  (19, '1000-01-01 BC'),
  (20, '1001-01-01 BC'),
  (21, '4714-11-24 BC'),
  (22, '2100-03-01'),
  (23, '1900-12-31'),
  (24, '5874897-12-31'),
  (25, 'infinity'),
  (26, '-infinity'),
  (27, '0975-10-18'),
  (28, '1516-10-16 BC'),
  (29, '2380-02-20'),
  (30, '1922-05-18'),
  (31, '0786-12-16 BC'),
  (32, '2252-08-13 BC'),
  (33, '0617-04-21'),
  (34, '2143-07-24'),
  (35, '2751-02-06 BC'),
  (36, '0176-05-25'),
  (37, '1104-08-20 BC'),
  (38, '1588-12-26'),
  (39, '1618-12-26 BC'),
  (40, '1822-03-12'),
  (41, '0147-03-16')),
timestamps(n, v) as (values
  (0, '2020-01-05 00:00:00'),
  (1, '2020-12-31 00:00:00'),
  (2, '2021-01-01 00:00:00'),
  (3, '2021-01-03 00:00:00'),
  (4, '2019-12-30 00:00:00'),
  (5, '2008-12-29 00:00:00'),
  (6, '2010-01-03 00:00:00'),
  (7, '2000-01-01 00:00:00'),
  (8, '2001-01-01 00:00:00'),
  (9, '1999-12-31 00:00:00'),
  (10, '1970-01-01 00:00:00'),
  (11, '1960-06-15 00:00:00'),
  (12, '0001-01-01 00:00:00'),
  (13, '0001-12-31 BC'),
  (14, '0002-01-01 BC'),
  (15, '0010-06-01 BC'),
  (16, '0011-06-01 BC'),
  (17, '0100-01-01 BC'),
  (18, '0101-01-01 BC'),
  (19, '1000-01-01 BC'),
  (20, '1001-01-01 BC'),
  (21, '4714-11-24 BC'),
  (22, '2100-03-01 00:00:00'),
  (23, '1900-12-31 00:00:00'),
  (24, 'infinity'),
  (25, '-infinity'),
  (26, '1057-11-14 20:54:19.441606 BC'),
  (27, '1581-10-12 17:37:26.612632'),
  (28, '1380-11-01 08:38:42.729353'),
  (29, '2862-06-18 18:36:06.748491 BC'),
  (30, '0865-11-27 18:17:18.130479'),
  (31, '1975-11-16 02:22:51.069847'),
  (32, '0618-01-10 13:49:26.915162'),
  (33, '0182-10-20 01:24:45.614858'),
  (34, '2257-05-17 07:02:19.007584'),
  (35, '0443-10-18 01:12:26.305777 BC'),
  (36, '1079-03-23 01:55:21.329075'),
  (37, '0567-07-13 14:55:33.404952 BC'),
  (38, '2440-11-18 03:39:51.531656'),
  (39, '1767-11-24 22:15:59.315712'),
  (40, '1058-09-10 17:21:00.826693'),
  (41, '2376-06-01 12:39:37.662889'),
  (42, '0247-11-21 10:29:22.712278'),
  (43, '2494-12-09 23:31:01.618006'),
  (44, '2769-01-12 08:40:29.313142 BC'),
  (45, '2464-06-06 11:11:20.794932'),
  (46, '2440-05-10 12:06:49.852551'),
  (47, '2332-11-24 04:19:32.233347 BC'),
  (48, '1104-04-11 05:43:27.681090 BC'),
  (49, '0398-02-20 10:21:43.874028'),
  (50, '1796-03-03 10:47:41.228610 BC'),
  (51, '2020-01-05 04:05:06.5'),
  (52, '2020-01-05 12:00:00'),
  (53, '2020-01-05 23:59:59.999999'),
  (54, '1969-12-31 23:59:59.5'),
  (55, '294276-12-31 23:59:59.999999'),
  (56, '2020-01-05 00:00:00.000001'),
  (57, '2020-01-05 06:00:00'),
  (58, '2020-01-05 18:00:00')),
ops(n, op, kind) as (values (0, 'extract_date', 'd'), (1, 'date_part_date', 'd'),
  (2, 'extract_timestamp', 't'), (3, 'date_part_timestamp', 't'), (4, 'date_trunc_timestamp', 't')),
vals(kind, n, v) as (select 'd', n, v from dates union all select 't', n, v from timestamps),
cases(o, fn, vn, op, f, v) as (
  select ops.n, fields.n, vals.n, op, fields.v, vals.v from ops join vals using (kind) cross join fields
  union all select ops.n, 100 + b.n, vals.n, op, b.v, vals.v from ops join vals using (kind)
    cross join bad_fields b where vals.n < 3)
select op || '|' || f || '|' || v || '|' || pg_temp.try_field(op, f, v) from cases order by o, fn, vn;
