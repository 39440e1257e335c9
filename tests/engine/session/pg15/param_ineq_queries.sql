select count(*), sum(ji.id) from jo join ji on ji.a <= jo.lo where jo.k < 3
select count(*), sum(ji.id) from jo join ji on jo.lo > ji.a where jo.k < 3
select count(*), sum(ji.id) from jo join ji on ji.a >= jo.lo and ji.a < jo.hi where jo.k < 50
select jo.k, count(ji.id) from jo join ji on ji.a > jo.lo and ji.a <= jo.hi where jo.k between 10 and 30 group by jo.k order by 1
select count(*), sum(ji.id) from jo join ji on ji.a < jo.lo where jo.k < 300
select jo.k, ji.id from jo join ji on ji.c = jo.s and ji.a < jo.lo where jo.k < 6 order by 1, 2
select jo.k, ji.id from jo join ji on ji.b >= jo.big and ji.b <= jo.big + 1 where jo.k < 5 order by 1, 2
select jo.k, ji.id from jo join ji on ji.b < jo.lo where jo.k < 3 and ji.id < 200 order by 1, 2
select jo.k, count(*) from jo join ji on ji.n <= jo.s where jo.k < 8 group by jo.k order by 1
select jo.k, ji.id from jo left join ji on ji.a <= jo.lo and ji.id < 30 where jo.k < 5 order by 1, 2
select count(*) from jo where exists (select 1 from ji where ji.a < jo.lo and ji.id = 7)
select count(*) from jo where not exists (select 1 from ji where ji.a <= jo.lo) and jo.k < 100
select dd.k, count(*) from dd join tzt on tzt.tz >= dd.d where dd.k < 4 group by dd.k order by 1
select dd.k, count(*) from dd join tzt on dd.d > tzt.ts where dd.k < 4 group by dd.k order by 1
select dd.k, count(*) from dd join tzt on tzt.tz < dd.ts and tzt.tz >= dd.d where dd.k < 30 group by dd.k order by 1
select dd.k, count(*) from dd join tzt on tzt.ts <= dd.ts and tzt.ts > dd.d where dd.k < 30 group by dd.k order by 1
select dd.k, count(*) from dd join tzt on tzt.ts >= dd.ts where dd.k < 4 and tzt.id % 7 = 0 group by dd.k order by 1
select dd.k, count(*) from dd join tzt on tzt.id <= dd.k where dd.k < 3 group by dd.k order by 1
select jo.k, ji.id, ji.a from jo join ji on ji.a between jo.lo and jo.hi where jo.k < 4 order by 1, 2
select count(*), sum(ji.id) from jo join ji on ji.a between jo.lo and jo.hi and ji.c between jo.k and jo.s where jo.k < 40
select count(*), sum(ji.id) from jo left join ji on ji.a between jo.lo and jo.hi and ji.c between jo.k and jo.s where jo.k < 40
select count(*), sum(ji.id) from jo join ji on jo.k between ji.c and ji.a where jo.k < 40
select count(*) from jo join ji on ji.a not between jo.lo and jo.hi where jo.k < 3
select vo.k, count(*) from vo join vi on vi.v <= vo.t where vo.k < 4 group by vo.k order by 1
select vo.k, count(*) from vo join vi on vo.w < vi.v where vo.k < 4 group by vo.k order by 1
select vo.k, count(*) from vo join vi on vi.v >= vo.t and vi.v < vo.w where vo.k < 40 group by vo.k order by 1
select count(*), sum(id) from ji where c = (select max(c) from ji)
select count(*), sum(ji.id) from jo join ji on ji.a <= jo.lo where jo.k < 3 and ji.c = (select max(c) from ji)
select count(*), sum(ji.id) from jo join ji on ji.a <= jo.lo where jo.k < 30 and ji.c = (select max(k) from jo where k < 5)
select count(*), sum(ji.id) from jo join ji on ji.a = jo.lo where jo.k < 300 and ji.c = (select max(k) from jo where k < 5)
