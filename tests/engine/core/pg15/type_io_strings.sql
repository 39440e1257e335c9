-- text, varchar(n) and char(n) as PostgreSQL 15 reads, coerces, compares and transforms
-- them, for type_io_test.cc: UTF-8 validation, length coercion (input function, assignment
-- and explicit cast), comparison, and the string functions and operators.
-- Produced with (server encoding UTF8, collation C):
--   psql -X -q -A -t -f type_io_strings.sql > type_io_strings.out
-- Each line: case|operand|...|result, where result is ok:<text>, null, or
-- err:<sqlstate>:<message>. Operands and results escape '\', '|' and control bytes as
-- \\ and \xHH so every case stays on one line; utf8 operands and results are bytes in hex.
set client_min_messages = warning;
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

create temp table strs(s text);
insert into strs values (''), (' '), ('a'), ('A'), ('ab'), ('abc'), ('abc '), ('abc   '),
  ('ab c'), (' abc'), ('abd'), ('abcd'), ('ABC'), ('aBc'), ('é'), ('éé'), ('aé '), ('É'),
  ('日本語'), ('日本語  x'), ('日本'), ('  '), ('x      '), ('😀😀'), ('ab😀  '),
  (E'a\tb'), ('Straße'), ('ÀÉÎõü'), ('zzz'), ('a%b_c'), ('a\b'), ('abcabcabc'),
  ('xyzxyx'), ('Hello, World!'), ('ǅ'), ('ı'), ('Ω');
create temp table sets(c text);
insert into sets values (''), (' '), ('a'), ('ab'), ('xy'), ('é'), ('éa '), ('日'), ('😀 '),
  ('cba'), ('!,');
create temp table lens(n int);
insert into lens values (1), (2), (3), (4), (5), (8);
create temp table vc1(v varchar(1)); create temp table vc2(v varchar(2));
create temp table vc3(v varchar(3)); create temp table vc4(v varchar(4));
create temp table vc5(v varchar(5)); create temp table vc8(v varchar(8));
create temp table bc1(v char(1)); create temp table bc2(v char(2));
create temp table bc3(v char(3)); create temp table bc4(v char(4));
create temp table bc5(v char(5)); create temp table bc8(v char(8));

-- UTF-8 validation: well-formed sequences of 1 to 4 bytes and the malformed kinds
-- (stray continuation, truncated, overlong, surrogate, past U+10FFFF, NUL), alone and
-- between ASCII. The text accepted is printed in hex too: psql drops some valid
-- characters (noncharacters, private use) from what it prints.
select 'utf8|' || encode(l || b || r, 'hex') || '|'
       || pg_temp.try(format('select encode(convert_to(convert_from(%L::bytea, %L), %L), %L)',
                             l || b || r, 'UTF8', 'UTF8', 'hex'))
from unnest(array['\x61'::bytea, '\xc3a9', '\xe282ac', '\xf09f9880', '\xf48fbfbf', '\xff',
  '\xfe', '\x80', '\xbf', '\xc3', '\xe282', '\xf09f98', '\xc0af', '\xc1bf', '\xe08080',
  '\xe09f80', '\xeda080', '\xedbfbf', '\xee8080', '\xf08f8080', '\xf4908080', '\xf5808080',
  '\xf8888080', '\x00', '\xc328', '\xe228a1', '\xe28228', '\xf0289f98', '\xdfbf',
  '\xefbfbf', '\xc2']) b,
  (values ('\x'::bytea, '\x'::bytea), ('\x6162', '\x'), ('\x', '\x6364'), ('\x61', '\x62')) p(l, r);

-- length coercion: varcharin and bpcharin with a typmod, assignment to a column, and an
-- explicit cast; padded results printed with format so the spaces show.
select 'varcharin|' || pg_temp.esc(s) || '|' || n || '|'
       || pg_temp.try(format('select varcharin(%L::cstring, 0, %s)::text', s, n + 4))
from strs, lens;
select 'bpcharin|' || pg_temp.esc(s) || '|' || n || '|'
       || pg_temp.try(format('select format(''%%s'', bpcharin(%L::cstring, 0, %s))', s, n + 4))
from strs, lens;
select 'varcharassign|' || pg_temp.esc(s) || '|' || n || '|'
       || pg_temp.try(format('insert into vc%s values (%L::text) returning v::text', n, s))
from strs, lens;
select 'bpcharassign|' || pg_temp.esc(s) || '|' || n || '|'
       || pg_temp.try(format('insert into bc%s values (%L::text) returning format(''%%s'', v)', n, s))
from strs, lens;
select 'varcharcast|' || pg_temp.esc(s) || '|' || n || '|'
       || pg_temp.try(format('select (%L::text::varchar(%s))::text', s, n))
from strs, lens;
select 'bpcharcast|' || pg_temp.esc(s) || '|' || n || '|'
       || pg_temp.try(format('select format(''%%s'', %L::text::char(%s))', s, n))
from strs, lens;
select 'bpchartotext|' || pg_temp.esc(s) || '|' || n || '|'
       || pg_temp.try(format('select %L::char(%s)::text', s, n))
