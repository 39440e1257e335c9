select count(*) from pgbench_accounts where abalance = 0
select sum(l_extendedprice * (1 - l_discount)) from lineitem where l_shipdate < '1995-01-01'
select count(*), max(o_totalprice) from orders where o_orderstatus = 'F'
select c_custkey, c_acctbal from customer where c_acctbal > 10900 order by c_acctbal desc limit 3
select l_returnflag, l_linestatus from lineitem where l_orderkey < 3 order by l_orderkey, l_linenumber
select count(*) from pgbench_history where mtime < '2026-01-01 02:00'
select aid, filler from pgbench_accounts where aid < 3
select o_orderkey, o_clerk, o_comment from orders where o_orderkey < 4
select count(*) from customer where c_comment like 'mmmm%'
