select dd.k, tzt.id from dd join tzt on tzt.tz = dd.d where dd.k < 5 order by 1, 2
select dd.k, tzt.id from dd join tzt on tzt.ts = dd.d where dd.k < 5 order by 1, 2
select dd.k, count(tzt.id) from dd left join tzt on tzt.tz = dd.d where dd.k < 50 group by dd.k order by 1
select dd.k, tzt.id from dd join tzt on tzt.ts = dd.d where dd.k between 100 and 103 and tzt.id < 9000 order by 1, 2
