-- Tables joined on a date against timestamp keys (PostgreSQL's cross-type index operators).
create table tzt (id int, tz timestamptz, ts timestamp);
insert into tzt select i, timestamptz '2020-01-01 00:00+00' + (i % 400) * interval '1 day' + (i % 3) * interval '0 hours', timestamp '2020-01-01' + (i % 500) * interval '1 day' from generate_series(1, 20000) i;
create index tzt_tz on tzt (tz);
create index tzt_ts on tzt (ts);
create table dd (k int, d date);
insert into dd select i, date '2020-01-01' + i from generate_series(1, 300) i;
analyze tzt;
analyze dd;
-- Numeric and text keys, each value on rows spread over the table: a parameterized
-- Bitmap Heap Scan, its recheck comparing by the key type's order.
create table nk (id int, n numeric, t text, c char(6));
insert into nk select i, (i % 1000) * 1.5, 'k' || (i % 700), 'c' || (i % 900) from generate_series(1, 20000) i;
create index nk_n on nk (n);
create index nk_t on nk (t);
create index nk_c on nk (c);
analyze nk;
-- varchar keys, compared as text: the parameter and the Memoize key look through the relabel.
create table vk (id int, v varchar(12), w varchar(12));
insert into vk select i, 'v' || i, 'w' || (i % 20) from generate_series(1, 20000) i;
create index vk_v on vk (v);
analyze vk;
-- A smallint outer column cast to the numeric key: the Memoize counts the column's
-- distinct values (estimate_num_groups pulls the vars out of the cast).
create table sk (id int, s smallint);
insert into sk select i, i % 30 from generate_series(1, 5000) i;
analyze sk;
-- An index whose second column is the semi join's key: its parameterized Index Scan
-- starts at once, its Bitmap Heap Scan costs less in all; the semi join's inner side
-- keeps both (consider_param_startup).
create table sd (id int, s smallint, g int);
insert into sd select i, i % 200, i % 7 from generate_series(1, 20000) i;
create index sd_g_s on sd (g, s);
analyze sd;
-- A text column joined to the varchar columns: one operator family, the varchar
-- relabeled as text on either side of a parameterized scan.
create table tk (id int, t text);
insert into tk select i, case when i % 2 = 0 then 'w' || (i % 40) else 'v' || i end from generate_series(1, 10000) i;
create index tk_t on tk (t);
analyze tk;
-- A timestamp joined to a date key (date = timestamp): the parameter matches only at
-- midnight.
create table dt (k int, d date);
insert into dt select i, date '2020-01-01' + (i % 300) from generate_series(1, 6000) i;
create index dt_d on dt (d);
analyze dt;
create table tsx (id int, ts timestamp);
insert into tsx select i, timestamp '2020-01-01' + i * interval '6 hours' from generate_series(1, 2000) i;
analyze tsx;
-- A date key searched with a timestamptz outer value (date = timestamptz): the date it is
-- the midnight of, none when it is not one.
create table dk (k int, d date);
insert into dk select i, date '2020-01-01' + (i % 900) from generate_series(1, 30000) i;
create index dk_d on dk (d);
analyze dk;
-- A real column merged with a double precision one: mergejoinscansel widens the real's
-- statistics, and the merge stops where the shorter range ends.
create table rf (id int, r real, f float8);
insert into rf select i, (i % 300) / 7.0, i / 7.0 from generate_series(1, 20000) i;
create index rf_id on rf (id);
analyze rf;
