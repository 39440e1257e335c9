-- numeric values as PostgreSQL 15 reads, prints, computes and stores them, for
-- numeric_test.cc. Every line of the output is one case:
--   kind|a|b|ok|result                       the server's result as text
--   kind|a|b|err|sqlstate|message|detail     the error it raised
-- kinds: in (a: text, b: typmod "p,s" or empty), cast (a::numeric to numeric(b)),
-- add sub mul div mod cmp (a op b), neg abs round trunc (b: the scale, or empty for
-- the one-argument form) floor ceil sign, int8 int4 int2 float8 (a::numeric to the
-- type), from_float8 (a::float8::numeric), from_int8, sum and avg (b: int8 or numeric, a: the
-- values, comma-separated), and disk (a: the text inserted into `nt (x numeric)`,
-- b: t_data of its heap tuple in hex, from pageinspect).
-- Errors come from GET STACKED DIAGNOSTICS: the same SQLSTATE, message and detail
-- psql shows with \set VERBOSITY verbose. Random inputs use setseed, so a rerun
-- prints the same file.
--   psql -X -q -A -t -f numeric_cases.sql > numeric_cases.out   (needs pageinspect)
set client_min_messages = warning;
create extension if not exists pageinspect;
select setseed(0.4242) \g /dev/null

create function pg_temp.try(kind text, a text, b text, q text) returns text
language plpgsql as $$
declare
  r text; st text; msg text; det text;
begin
  execute q into r;
  return kind || '|' || a || '|' || b || '|ok|' || coalesce(r, 'NULL');
exception when others then
  get stacked diagnostics st = returned_sqlstate, msg = message_text, det = pg_exception_detail;
  return kind || '|' || a || '|' || b || '|err|' || st || '|' || msg || '|' || coalesce(det, '');
end $$;

create function pg_temp.digits(n int) returns text language sql volatile as $$
  select coalesce(string_agg(floor(random() * 10)::int::text, ''), '') from generate_series(1, n)
$$;

create function pg_temp.valid(t text) returns boolean language plpgsql as $$
begin
  perform t::numeric;
  return true;
exception when others then
  return false;
end $$;

-- Texts to read: hand-picked edge cases, then generated ones.
create temp table inputs (id serial, txt text);
insert into inputs (txt) values
  ('0'), ('-0'), ('+0'), ('-0.000'), ('0.0'), ('00000'), ('000123.4500'), ('  12.5  '),
  (E'\t7\t'), (E' \f8\x0b\r\t'), (E'\x0b9'), ('.5'), ('5.'), ('-.5'), ('+.25'), ('1e5'), ('1E-5'), ('1.5e+3'),
  ('1e 5'), ('1e+05'), ('2.50e-1'), ('0.0001'), ('-0.00012345678'), ('9999'), ('10000'),
  ('99999999'), ('100000000'), ('0.9999'), ('0.00009999'), ('1e-4'), ('1e-5'), ('1e63'),
  ('1e252'), ('1e255'), ('1e256'), ('1e-256'), ('1e-257'), ('1e-260'), ('123e-70'),
  ('1.000000000000000000000000000000000000000000000000000000000000000'),
  ('1.0000000000000000000000000000000000000000000000000000000000000000'),
  ('9e131071'), ('1e131072'), ('1e-16383'), ('1e-16384'), ('1e100000000'), ('1e-1000000000'),
  ('1e1073741823'), ('12345678901234567890123456789012345678901234567890'),
  ('-98765432109876543210.01234567890123456789'), ('3.14159265358979323846264338327950288'),
  ('NaN'), ('nan'), (' NaN '), ('NAN'), ('Infinity'), ('-Infinity'), ('+Infinity'), ('infinity'),
  ('inf'), ('-inf'), ('+INF'), (' -Inf  '), ('iNfInItY'),
  (''), (' '), ('abc'), ('1.2.3'), ('.'), ('-'), ('+'), ('1e'), ('1e+'), ('1e-'), ('e5'),
  ('1_000'), ('0x1F'), ('0o17'), ('0b101'), ('1 2'), ('NaNx'), ('infinit'), ('infinityx'),
  ('+nan'), ('-nan'), ('--1'), ('+-1'), ('1e2.5'), ('1.e3'), ('.e3'), ('1,5'), ('１'), ('- 1'),
  ('1d'), ('12abc'), ('Inf inity');
