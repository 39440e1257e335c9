select k, tz from z where tz = '2020-01-02 00:00+00' order by k
select k, tz from z where tz between '2020-01-02 03:00-05' and '2020-01-02 09:00 EST' order by tz
select count(*) from z where tz < '2020-01-03'::date
select count(*) from z where tz >= '2020-01-03 00:00'::timestamp and tz < '2020-01-04'
select count(*) from z where d > '2020-03-01 12:00+00'::timestamptz
select count(*) from z where ts < tz
select count(*) from z where tz - ts > interval '1 day'
select count(*) from z where tz < now()
select count(*) from z where tz > now() - interval '1 year'
select count(*) from z where tz < current_timestamp and ts < localtimestamp and d <= current_date
select k, tz + interval '1 month', tz - interval '1 day 2 hours', interval '1 mon' + tz from z where k < 4 order by k
select k, tz - ts, tz - d, d - tz, tz - '2020-01-01 00:00+00'::timestamptz from z where k < 4 order by k
select k, tz::date, tz::timestamp, tz::timestamp(0), tz::text, ts::timestamptz, d::timestamptz from z where k in (1, 2, 5003) order by k
select k, extract(hour from tz), extract(epoch from tz), extract(timezone from tz), date_part('dow', tz), date_part('timezone_hour', tz) from z where k < 4 or k > 5000 order by k
select k, date_trunc('day', tz), date_trunc('month', d), date_trunc('hour', ts) from z where k < 4 or k > 5000 order by k
select k, tz at time zone 'UTC', ts at time zone 'EST', tz at time zone zone, ts at time zone zone from z where k < 5 or k > 5000 order by k
select count(*) from z where (tz at time zone 'cet') > ts
select k from z where ts at time zone 'UTC' = tz order by k limit 5
select min(tz), max(tz), count(tz), count(distinct tz) from z
select min(tz), max(tz) from z where k < 5000
select tz from z order by tz desc limit 3
select tz from z where tz is not null order by tz limit 3
select k from z where ts = '2020-01-01 05:00' and tz > '2020-01-01 00:00+00' order by k
select k from z where ts between '2020-01-01'::date and '2020-01-01 04:00+00'::timestamptz order by k
select greatest(tz, ts), least(d, tz), coalesce(tz, ts), case when k > 2 then tz else d end from z where k < 5 order by k
select k from z where tz in ('2020-01-01 00:37+00', '2020-01-01 01:14:00 UTC', '2020-01-01 00:51-01') order by k
select k from z where tz = ts order by k
select k, tz from z where tz > 'infinity' or tz < '-infinity'
select count(*) from z where tz < '2020-01-01 12:00' or ts > '2020-07-01'
select k from z where extract(year from tz) = 2020 and extract(month from tz) = 4 and tz::date = '2020-04-01' order by k limit 3
select k from z where tz in ('2020-01-01 00:37+00', now() - interval '10 years', '2020-01-01 01:14+00') order by k
select k from z where tz in ('2020-01-01 00:37+00', now() - interval '10 years', ts) order by k limit 5
select count(*) from z where tz not in ('2020-01-01 00:37+00', now())
select k from z where k in (1, 2, k + 0) order by k limit 3
select k from z where ts = any (array['2020-01-01 05:00'::timestamp, tz::timestamp]) order by k limit 3