from strs, lens;
select 'bpcharoctetlength|' || pg_temp.esc(s) || '|' || n || '|'
       || pg_temp.try(format('select octet_length(%L::char(%s))::text', s, n))
from strs, lens;

-- comparison: text byte-wise, char(n) ignoring trailing spaces (results are signs).
select 'textcmp|' || pg_temp.esc(a.s) || '|' || pg_temp.esc(b.s) || '|'
       || pg_temp.try(format('select sign(bttextcmp(%L, %L))::text', a.s, b.s))
from strs a, strs b;
select 'bpcharcmp|' || pg_temp.esc(a.s) || '|' || pg_temp.esc(b.s) || '|'
       || pg_temp.try(format('select sign(bpcharcmp(%L::bpchar, %L::bpchar))::text', a.s, b.s))
from strs a, strs b;

-- one-operand functions.
select f || '|' || pg_temp.esc(s) || '|' || pg_temp.try(format('select ' || e || '::text', s))
from strs, (values ('length', 'length(%L::text)'), ('bpcharlength', 'length(%L::bpchar)'),
                   ('octetlength', 'octet_length(%L::text)'), ('lower', 'lower(%L::text)'),
                   ('upper', 'upper(%L::text)'), ('md5', 'md5(%L::text)'),
                   ('trim', 'trim(%L::text)'), ('ltrim1', 'ltrim(%L::text)'),
                   ('rtrim1', 'rtrim(%L::text)')) fs(f, e);
select 'md5|' || pg_temp.esc(s) || '|' || pg_temp.try(format('select md5(%L::text)', s))
from (select repeat('abcdefghij', g / 10) || left('0123456789', g % 10) s
      from generate_series(50, 200, 3) g) long;

-- substring with every start around the string and lengths from negative to past it.
select 'substr|' || pg_temp.esc(s) || '|' || i || '|' || n || '|'
       || pg_temp.try(format('select substring(%L::text from %s for %s)', s, i, n))
from strs, generate_series(-3, 8) i, unnest(array[-1, 0, 1, 2, 3, 5, 2147483647]) n
where s in ('', 'a', 'abc', 'éé', '日本語  x', 'ab😀  ', 'Straße', 'abcabcabc');
select 'substr|' || pg_temp.esc(s) || '|' || i || '|' || n || '|'
       || pg_temp.try(format('select substring(%L::text from %s for %s)', s, i, n))
from strs, (values (2147483647, 1), (2147483647, 2147483647), (-2147483648, 2147483647),
                   (-2147483647, 2147483647), (5, 2147483645), (1, -2147483648)) v(i, n)
where s in ('abc', 'éé');
select 'substrfrom|' || pg_temp.esc(s) || '|' || i || '|'
       || pg_temp.try(format('select substring(%L::text from %s)', s, i))
from strs, generate_series(-2, 9) i
where s in ('', 'a', 'abc', 'éé', '日本語  x', 'ab😀  ', 'Straße', 'abcabcabc')
   or i in (-2147483648, 2147483647);

-- position, trims with character sets, concatenation.
select 'position|' || pg_temp.esc(a.s) || '|' || pg_temp.esc(b.s) || '|'
       || pg_temp.try(format('select position(%L::text in %L::text)::text', a.s, b.s))
from strs a, strs b
where length(a.s) <= 3 or a.s in ('日本', 'abcabcabc');
select f || '|' || pg_temp.esc(s) || '|' || pg_temp.esc(c) || '|'
       || pg_temp.try(format('select ' || e, s, c))
from strs, sets, (values ('btrim', 'btrim(%L::text, %L::text)'),
                         ('ltrim', 'ltrim(%L::text, %L::text)'),
                         ('rtrim', 'rtrim(%L::text, %L::text)')) fs(f, e);
select 'concat|' || pg_temp.esc(a.s) || '|' || pg_temp.esc(b.s) || '|'
       || pg_temp.try(format('select %L::text || %L::text', a.s, b.s))
from strs a, strs b
where length(a.s) % 3 = length(b.s) % 2;

-- LIKE and ILIKE with wildcards, escapes, multibyte characters and a trailing escape.
create temp table pats(p text);
insert into pats values (''), ('%'), ('_'), ('%%'), ('a%'), ('%c'), ('%b%'), ('a_c'),
  ('a__'), ('_b_'), ('abc'), ('ABC'), ('a%c'), ('%a%b%'), ('é%'), ('_é'), ('__'), ('%_'),
  ('_%_'), ('日_語%'), ('%😀%'), ('a\%b%'), ('a%\_c'), ('a\\b'), ('a\b'), ('\a\b\c'),
  ('abc\'), ('%\'), ('x\'), ('\'), ('a%\'), ('%  '), ('% '), ('%x'), ('straSSe'),
  ('%ss%'), ('%É%'), ('%Ω'), ('_b%c%'), ('a%a%a%');
select f || '|' || pg_temp.esc(s) || '|' || pg_temp.esc(p) || '|'
       || pg_temp.try(format('select (%L::text ' || op || ' %L::text)::text', s, p))
from strs, pats, (values ('like', 'like'), ('ilike', 'ilike')) o(f, op);