insert into inputs (txt)
select (case when r3 < 0.08 then '  ' when r3 < 0.12 then E'\t' else '' end)
       || (case when r1 < 0.3 then '-' when r1 < 0.35 then '+' else '' end)
       || (case when ni = 0 and nf = 0 then '0' else pg_temp.digits(ni) end)
       || (case when nf > 0 then '.' || pg_temp.digits(nf) else '' end)
       || (case when r2 < 0.15 then 'e' || ((random() * 80)::int - 40)::text
                when r2 < 0.2 then 'E' || ((random() * 3000)::int - 1500)::text
                else '' end)
       || (case when r3 > 0.9 then ' ' else '' end)
from (select g, (random() * 25)::int ni, (random() * 20)::int nf, random() r1, random() r2,
             random() r3
      from generate_series(1, 400) g) s
order by g;
insert into inputs (txt)
select '-0.' || repeat('0', g) || (case when g % 3 = 0 then 'e' || (g * 7 - 20)::text else '' end)
from generate_series(0, 20) g;
insert into inputs (txt)
select (case when g % 2 = 0 then '-' else '' end) || pg_temp.digits(100 + g * 40) || '.'
       || pg_temp.digits(g * 13)
from generate_series(1, 12) g;

select pg_temp.try('in', txt, '', format('select %L::numeric::text', txt)) from inputs order by id;

-- Typmods on text input and on casts.
create temp table typmods (tm text);
insert into typmods values ('5,2'), ('3,0'), ('10,4'), ('1,0'), ('4,4'), ('2,5'), ('3,-2'),
  ('7,-3'), ('38,10'), ('1000,0');
create temp table tm_values (v text);
insert into tm_values values ('0'), ('-0.004'), ('0.005'), ('-0.005'), ('1.234'), ('1.235'),
  ('-1.235'), ('999.994'), ('999.995'), ('-999.995'), ('99.5'), ('9.5'), ('0.5'), ('0.45'),
  ('12345.6789'), ('123.456'), ('-123.456'), ('1e-10'), ('49.999'), ('50'), ('149'), ('150'),
  ('-1499.5'), ('1234567.5'), ('0.00005'), ('0.000049999'), ('1e9'), ('NaN'), ('Infinity'),
  ('-Infinity'), ('1e37'), ('abc'), (' 1.5x');
select pg_temp.try('in', v, tm, format('select %L::numeric(%s)::text', v, tm))
from tm_values, typmods order by tm, v;
select pg_temp.try('cast', v, tm, format('select %L::numeric::numeric(%s)::text', v, tm))
from tm_values, typmods where pg_temp.valid(v) order by tm, v;

-- Binary operators over a grid of operands.
create temp table operands (id serial, v text);
insert into operands (v) values ('0'), ('1'), ('-1'), ('2'), ('3'), ('7'), ('-7'), ('10'),
  ('0.5'), ('-2.5'), ('2.5'), ('4.0'), ('1.00'), ('0.333'), ('1e-20'), ('-0.0001'),
  ('0.000000001'), ('123456789.123456789'), ('99999999999999999999'), ('1e20'),
  ('3.14159265358979'), ('-12345.678'), ('1000000'), ('9999.9999'), ('0.00'),
  ('NaN'), ('Infinity'), ('-Infinity');
insert into operands (v)
select (case when random() < 0.4 then '-' else '' end) || pg_temp.digits(1 + (random() * 12)::int)
       || '.' || pg_temp.digits((random() * 10)::int)
