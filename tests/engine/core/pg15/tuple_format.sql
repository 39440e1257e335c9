-- Heap tuples of every stored type as PostgreSQL 15 writes them (pageinspect), for
-- tuple_format_test.cc. Each row: the values as the test builds its Datums (dates as
-- days from 2000-01-01, timestamps as microseconds from 2000-01-01, intervals as
-- months, days and microseconds, char(5) unpadded), then t_infomask, t_hoff, t_bits
-- and t_data in hex. Strings of 0, 1, 125, 126, 127, 128 and 1000 bytes cross the
-- packed-varlena limit; NULLs fall in every column, one or many at a time.
--   psql -X -q -A -t -F '|' -f tuple_format.sql > tuple_format.out   (needs pageinspect)
\pset null '\\N'
set client_min_messages = warning;
create extension if not exists pageinspect;
drop table if exists tf;
create table tf (n int, b bool, s int2, i int4, l int8, f4 real, f8 double precision,
                 t text, v varchar(2000), c char(5), d date, ts timestamp, iv interval);
insert into tf
select g,
       case when g % 7 = 3 then null else g % 2 = 0 end,
       case when g % 5 = 1 then null else (g * 37 % 65536 - 32768)::int2 end,
       case when g % 6 = 2 then null else g * 1000003 - 2000000000 end,
       case when g % 9 = 4 then null else g::int8 * 3000000007 - 90000000000 end,
       case when g % 8 = 5 then null else (g / 3.0 - 7)::real end,
       case when g % 4 = 3 then null else g * 1.1 - 100.25 end,
       case when g % 10 = 7 then null else repeat(chr(97 + g % 26), (array[0, 1, 125, 126, 127, 128, 1000, 3, 60])[1 + g % 9]) end,
       case when g % 11 = 6 then null else repeat('v', (array[127, 0, 126, 2, 128, 1000])[1 + g % 6]) end,
       case when g % 3 = 1 then null else left('xyzzy', g % 6) end,
       case when g % 12 = 8 then null else date '2000-01-01' + (g * 211 - 3000) end,
       case when g % 13 = 9 then null else timestamp '2000-01-01' + (g::int8 * 123456789) * interval '1 microsecond' - interval '20 days' end,
       case when g % 14 = 10 then null else make_interval(0, g % 25, 0, g % 40 - 20, 0, 0, g * 1.5) end
from generate_series(1, 60) g;
insert into tf (n) values (61);
insert into tf (n, t) values (62, repeat('z', 1500));
select n,
       case when b is null then '\N' else b::int::text end,
       s, i, l, f4, f8,
       t, v, c,
       d - date '2000-01-01',
       (extract(epoch from ts - timestamp '2000-01-01') * 1000000)::int8,
       case when iv is null then '\N' else (n % 25)::text || ',' || (n % 40 - 20)::text || ',' || (n * 1500000)::text end,
       h.t_infomask, h.t_hoff, coalesce(h.t_bits, '-'), encode(h.t_data, 'hex')
from tf, generate_series(0, pg_relation_size('tf') / 8192 - 1) blk,
     heap_page_items(get_raw_page('tf', blk::int)) h
where tf.ctid = ('(' || blk || ',' || h.lp || ')')::tid
order by 1;
select 'pages', pg_relation_size('tf') / 8192;
