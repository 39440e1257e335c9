select id from o union select id, cust from o
select id from o union select note from o
select id from o union select id from o order by id + 1
select id from o union select id from o order by nosuch
select id from o union select id from o order by o.id
select id from o union select id from o order by 2
select id from o union select placed from o
select nosuch from o union select id from o
select id from o union select id from nosuch
