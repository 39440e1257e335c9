select r.rid, s.line from r join lateral (select l.line from l where l.oid = r.rid order by l.line limit 2) s on true order by 1, 2
select r.rid, s.oid from r, lateral (select l.oid from l where l.qty = r.rid order by l.oid limit 1) s order by 1
select o.id, c.name, s.line from o join c on o.cust = c.cid, lateral (select l.line from l where l.oid = o.id order by l.line desc limit 1) s where o.id < 50 order by o.id
select r.rid, s.id from r, lateral (select o.id from o where o.cust = r.rid order by o.id limit 2) s order by 1, 2
