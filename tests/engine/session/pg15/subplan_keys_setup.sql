create table p (id int, k int, big bigint, d date, name text, tag varchar(10));
create table q (n numeric, tz timestamptz, t text, v varchar(10), i int, b bigint, x int);
insert into p select i, i % 97, i % 89, date '2024-01-01' + (i % 60), 'n' || (i % 40), 'g' || (i % 30) from generate_series(1, 1000) i;
insert into q select i % 500, timestamptz '2024-01-01 00:00:00+00' + (i % 90) * interval '1 day', 'n' || (i % 400), 'g' || (i % 300), i % 700, i % 600, i from generate_series(1, 20000) i;
create index q_n on q (n);
create index q_tz on q (tz);
create index q_t on q (t);
create index q_v on q (v);
create index q_i on q (i);
create index q_b on q (b);
-- A date key compared with a timestamptz outer value: the date of its midnight.
create index p_d on p (d);
analyze p;
analyze q;
