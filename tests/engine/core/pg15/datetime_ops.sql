-- Arithmetic and comparison of date, timestamp and interval values as PostgreSQL 15.18
-- computes them, for datetime_test.cc: each operation over a grid of values (month
-- ends, leap days, BC dates, the ends of the ranges, infinities). Each line:
-- op|a|b|result (for date, timestamp and interval results: text|raw as in
-- datetime_io.sql), or op|a|b|ERROR|sqlstate|message. Captured with
--   psql -X -q -A -t -f datetime_ops.sql > datetime_ops.out
set timezone = 'UTC';
set datestyle = 'ISO, MDY';
set intervalstyle = 'postgres';
create function pg_temp.raw_iv(v interval) returns text language sql as $$
  select v::text || '|' || (extract(year from v) * 12 + extract(month from v))::text || ',' ||
         extract(day from v)::text || ',' ||
         (extract(hour from v) * 3600000000 + extract(minute from v) * 60000000 +
          extract(microseconds from v))::text $$;
create function pg_temp.raw_ts(t timestamp) returns text language sql as $$
  select t::text || '|' || case when isfinite(t) then
    (extract(epoch from t - timestamp '2000-01-01') * 1000000)::bigint::text else '' end $$;
create function pg_temp.raw_d(d date) returns text language sql as $$
  select d::text || '|' || case when isfinite(d) then (d - date '2000-01-01')::text else '' end $$;
create function pg_temp.try_op(op text, a text, b text) returns text language plpgsql as $$
declare st text; msg text;
begin
  return case op
    when 'date+int' then pg_temp.raw_d(a::date + b::int)
    when 'date-int' then pg_temp.raw_d(a::date - b::int)
    when 'date-date' then (a::date - b::date)::text
    when 'date+interval' then pg_temp.raw_ts(a::date + b::interval)
    when 'date-interval' then pg_temp.raw_ts(a::date - b::interval)
    when 'timestamp+interval' then pg_temp.raw_ts(a::timestamp + b::interval)
    when 'timestamp-interval' then pg_temp.raw_ts(a::timestamp - b::interval)
    when 'timestamp-timestamp' then pg_temp.raw_iv(a::timestamp - b::timestamp)
    when 'interval+interval' then pg_temp.raw_iv(a::interval + b::interval)
    when 'interval-interval' then pg_temp.raw_iv(a::interval - b::interval)
    when 'interval*float8' then pg_temp.raw_iv(a::interval * b::float8)
    when 'interval/float8' then pg_temp.raw_iv(a::interval / b::float8)
    when '-interval' then pg_temp.raw_iv(- a::interval)
    when 'justify_hours' then pg_temp.raw_iv(justify_hours(a::interval))
    when 'justify_days' then pg_temp.raw_iv(justify_days(a::interval))
    when 'justify_interval' then pg_temp.raw_iv(justify_interval(a::interval))
    when 'date_cmp' then (case when a::date < b::date then -1 when a::date > b::date then 1 else 0 end)::text
    when 'timestamp_cmp' then (case when a::timestamp < b::timestamp then -1 when a::timestamp > b::timestamp then 1 else 0 end)::text
    when 'interval_cmp' then (case when a::interval < b::interval then -1 when a::interval > b::interval then 1 else 0 end)::text
  end;
exception when others then
  get stacked diagnostics st = returned_sqlstate, msg = message_text;
  return 'ERROR|' || st || '|' || msg;
end $$;
with dates(n, v) as (values
  (0, '2020-01-31'),
  (1, '2020-02-29'),
  (2, '2021-02-28'),
  (3, '2019-12-31'),
  (4, '2000-01-01'),
  (5, '1999-03-31'),
  (6, '2024-08-31'),
  (7, '1900-02-28'),
  (8, '2100-12-31'),
  (9, '0001-01-01'),
  (10, '0044-03-15 BC'),
  (11, '0001-12-31 BC'),
  (12, '4714-11-24 BC'),
  (13, '4714-11-30 BC'),
  (14, '294276-12-31'),
  (15, '5874897-12-31'),
  (16, 'infinity'),
  (17, '-infinity'),
  (18, '1970-01-01'),
  (19, '2020-03-31'),
  (20, '2020-05-31'),
  (21, '2023-01-29'),
  (22, '1600-02-29'),
  (23, '0005-02-29 BC')),
