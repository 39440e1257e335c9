-- The fixed prefix the planner takes from a LIKE pattern, as PostgreSQL 15 shows it in the
-- index condition of a plan over a btree index on a text column (collation C), for
-- type_io_test.cc's like_fixed_prefix checks. Produced with:
--   psql -X -q -A -t -f type_io_like_prefix.sql > type_io_like_prefix.out
-- Each line: likeprefix|pattern|condition, where condition is the plan's Index Cond, or
-- none when the pattern has no fixed prefix; the pattern escapes '\' and '|' as \\ and \x7c.
set client_min_messages = warning;
create temp table lp(t text collate "C");
create index on lp(t);
set enable_seqscan = off;
set enable_bitmapscan = off;
create function pg_temp.index_cond(pattern text) returns text language plpgsql as $$
declare line text;
begin
  for line in execute format('explain (costs off) select * from lp where t like %L', pattern)
  loop
    if line like '%Index Cond:%' then
      return substring(line from 'Index Cond: (.*)$');
    end if;
  end loop;
  return 'none';
end $$;
select 'likeprefix|' || replace(replace(p, '\', '\\'), '|', '\x7c') || '|' || pg_temp.index_cond(p)
from unnest(array['abc', 'abc%', 'ab_c', '%abc', '_', '%', 'a\%b', 'a\%b%', 'a\\b%', 'a\_',
  'a\', '\', 'é%', 'ab\c', 'x%y%z', 'hello world', 'a''b%', '日本%語']) p;
