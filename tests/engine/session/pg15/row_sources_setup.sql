create table tt (a int, b bigint, s smallint, n numeric(8,2), r real, f float8, t text, v varchar(6), c char(3), d date, ts timestamp, iv interval, bo boolean);
