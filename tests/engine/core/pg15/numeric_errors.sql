-- Errors numeric raises, as psql reports them with \set VERBOSITY verbose (SQLSTATE,
-- message, detail), for numeric_test.cc. Each statement sits on one line, with the case
-- it stands for after "-- case: " (kind|a|b, as in numeric_cases.sql); the test finds
-- the error psql printed for that line.
--   psql -X -q -A -t -f numeric_errors.sql > numeric_errors.out 2>&1
\set VERBOSITY verbose
select 'abc'::numeric; -- case: in|abc|
select ' 1.5x'::numeric; -- case: in| 1.5x|
select '1e'::numeric; -- case: in|1e|
select '1_000'::numeric; -- case: in|1_000|
select '0x10'::numeric; -- case: in|0x10|
select '1e131072'::numeric; -- case: in|1e131072|
select '1e-16384'::numeric; -- case: in|1e-16384|
select '1234.567'::numeric(5,2); -- case: in|1234.567|5,2
select '99.995'::numeric(4,2); -- case: in|99.995|4,2
select '1'::numeric(2,5); -- case: in|1|2,5
select '123456'::numeric(3,-2); -- case: in|123456|3,-2
select '1'::numeric(1,1); -- case: in|1|1,1
select 'Infinity'::numeric(5,2); -- case: in|Infinity|5,2
select '-inf'::numeric::numeric(10,0); -- case: cast|-inf|10,0
select 1::numeric / 0; -- case: div|1|0
select 'Infinity'::numeric / 0; -- case: div|Infinity|0
select 5::numeric % 0.00; -- case: mod|5|0.00
select '9e131071'::numeric * 10; -- case: mul|9e131071|10
select '9e131071'::numeric + '9e131071'::numeric; -- case: add|9e131071|9e131071
select 'NaN'::numeric::int8; -- case: int8|NaN|
select '-Infinity'::numeric::int4; -- case: int4|-Infinity|
select 'NaN'::numeric::int2; -- case: int2|NaN|
select 9223372036854775807.5::numeric::int8; -- case: int8|9223372036854775807.5|
select 2147483647.5::numeric::int4; -- case: int4|2147483647.5|
select (-32768.5)::numeric::int2; -- case: int2|-32768.5|
select 1e400::numeric::float8; -- case: float8|1e400|
