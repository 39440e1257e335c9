-- timestamp with time zone as PostgreSQL 15.18 reads, prints and computes it with
-- TimeZone UTC, for datetime_test.cc: input of timestamps with every kind of zone
-- tidepool reads (offsets, abbreviations, names of UTC) and their errors, the zone
-- fields, date_trunc, and AT TIME ZONE both ways. Not here: PostgreSQL's hhmmss-zz
-- form ('20200105 040506-05'), which tidepool refuses as invalid input. Each line:
-- op|arg|value|result, the result as text|raw (microseconds since 2000-01-01 UTC) or
-- op|arg|value|ERROR|sqlstate|message. Captured with
--   psql -X -q -A -t -f timestamptz_cases.sql > timestamptz_cases.out
\pset null '\\N'
set timezone = 'UTC';
set datestyle = 'ISO, MDY';
set intervalstyle = 'postgres';
create function pg_temp.raw(t timestamptz) returns text language sql as $$
  select t::text || '|' || case when isfinite(t) then
    (extract(epoch from t - timestamptz '2000-01-01 00:00+00') * 1000000)::bigint::text else '' end $$;
create function pg_temp.raw_ts(t timestamp) returns text language sql as $$
  select t::text || '|' || case when isfinite(t) then
    (extract(epoch from t - timestamp '2000-01-01') * 1000000)::bigint::text else '' end $$;
create function pg_temp.try(op text, a text, v text) returns text language plpgsql as $$
declare r text; st text; msg text;
begin
  if op = 'in' then
    execute format('select pg_temp.%s(%L::%s)', case when a = 'timestamp' then 'raw_ts' else 'raw' end,
                   v, a) into r;
  elsif op = 'extract' then
    r := pg_catalog.extract(a, v::timestamptz)::text;
  elsif op = 'date_part' then
    r := date_part(a, v::timestamptz)::text;
  elsif op = 'date_trunc' then
    r := pg_temp.raw(date_trunc(a, v::timestamptz));
  elsif op = 'at' then
    r := pg_temp.raw_ts(v::timestamptz at time zone a);
  elsif op = 'at_ts' then
    r := pg_temp.raw(v::timestamp at time zone a);
  end if;
  return coalesce(r, '\N');
exception when others then
  get stacked diagnostics st = returned_sqlstate, msg = message_text;
  return 'ERROR|' || st || '|' || msg;
end $$;
with bases(b) as (values
  ('2020-01-05 04:05:06.5'), ('1999-12-31 23:59:59.999999'), ('2000-01-01 00:00:00'),
  ('2020-02-29 12:00'), ('1970-01-01 00:00:00'), ('0044-03-15 10:00'),
  ('Jan 5 2020 04:05:06'), ('2020-01-05T04:05:06')),
zones(z) as (values
  (''), ('+02'), ('-05:30'), ('+0530'), (' -3'), ('+05:30:15'), (' EST'), (' cet'), (' PDT'),
  (' CEST'), (' MST'), ('Z'), (' UTC'), (' GMT'), (' zulu'), (' ut'), ('+15:59'), ('-15:59:59'),
  ('+16'), ('-16:00'), ('+1:60'), (' Etc/UTC'), (' etc/gmt'), (' Mars/Base'), (' XYZ'))
select 'in|timestamptz|' || b || z || '|' || pg_temp.try('in', 'timestamptz', b || z)
  from bases, zones
union all
select 'in|' || k || '|' || s || '|' || pg_temp.try('in', k, s) from (values
  ('timestamptz', 'epoch'), ('timestamptz', 'infinity'), ('timestamptz', '-infinity'),
  ('timestamptz', 'garbage'), ('timestamptz', ''), ('timestamptz', '2020-13-01'),
  ('timestamptz', '2020-01-05 25:00'), ('timestamptz', '0044-03-15 10:00+02 BC'),
  ('timestamptz', '294276-12-31 23:59:59+00'), ('timestamptz', '294276-12-31 23:59:59-01'),
  ('timestamptz', '294277-01-01 00:30:00+01'), ('timestamptz', '4714-11-24 00:00:00+00 BC'),
  ('timestamptz', '4714-11-24 00:00:00+01 BC'), ('timestamptz', '4714-11-24 00:00:00-01 BC'),
  ('timestamptz', '2020-01-05 04:05:06 +02:00'), ('timestamptz', '2020-01-05 04:05:06 -0700'),
  ('timestamptz', '2020-01-05T04:05:06.123+02:00'), ('timestamptz', '2020-01-05 04:05:06 z'),
  ('timestamptz', '2020-01-05 +02 04:05'), ('timestamptz', '2020-01-05 04:05 +02 EST'),
  ('timestamptz', '20200105 040506+02'), ('timestamptz', '20200105 040506 EST'),
  ('timestamptz', '20200105T040506Z'), ('timestamptz', '20200105 040506+0530'),
  ('timestamptz(0)', '2020-01-05 04:05:06.5+02'), ('timestamptz(0)', '2020-01-05 04:05:06.4 EST'),
  ('timestamptz(2)', '2020-01-05 04:05:06.125-01'), ('timestamptz(6)', '1999-12-31 23:59:59.9999995+00'),
  ('timestamptz(3)', 'infinity'), ('timestamp', '2020-01-05 04:05:06+02'),
  ('timestamp', '2020-01-05 04:05:06 EST'), ('timestamp', '2020-01-05 04:05:06 Etc/UTC')) v(k, s)
union all
select op || '|' || f || '|' || v || '|' || pg_temp.try(op, f, v)
  from (values ('extract'), ('date_part')) o(op),
       (values ('timezone'), ('timezone_hour'), ('timezone_minute'), ('epoch'), ('hour'),
               ('julian'), ('year'), ('microseconds'), ('dow'), ('fortnight'), ('isoyear')) f(f),
       (values ('2020-01-05 04:05:06.5+02'), ('0044-03-15 23:00-05 BC'), ('infinity'),
               ('-infinity'), ('1999-12-31 23:59:59.999999-00:01')) v(v)
union all
select 'date_trunc|' || f || '|' || v || '|' || pg_temp.try('date_trunc', f, v)
  from (values ('microseconds'), ('milliseconds'), ('second'), ('minute'), ('hour'), ('day'),
               ('week'), ('month'), ('quarter'), ('year'), ('decade'), ('century'),
               ('millennium'), ('timezone'), ('fortnight')) f(f),
       (values ('2020-01-05 04:05:06.123456+02'), ('0044-03-15 23:00-05 BC'), ('infinity'),
               ('1999-12-31 23:59:59.999999-00:01')) v(v)
union all
select op || '|' || z || '|' || v || '|' || pg_temp.try(op, z, v)
  from (values ('at'), ('at_ts')) o(op),
       (values ('UTC'), ('utc'), ('EST'), ('cet'), ('PDT'), ('Etc/UTC'), ('GMT'), ('z'),
               ('nowhere')) z(z),
       (values ('2020-01-05 04:05:06.5'), ('294276-12-31 23:59:59'), ('4714-11-24 00:00:00 BC'),
               ('infinity')) v(v);