from generate_series(1, 8);
insert into operands (v)
select (case when random() < 0.4 then '-' else '' end) || pg_temp.digits(1 + (random() * 20)::int)
       || 'e' || ((random() * 120)::int - 60)::text
from generate_series(1, 10);
create temp table ops (op text, sym text);
insert into ops values ('add', '+'), ('sub', '-'), ('mul', '*'), ('div', '/'), ('mod', '%');
select pg_temp.try(op, a.v, b.v, format('select (%L::numeric %s %L::numeric)::text', a.v, sym, b.v))
from operands a, operands b, ops order by op, a.id, b.id;
select pg_temp.try('cmp', a.v, b.v, format('select numeric_cmp(%L::numeric, %L::numeric)::text', a.v, b.v))
from operands a, operands b order by a.id, b.id;

-- Pairs the grid does not reach: long quotients, the scale limits, overflow.
create temp table pairs (id serial, op text, sym text, a text, b text);
insert into pairs (op, sym, a, b) values
  ('div', '/', '1', '3'), ('div', '/', '2', '3'), ('div', '/', '10', '4'), ('div', '/', '1e-20', '3'),
  ('div', '/', '1e-990', '7'), ('div', '/', '1e-2000', '3'), ('div', '/', '22', '7.000000000000000000000000'),
  ('div', '/', '1', '9999'), ('div', '/', '9999', '1'), ('div', '/', '1', '10000'), ('div', '/', '5000', '9999'),
  ('div', '/', '0', '3'), ('div', '/', '0.000', '3'), ('div', '/', '0', '0'), ('div', '/', '1e100000', '1e-30000'),
  ('div', '/', '123456789012345678901234567890', '987654321.123456789'),
  ('div', '/', '-1', '7'), ('div', '/', '2', '-3'), ('div', '/', '-0.5', '-0.3'),
  ('div', '/', '1.5', '0.000000000000000000000000000000000000001'),
  ('div', '/', '99999999999999999999999999999999999999999', '3333333333333333333333333333333333'),
  ('div', '/', '0.5', '1e131071'), ('div', '/', '5', '2e-16000'),
  ('mul', '*', '1e-10000', '1e-10000'), ('mul', '*', '1.5e-10000', '1e-6383'),
  ('mul', '*', '9e131071', '10'), ('mul', '*', '9e131071', '1.1'),
  ('mul', '*', '99999999999999999999999999', '99999999999999999999999999.99'),
  ('add', '+', '9e131071', '9e131071'), ('add', '+', '1e-16383', '1'), ('sub', '-', '-9e131071', '9e131071'),
  ('sub', '-', '1', '1.000'), ('add', '+', '-0.5', '0.5'),
  ('mod', '%', '10', '3'), ('mod', '%', '-10', '3'), ('mod', '%', '10', '-3'), ('mod', '%', '10.5', '3'),
  ('mod', '%', '1e30', '7'), ('mod', '%', '0.7', '0.2'), ('mod', '%', '5', '0.00'), ('mod', '%', 'Infinity', '0'),
  ('mod', '%', 'Infinity', 'NaN'), ('div', '/', 'Infinity', '0'), ('div', '/', '-Infinity', '-0.00'),
  ('div', '/', 'NaN', '0');
select pg_temp.try(op, a, b, format('select (%L::numeric %s %L::numeric)::text', a, sym, b))
from pairs order by id;

-- One-operand functions and conversions.
create temp table singles (id serial, v text);
insert into singles (v) select v from operands order by id;
insert into singles (v) values ('0.5'), ('-0.5'), ('1.5'), ('-1.5'), ('0.49999'), ('9999.5'),
  ('-9999.5'), ('99999.99999'), ('32767'), ('32767.4'), ('32767.5'), ('-32768.5'), ('-32768.49'),
  ('2147483647.49'), ('2147483647.5'), ('-2147483648.5'), ('-2147483648.4999'),
  ('9223372036854775807'), ('9223372036854775807.5'), ('-9223372036854775808'),
  ('-9223372036854775808.5'), ('-9223372036854775809'), ('1e19'), ('1e20'), ('123456.789'),
  ('-555.555'), ('0.0000000000000000000000000000005'), ('1e-400'), ('1e400'),
  ('1e308'), ('1.7976931348623157e308'), ('1.8e308'), ('4.9e-324'), ('2e-324'), ('0.1'),
  ('1234567890.12345678901234567890'), ('1e-5'), ('5e-5');
