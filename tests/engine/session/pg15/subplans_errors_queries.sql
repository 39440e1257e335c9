select id from t where k = (select k from u)
select id, (select x from u where z = 1) from t
select id from t where k = (select k, x from u where x = 1)
select count(*) from t where v not in (select z, k from u)
select id, (select x from u where u.k = t.k) from t where id < 3
