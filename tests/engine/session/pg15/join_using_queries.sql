select k, a, b from ua right join ub using (k) order by k nulls first, b limit 8
select k, b from ua right join ub using (k) where k > 590 order by k
select * from ua right join ub using (k) where a is null order by b limit 5
select k from ua right join ub using (k) join uc using (k) order by k desc limit 4
select k, c from ua join ub using (k) right join uc using (k) where a is null order by k limit 6
select count(*), count(k), max(k) from ua right join ub using (k)
select k, a from ua left join ub using (k) where b is null order by k desc limit 3
select distinct k % 7 as m from ua right join ub using (k) order by 1
select distinct ua.flag, ub.b % 5 as m from ua join ub on ua.k = ub.k where ua.flag = false order by ua.flag desc, m limit 3
select ua.k, ub.b from ua join ub on ua.k = ub.k where ua.flag = true order by ua.flag, ua.k limit 4
select count(*) from ua join ub using (k) where flag = false and flag
