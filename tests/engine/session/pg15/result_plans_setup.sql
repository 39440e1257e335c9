create table unused (a int);
