select 1
select 1, 'a'
select 1 + 2 * 3 as seven
select 'abc' || 'd', 2.5
select current_date > '2020-01-01', 1.5::float4, true, 'x'::varchar(10), 'y'::char(3)
select interval '1 day', 12::smallint, 2::bigint, 3.25::numeric(5,2)
select upper('a') as u, abs(-2.5), length(md5('x'))
select random() < 2
select length(md5(random()::text)) > 0
select round(random() * 0) + 7
select null
select null::int, null::text
select 'x'::text || 1
select 2 > 1 and 3 < 4
select coalesce(null, 5)
select case when random() > 2 then 'a' else 'b' end
