select 1.5 * 2, 10 / 4, 10 / 4.0, 7 % 3, -7 % 3, 1.0 / 3
select 'a' || 1 || 'b', 1 || 'x', 'x' || NULL, 2.50 || '%'
select date '2020-02-28' + 1, date '2020-03-01' - date '2020-02-01', date '2020-01-31' + interval '1 month', timestamp '2020-01-01 10:00' - interval '1 day 2 hours'
select round(2.5), round(-2.5), round(2.345, 2), trunc(-2.7), floor(-2.5), ceil(2.1), abs(-3), abs(-3.5), round(2.5::float8)
select length('héllo'), upper('abc'), lower('ABC'), md5('abc'), substring('hello' from 2 for 3), position('l' in 'hello'), trim('  x  '), btrim('xxaxx', 'x')
select repeat('ab', 3), lpad('7', 3, '0'), rpad('x', 4, 'yz'), left('hello', -2), right('hello', 2), replace('aXbX', 'X', '--'), lpad('hello', 2), repeat('x', -1)
select coalesce(NULL, 2, 3), nullif(1, 1), nullif(1, 2), greatest(1, 2.5, 3), least('b', 'a')
select case when 1 > 2 then 'x' else 'y' end, case 2 when 1 then 'one' when 2 then 'two' end, case when false then 1 end
select extract(year from date '2020-05-06'), date_part('dow', timestamp '2020-05-06 10:00'), date_trunc('month', timestamp '2020-05-06 10:11:12')
select 'abcdef'::varchar(3), '12.345'::numeric(5,2), 'ab'::char(4) || '|', true::text, 1.5::int, 2.5::int, (-2.5)::int, 1e3::int, 3.7::float8::int
select 12.5::numeric(3,0), '1 day 25 hours'::interval, '2020-01-01 10:00:00.123456'::timestamp(2), 1.5::real, 0.1::float8 + 0.2
select generate_series(1, 3), generate_series(1, 2)
select generate_series(1, NULL)
select generate_series(5, 1, -2) * 10 as tens
select 1 where false
select 'yes' where 1 = 1
values (1, 'a'), (2.5, NULL)
values (1), (2::bigint), (NULL)
values ('2020-01-01'::date), ('2020-01-02')
values ('x', 1)
select g * 2, g::text || 'x' from generate_series(1, 9) g where g % 2 = 1
select * from generate_series(10, 1, -3) as x(n)
select n, n / 2.0 from generate_series(1, 4) as x(n) order by n desc limit 2
select 1 / 0
select 2147483647 + 1
select 'abc'::int
select '2020-13-01'::date
select 'x'::numeric
select 1 + 'a'
select 'abc'::char(2), 'abc'::varchar(2)
insert into tt select g, g * 1000000000000, g, g * 1.005, g / 3.0, g / 7.0, 'row ' || g, 'v' || g, 'c' || g, date '2020-02-27' + g, timestamp '2020-02-28 23:30' + g * interval '15 minutes', g * interval '1 day 1 hour', g % 2 = 0 from generate_series(1, 6) g
insert into tt (a, n, t) values (100, 1.005, 'x'), (101, '2.5', 7)
insert into tt (a, v) values (102, 'abcdefgh')
insert into tt (a, c) values (103, 'ab  ')
insert into tt (a, s) values (104, 40000)
insert into tt (a, d) values (105, '2020-02-30')
insert into tt (a, d) values (106, 5)
insert into tt (a, bo) values (107, 'yes'), (108, 't')
insert into tt (a, iv) values (109, '1 day 2 hours'), (110, interval '3 months')
insert into tt (a, ts) values (111, date '2020-01-01')
insert into tt (a, d) values (112, timestamp '2020-01-01 23:00')
insert into tt (a, n) values (113, 1e10)
insert into tt (a, r, f) values (114, 1.1, 1.1)
insert into tt (a, b) values (115, 9223372036854775807)
insert into tt (a, t) select g, repeat('x', g - 114) from generate_series(117, 120) g
insert into tt (a, n) values (121, 'NaN')
insert into tt (a, f) values (122, 'Infinity'), (123, '-0')
insert into tt values (124)
insert into tt (a, c) values (125, 'abcd')
insert into tt (a, c) values (126, 'abcd'::char(3))
insert into tt (a, t) values (127, true)
insert into tt (a, v) values (128, 12345678)
insert into tt (a, a) values (129, 1)
insert into tt (a, nosuch) values (130, 1)
insert into tt (a, b) values (131)
insert into tt (a) values (132, 1)
insert into tt (a, n) select g, g / 4.0 from generate_series(133, 140) g where g % 3 <> 0
insert into tt (s) values (1.5), (2.5), ('3')
insert into tt (a, r) values (141, 3.4e38::float8 * 10)
select count(*) from tt
select * from tt order by a
select generate_series(1, 5, NULL), generate_series(1, 2)
select * from generate_series(1, NULL) g
select lpad('x', 1000000000)
select length(lpad('x', 268435455))
select length(rpad('ab', 268435454, ''))