timestamps(n, v) as (values
  (0, '2020-01-31 10:00:00'),
  (1, '2020-02-29 23:59:59.999999'),
  (2, '2021-02-28 00:00:00'),
  (3, '2019-12-31 23:00:00'),
  (4, '2000-01-01 00:00:00'),
  (5, '1999-03-31 12:34:56.789'),
  (6, '2024-08-31 01:02:03'),
  (7, '0001-01-01 00:00:00'),
  (8, '0044-03-15 12:00:00 BC'),
  (9, '4714-11-24 00:00:00 BC'),
  (10, '294276-12-31 23:59:59.999999'),
  (11, 'infinity'),
  (12, '-infinity'),
  (13, '1970-01-01 00:00:00.5'),
  (14, '2020-03-31 18:00:00'),
  (15, '1900-02-28 06:00:00'),
  (16, '1600-02-29 00:00:00'),
  (17, '2023-01-29 13:14:15')),
intervals(n, v) as (values
  (0, '1 mon'),
  (1, '-1 mon'),
  (2, '1 year'),
  (3, '-1 year'),
  (4, '1 mon 1 day'),
  (5, '1 day'),
  (6, '-1 day'),
  (7, '24 hours'),
  (8, '-1 days +02:00'),
  (9, '1 year 2 mons 3 days 04:05:06.5'),
  (10, '13 mons'),
  (11, '-13 mons'),
  (12, '12 mons'),
  (13, '00:00:00'),
  (14, '1.5 days'),
  (15, '36:00:00'),
  (16, '-36:00:00'),
  (17, '30 days'),
  (18, '29 days 23:59:59'),
  (19, '1 mon -30 days'),
  (20, '-1 mon 30 days 00:00:01'),
  (21, '1000000 years'),
  (22, '-1000000 years'),
  (23, '106751991 days'),
  (24, '2147483647 days'),
  (25, '-2147483648 days'),
  (26, '2147483647 mons'),
  (27, '-2147483648 mons'),
  (28, '9223372036854775807 us'),
  (29, '-9223372036854775807 us'),
  (30, '3 days 1 us'),
  (31, '-7 days -1 us'),
  (32, '59 days 12:00:00'),
  (33, '1 mon 12:00:00'),
  (34, '-1 mon -12:00:00'),
  (35, '0.5 mons')),
ints(n, v) as (values
  (0, '0'),
  (1, '1'),
  (2, '-1'),
  (3, '30'),
  (4, '365'),
  (5, '-366'),
  (6, '2147483647'),
  (7, '-2147483648'),
  (8, '1000000'),
  (9, '-1000000')),
floats(n, v) as (values
  (0, '0'),
  (1, '1'),
  (2, '-1'),
  (3, '2'),
  (4, '0.5'),
  (5, '-0.5'),
  (6, '1.5'),
  (7, '3'),
  (8, '0.1'),
  (9, '1e-7'),
  (10, '1e10'),
  (11, '-1e10'),
  (12, '1e300'),
  (13, 'NaN'),
  (14, '1.0000001'),
  (15, '7'),
  (16, '0.333333333333'),
  (17, '-2.25'),
  (18, '100')),