select pg_temp.try(f, v, '', format('select %s(%L::numeric)::text', f, v))
from singles, unnest(array['abs', 'round', 'trunc', 'floor', 'ceil', 'sign']) f order by f, id;
select pg_temp.try('neg', v, '', format('select (-%L::numeric)::text', v)) from singles order by id;
select pg_temp.try(f, v, s::text, format('select %s(%L::numeric, %s)::text', f, v, s))
from singles, unnest(array['round', 'trunc']) f, unnest(array[-5, -3, -1, 0, 1, 2, 5, 20]) s
order by f, id, s;
select pg_temp.try(t, v, '', format('select %L::numeric::%s::text', v, t))
from singles, unnest(array['int8', 'int4', 'int2', 'float8']) t order by t, id;

create temp table floats (id serial, v text);
insert into floats (v) values ('0'), ('-0'), ('1'), ('0.1'), ('-2.5'), ('123456789012345678'),
  ('1e15'), ('1e16'), ('1.5e300'), ('1e-300'), ('5e-324'), ('1.7976931348623157e308'),
  ('0.30000000000000004'), ('3.141592653589793'), ('NaN'), ('Infinity'), ('-Infinity'),
  ('999999999999999.9'), ('0.000123456789012345678'), ('-1e-7'), ('12345.678901234567');
insert into floats (v)
select ((random() - 0.5) * 10 ^ ((random() * 40)::int - 20))::float8::text from generate_series(1, 40);
insert into floats (v)
select ((random() - 0.5) * 10::float8 ^ ((random() * 600)::int - 300))::text from generate_series(1, 40);
select pg_temp.try('from_float8', v, '', format('select %L::float8::numeric::text', v))
from floats order by id;
select pg_temp.try('from_int8', v, '', format('select %L::int8::numeric::text', v))
from unnest(array['0', '1', '-1', '9999', '10000', '-123456789', '9223372036854775807',
                  '-9223372036854775808', '100000000000']) v;

-- sum() and avg() of integer and numeric columns.
select pg_temp.try('avg', vals, t, format('select avg(x)::text from unnest(%L::%s[]) x', '{' || vals || '}', t))
from unnest(array['1,2,2', '1', '2,3', '1,2', '10,20,30', '-7,1', '0,0,0', '1,1,1,1,1,1,1',
                  '9223372036854775807,9223372036854775807']) vals, unnest(array['int8', 'numeric']) t;
select pg_temp.try(f, vals, 'numeric', format('select %s(x)::text from unnest(%L::numeric[]) x', f, '{' || vals || '}'))
from unnest(array['1.5,2.25', '0.001,0.002,0.004', '1e-20,3e-20', 'NaN,1', 'Infinity,1',
                  'Infinity,-Infinity', '-Infinity,5', '1e-999,2', '100,200,300.5',
                  '-0.5,0.25,0.250', '99999999999999999999.9,0.1']) vals, unnest(array['sum', 'avg']) f;

-- How each valid text is stored: t_data of `nt`'s tuples, in insertion order.
drop table if exists nt;
create table nt (x numeric);
create temp table stored as select row_number() over (order by id) rn, txt from inputs
where pg_temp.valid(txt) order by id;
insert into nt select txt::numeric from stored order by rn;
select 'disk|' || s.txt || '|' || encode(h.t_data, 'hex') || '|ok|'
from (select row_number() over (order by b, lp) rn, t_data
      from generate_series(0, (pg_relation_size('nt') / 8192)::int - 1) b,
           heap_page_items(get_raw_page('nt', b))) h
join stored s using (rn) order by rn;
drop table nt;
