-- Text input, output, arithmetic and comparison of boolean, smallint, integer, bigint,
-- real and double precision as PostgreSQL 15 does them, for type_io_test.cc.
-- Produced with (server encoding UTF8, collation C, extra_float_digits its default 1):
--   psql -X -q -A -t -f type_io_scalars.sql > type_io_scalars.out
-- Each line: case|operand|...|result, where result is ok:<text> or
-- err:<sqlstate>:<message>. Operands and results escape '\', '|' and control bytes as
-- \\ and \xHH so every case stays on one line.
set client_min_messages = warning;
set extra_float_digits = 1;
create function pg_temp.esc(s text) returns text language sql immutable as $$
  select replace(replace(replace(replace(replace(replace(replace(s,
    '\', '\\'), '|', '\x7c'), E'\n', '\x0a'), E'\r', '\x0d'), E'\t', '\x09'),
    chr(11), '\x0b'), E'\f', '\x0c')
$$;
create function pg_temp.try(q text) returns text language plpgsql as $$
declare r text;
begin
  execute q into r;
  return case when r is null then 'null' else 'ok:' || pg_temp.esc(r) end;
exception when others then
  return 'err:' || sqlstate || ':' || pg_temp.esc(sqlerrm);
end $$;

-- boolean input: every spelling, its prefixes, case, surrounding whitespace.
with words(w) as (
  select unnest(array['t','tr','tru','true','truex','f','fa','fal','fals','false','falsey',
    'y','ye','yes','yess','n','no','nope','o','on','onn','of','off','offf','1','0','10','01',
    '2','','x','TRUE','False','YeS','oN','OFF','t rue','tRuE','nO','-1','+1','yes no'])),
pads(l, r) as (
  values ('', ''), (' ', ''), ('', '  '), (E'\t\n', E'\r '), (E'\f', chr(11)))
select 'boolin|' || pg_temp.esc(l || w || r) || '|'
       || pg_temp.try(format('select textin(boolout(%L::boolean))', l || w || r))
from words, pads;

-- integer input: boundaries of each width and beyond, signs, zeros, whitespace and
-- trailing rubbish, for all three widths.
with nums(n) as (
  select unnest(array['0','1','-1','+1','7','-0','+0','00012','-00012','32767','32768',
    '-32768','-32769','65535','99999','2147483647','2147483648','-2147483648','-2147483649',
    '4294967296','9223372036854775807','9223372036854775808','-9223372036854775808',
    '-9223372036854775809','18446744073709551616','000000000000000000000000000042',
    '99999999999999999999999','123','-4567','31000','-31000','1000000','-987654321',
    '12345678901','-12345678901234'])
  union all select (g * 7919 - 40000)::text from generate_series(1, 30) g
  union all select (g::int8 * 300007 - 4000000)::text from generate_series(1, 12) g
  union all select (g::int8 * 769130927501 - 4611686018427387904)::text from generate_series(1, 12) g),
decor(l, r) as (
  values ('', ''), ('  ', ''), ('', ' '), (E'\t', E'\n'), ('', 'a'), ('', '.0'), ('', 'e2'),
         ('+', ''), ('-', ''), ('', '_0'), (' ', ' x'))
select t || 'in|' || pg_temp.esc(l || n || r) || '|'
       || pg_temp.try(format('select %L::%s::text', l || n || r, t))
from (values ('int2'), ('int4'), ('int8')) types(t), nums, decor
where length(n) < 16 or r = '' or t = 'int8';
-- malformed integers
select t || 'in|' || pg_temp.esc(s) || '|' || pg_temp.try(format('select %L::%s::text', s, t))
from (values ('int2'), ('int4'), ('int8')) types(t),
     unnest(array['', ' ', '+', '-', '- 1', '+-1', '--1', '0x10', '1_000', '1 2', 'abc',
       '١٢', '１２', '1.', '.5', chr(11) || '5' || E'\f', '٣', 'NaN', 'Infinity', ' 12 a', '99999x',
       '99999999999999999999x', '+ 3']) s;

-- integer arithmetic over operands at and around each width's limits.
with ops(op, sym) as (values ('pl', '%s + %s'), ('mi', '%s - %s'), ('mul', '%s * %s'),
                             ('div', '%s / %s'), ('mod', '%s %% %s')),
vals(t, v) as (
  select 'int2', unnest(array['-32768','-32767','-16384','-256','-181','-2','-1','0','1','2',
    '3','7','181','182','255','16384','32766','32767'])
  union all select 'int4', unnest(array['-2147483648','-2147483647','-1073741824','-65536',
    '-46341','-2','-1','0','1','2','3','7','46340','46341','65536','1073741824',
    '2147483646','2147483647'])
  union all select 'int8', unnest(array['-9223372036854775808','-9223372036854775807',
    '-4611686018427387904','-4294967296','-3037000500','-2','-1','0','1','2','3','7',
    '3037000499','3037000500','4294967296','4611686018427387904','9223372036854775806',
    '9223372036854775807']))
select a.t || op || '|' || a.v || '|' || b.v || '|'
       || pg_temp.try(format('select (' || sym || ')::text',
                             quote_literal(a.v) || '::' || a.t, quote_literal(b.v) || '::' || a.t))
from ops, vals a join vals b on a.t = b.t
where (a.v::numeric + b.v::numeric) % 3 = 0 or abs(a.v::numeric) < 10 or abs(b.v::numeric) < 10
   or a.v::numeric in (-32768, -2147483648, -9223372036854775808);
select t || op || '|' || v || '|' || pg_temp.try(format('select (' || sym || ')::text',
                                                         quote_literal(v) || '::' || t))
from (values ('um', '- %s'), ('abs', '@ %s')) ops(op, sym),
     (values ('int2', '-32768'), ('int2', '-32767'), ('int2', '0'), ('int2', '32767'),
             ('int2', '-5'), ('int4', '-2147483648'), ('int4', '-2147483647'), ('int4', '0'),
             ('int4', '2147483647'), ('int4', '-5'), ('int8', '-9223372036854775808'),
             ('int8', '-9223372036854775807'), ('int8', '0'), ('int8', '9223372036854775807'),
             ('int8', '-5')) v(t, v);

-- float input and output: mantissas at every decimal exponent, the fixed/exponent switch
-- of each type, subnormals, values past each range, the special spellings, whitespace.
with mant(m) as (values ('1'), ('1.5'), ('2.2250738585072014'), ('4.9406564584124654'),
                        ('9.999999'), ('3.4028235'), ('1.1754944'), ('1.4012984'),
                        ('-7.25'), ('1.7976931348623157'), ('1.23456789012345678'),
                        ('-0.000123'), ('123456')),
exps(e) as (select g from generate_series(-330, 310, 1) g
            where g between -50 and 50 or g % 7 = 0 or g between 300 and 310
               or g between -330 and -300 or g between -46 and -35)
select t || 'in|' || (m || 'e' || e) || '|'
       || pg_temp.try(format('select %L::%s::text', m || 'e' || e, t))
from (values ('float4'), ('float8')) types(t), mant, exps
where t = 'float8' or e between -50 and 45 or e % 30 = 0;
select t || 'in|' || pg_temp.esc(s) || '|' || pg_temp.try(format('select %L::%s::text', s, t))
from (values ('float4'), ('float8')) types(t),
     unnest(array['0', '-0', '+0', '0.0', '-0.0e5', '1', '-1', '0.1', '0.5', '100', '1e5',
       '123456', '1234567', '12345678', '999999', '1000000', '99999.99', '0.0001',
       '0.00001', '0.000099999', '123456789012345', '1234567890123456', '999999999999999',
       '1e15', '1e14', '1e16', '1e-4', '1e-5', '3.14159265358979', '2.718281828459045',
       '1.1', '-1.1', '0.3', '1e22', '1e23', '9007199254740993', '5e-324', '4e-324',
       '2e-324', '1e-320', '2.5e-308', '1.8e308', '1.7976931348623158e308',
       '3.4028235e38', '3.4028236e38', '3.5e38', '1.4e-45', '7e-46', '1e-45', '1e-38',
       '1.17549435e-38', 'NaN', 'nan', 'NAN', '+NaN', '-NaN', 'Infinity', 'infinity',
       '-Infinity', '+Infinity', 'inf', '-inf', '+INF', 'infin', 'Infinityx', 'nanx',
       ' 1.5 ', E'\t-2\n', '  NaN  ', ' -inf ', '', ' ', 'abc', '1.5x', '1e', '1e+',
       '.', '.5', '5.', '-.5e-3', '0x1p3', '0x10', '1,5', '1 5', '1e400', ' 1e400 ',
       '-1e400', '1e-400', '-1e-400 ', '1e400x', '1e-400x', '1e39', '-1e39', ' 1e39 ',
       '1e-46', '1e-50', '1e-50x', '123456789e-50', '1e-310', '-4.9e-324', '1_000',
       'nan(123)', 'infinit', 'infinity ', '00001.5000', '1e0300', '1E5', '1.e3']) s;

-- float output over many values: 17 (or 9) pseudo-random significant digits at exponents
-- across each range, integers at and past 2^24 and 2^53 where neighbours are more than
-- one apart, and powers of two (whose lower neighbour is nearer than the upper).
select t || 'in|' || m || '|' || pg_temp.try(format('select %L::%s::text', m, t))
from (select 'float8' t, translate(left(md5(g::text), 1), 'abcdef0', '1234567') || '.'
             || translate(substr(md5(g::text), 2, 16), 'abcdef', '012345') || 'e'
             || ((g * 37) % 616 - 308) m
      from generate_series(1, 700) g
      union all
      select 'float4', translate(left(md5(g::text), 1), 'abcdef0', '1234567') || '.'
             || translate(substr(md5(g::text), 2, 8), 'abcdef', '012345') || 'e'
             || ((g * 13) % 83 - 45)
      from generate_series(1, 500) g
      union all
      select t, (b + g)::text
      from (values ('float4', 16777216::numeric), ('float4', 1073741824),
                   ('float8', 9007199254740992), ('float8', 1152921504606846976)) v(t, b),
           generate_series(-3, 40, 1) g
      union all
      select t, (2::numeric ^ k)::text
      from (values ('float4'), ('float8')) types(t), generate_series(0, 200, 3) k) c;

-- float arithmetic and comparison over a grid of operands.
with vals(v) as (values ('0'), ('-0'), ('1'), ('-1'), ('0.1'), ('3'), ('-2.5'), ('1e-20'),
                        ('1e20'), ('1e-200'), ('-1e-200'), ('1e200'), ('-1e200'),
                        ('3e38'), ('-3e38'), ('1e-30'), ('1e-40'), ('1e-310'), ('1.5e308'),
                        ('NaN'), ('Infinity'), ('-Infinity')),
ops(op, sym) as (values ('pl', '%s + %s'), ('mi', '%s - %s'), ('mul', '%s * %s'),
                        ('div', '%s / %s'), ('cmp', 'bt%2$scmp(%1$s, %3$s)'))
select t || op || '|' || a.v || '|' || b.v || '|'
       || pg_temp.try(case when op = 'cmp'
            then format('select bt' || t || 'cmp(%L::' || t || ', %L::' || t || ')::text', a.v, b.v)
            else format('select (' || sym || ')::text',
                        quote_literal(a.v) || '::' || t, quote_literal(b.v) || '::' || t) end)
from (values ('float4'), ('float8')) types(t), ops, vals a, vals b
where t = 'float8' or (a.v not in ('1e-200', '-1e-200', '1e200', '-1e200', '1e-310', '1.5e308')
                       and b.v not in ('1e-200', '-1e-200', '1e200', '-1e200', '1e-310', '1.5e308'));