mixed(n, v) as (values
  (0, '-9 mons -62 days 1:41:03.075954'),
  (1, '18 mons -76 days -7:37:03.953893'),
  (2, '14 mons -46 days -91:05:27.438485'),
  (3, '-42 mons -39 days -77:35:27.061981'),
  (4, '22 mons -69 days -43:40:40.611316'),
  (5, '-43 mons 47 days 49:25:03.231821'),
  (6, '-45 mons 42 days -66:18:26.151262'),
  (7, '19 mons -70 days 46:19:35.855770'),
  (8, '37 mons -54 days -74:37:36.669949'),
  (9, '-26 mons -5 days -76:35:45.065839'),
  (10, '22 mons -85 days 58:13:31.713451'),
  (11, '18 mons 9 days 98:20:29.614006'),
  (12, '8 mons -8 days -24:15:50.188499'),
  (13, '39 mons 99 days -38:05:36.314834'),
  (14, '17 mons 26 days -13:46:28.301924'),
  (15, '27 mons -82 days -70:32:26.172975'),
  (16, '46 mons -13 days -62:59:31.442182'),
  (17, '-45 mons 71 days -81:48:35.600861'),
  (18, '-10 mons -13 days 77:22:38.520801'),
  (19, '24 mons 16 days -83:53:05.990569'),
  (20, '-16 mons 21 days 78:42:04.063616'),
  (21, '43 mons 79 days -21:41:36.714328'),
  (22, '7 mons -28 days 83:24:56.701133'),
  (23, '-6 mons -95 days 18:22:10.640595'),
  (24, '-36 mons 26 days -85:13:49.301394'),
  (25, '-34 mons 89 days -37:25:25.961351'),
  (26, '13 mons -80 days -58:28:25.576129'),
  (27, '-15 mons -65 days 10:55:35.291945'),
  (28, '40 mons 6 days -9:43:56.398921'),
  (29, '-21 mons -62 days -79:11:09.243224'),
  (30, '34 mons -41 days -97:31:53.617740'),
  (31, '-27 mons -33 days -28:00:09.439297'),
  (32, '18 mons -6 days 56:36:20.999395'),
  (33, '-34 mons 76 days 31:39:41.709047'),
  (34, '44 mons -87 days 16:57:55.817857'),
  (35, '37 mons 43 days 0:25:25.413264'),
  (36, '-37 mons 23 days 62:25:03.199868'),
  (37, '-42 mons -47 days 12:10:07.356572'),
  (38, '26 mons -87 days -74:00:36.158612'),
  (39, '18 mons -75 days -7:39:01.073731'),
  (40, '-24 mons 57 days -4:09:40.264511'),
  (41, '-6 mons 54 days -7:30:07.120956'),
  (42, '12 mons 19 days 22:30:19.090056'),
  (43, '-32 mons -74 days 91:21:47.277617'),
  (44, '11 mons 77 days -59:33:01.215183'),
  (45, '17 mons -8 days -63:44:34.958551'),
  (46, '-47 mons 94 days 35:19:41.905261'),
  (47, '-39 mons 78 days -34:33:23.952378'),
  (48, '-29 mons -9 days 97:14:34.567874'),
  (49, '49 mons 28 days -16:40:14.643016'),
  (50, '50 mons 94 days -51:51:15.858084'),
  (51, '1 mons 89 days -42:12:33.516719'),
  (52, '-5 mons 87 days -93:01:50.292991'),
  (53, '10 mons -34 days -51:44:38.361004'),
  (54, '7 mons 85 days -11:23:05.231171'),
  (55, '-37 mons -42 days 20:12:21.214301'),
  (56, '11 mons 59 days 56:53:00.502764'),
  (57, '33 mons -12 days 64:05:53.692674'),
  (58, '-35 mons -1 days 100:45:48.209001'),
  (59, '11 mons -55 days 11:50:40.348669')),
cases(o, x, y, op, a, b) as (
  select 0, d.n, i.n, 'date+int', d.v, i.v from dates d, ints i
  union all select 1, d.n, i.n, 'date-int', d.v, i.v from dates d, ints i
  union all select 2, d.n, e.n, 'date-date', d.v, e.v from dates d, dates e where (d.n + 2 * e.n) % 3 = 0
  union all select 3, d.n, e.n, 'date_cmp', d.v, e.v from dates d, dates e where (d.n + 2 * e.n) % 3 = 0
  union all select 4, d.n, i.n, 'date+interval', d.v, i.v from dates d, intervals i
  union all select 5, d.n, i.n, 'date-interval', d.v, i.v from dates d, intervals i
  union all select 6, t.n, i.n, 'timestamp+interval', t.v, i.v from timestamps t, intervals i
  union all select 7, t.n, i.n, 'timestamp-interval', t.v, i.v from timestamps t, intervals i
  union all select 8, t.n, u.n, 'timestamp-timestamp', t.v, u.v from timestamps t, timestamps u
  union all select 9, t.n, u.n, 'timestamp_cmp', t.v, u.v from timestamps t, timestamps u
  union all select 10, a.n, b.n, 'interval+interval', a.v, b.v from intervals a, intervals b where (a.n + b.n) % 3 = 0
  union all select 11, a.n, b.n, 'interval-interval', a.v, b.v from intervals a, intervals b where (a.n + b.n) % 3 = 1
  union all select 12, a.n, b.n, 'interval_cmp', a.v, b.v from intervals a, intervals b
  union all select 13, a.n, f.n, 'interval*float8', a.v, f.v from intervals a, floats f
  union all select 14, a.n, f.n, 'interval/float8', a.v, f.v from intervals a, floats f
  union all select 15, a.n, 0, op, a.v, '' from intervals a,
    unnest(array['-interval', 'justify_hours', 'justify_days', 'justify_interval']) op
  union all select 16, m.n, 0, op, m.v, '' from mixed m,
    unnest(array['-interval', 'justify_hours', 'justify_days', 'justify_interval']) op
  union all select 17, m.n, f.n, 'interval*float8', m.v, f.v from mixed m, floats f where (m.n + f.n) % 4 = 0
  union all select 18, m.n, f.n, 'interval/float8', m.v, f.v from mixed m, floats f where (m.n + f.n) % 4 = 1)
select op || '|' || a || '|' || b || '|' || pg_temp.try_op(op, a, b) from cases order by o, x, y, op;
