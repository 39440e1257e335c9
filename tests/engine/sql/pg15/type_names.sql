-- Type names as PostgreSQL 15 resolves them, for type_name_test.cc: the table's
-- columns (format_type, atttypid, atttypmod, one row per column in order), then
-- statements PostgreSQL refuses, one a line, each followed by its error (with
-- VERBOSITY verbose: the SQLSTATE; the caret line gives the position).
--   psql -X -q -f type_names.sql > type_names.out 2>&1
\set VERBOSITY verbose
\pset format unaligned
\pset tuples_only on
drop table if exists tn;
create table tn (a int, b integer, c int4, d smallint, e int2, f bigint, g int8, h real, i float4, j float, k float(24), l float(25), m double precision, n float8, o numeric, p numeric(15,2), q decimal(10), r dec(5,-2), s numeric(1000, 1000), t text, u varchar, v varchar(10), w character varying(20), x char, y char(5), z character(3), aa bpchar, ab character varying, ac date, ad timestamp, ae timestamp(3), af timestamp without time zone, ag timestamp(0) without time zone, ah interval, ai bool, aj boolean, ak "varchar"(4), al decimal, am "numeric"(4,1), an nchar(4), ao national character varying(5), aq interval(3), ar interval year to month, as2 interval day to second(2), at2 float(1), au float(53), av "timestamp"(2), aw bpchar(7), ax interval hour to minute, ay interval minute, az "interval"(4), ba national char(2), bb numeric(1), bc "bpchar"(3), bd interval second(3), be interval day to hour, bf "float8", bg "int2", bh "bool", bi "date", bj "interval"(32767), bk "interval"(6144, 3), bl "interval"(4096, 9), bm "timestamp"(8));
select format_type(atttypid, atttypmod) || '|' || atttypid || '|' || atttypmod from pg_attribute where attrelid = 'tn'::regclass and attnum > 0 order by attnum;
drop table tn;
create table te (a varchar(0));
create table te (a char(0));
create table te (a char(10485761));
create table te (a varchar(10485761));
create table te (a numeric(0));
create table te (a numeric(1001));
create table te (a numeric(5, 1001));
create table te (a numeric(5, -1001));
create table te (a numeric(1,2,3));
create table te (a numeric(-5));
create table te (a numeric(5.5));
create table te (a numeric());
create table te (a float(0));
create table te (a float(54));
create table te (a float(1.5));
create table te (a timestamp(-1));
create table te (a text(5));
create table te (a date(2));
create table te (a "int4"(2));
create table te (a int(5));
create table te (a integer(5));
create table te (a bigint(5));
create table te (a smallint(3));
create table te (a real(3));
create table te (a double precision(3));
create table te (a boolean(1));
create table te (a foo);
create table te (a "int"(5));
create table te (a double);
create table te (a varchar(1.5));
create table te (a varchar('5'));
create table te (a varchar(-5));
create table te (a varchar(5,2));
create table te (a char(5,2));
create table te (a varchar(a));
create table te (a interval year(2));
create table te (a interval minute to hour);
create table te (a "varchar"(0));
create table te (a "varchar"(5,2));
create table te (a "timestamp"(-2));
create table te (a "bpchar"(-1));
create table te (a "interval"(5));
create table te (a "interval"(4, -1));
create table te (a "interval"(1,2,3));
create table te (a "timestamp"(1,2));
select '1'::varchar(0);
select '1'::numeric(1001);
select '1'::float(60);
