// node-postgres (the npm package `pg`) against tidepool serve, run by
// ../node_pg_test.py: parameterised queries (the driver's unnamed Parse/Bind/
// Execute), a named prepared statement reused, rows as arrays, the result
// fields the server describes, NULL and text parameters, a transaction, a
// multi-statement simple query and an error's SQLSTATE. Prints one line per
// result for the test to compare with `tidepool sql`.
'use strict';
const { Client } = require('pg');

// Values as text the way `tidepool sql -A -t` prints them.
function cell(v) {
  if (v === null) return '';
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return String(v);
}

async function main() {
  const port = Number(process.argv[2]);
  const c = new Client({ host: '127.0.0.1', port, user: 'tidepool', database: 'tidepool',
                         connectionTimeoutMillis: 10000 });
  await c.connect();
  try {
    await c.query('CREATE TABLE n (a int PRIMARY KEY, b text, f float8, m numeric(8,2))');
    for (let i = 1; i <= 300; i++) {
      await c.query('INSERT INTO n VALUES ($1, $2, $3, $4)',
                    [i, i % 7 === 0 ? null : 's' + i, i / 8, (i / 4).toFixed(2)]);
    }
    console.log('inserted ' + (await c.query('SELECT count(*) FROM n')).rows[0].count);

    const r = await c.query({ text: 'SELECT a, b, f, m FROM n WHERE a = $1', values: [42] });
    console.log('fields ' + r.fields.map((f) => f.name + ':' + f.dataTypeID).join(' '));
    console.log('row ' + [r.rows[0].a, r.rows[0].b, r.rows[0].f, r.rows[0].m].map(cell).join('|'));

    // A named statement: parsed once, then Bind/Execute only (after five runs the
    // server's plan cache may switch to its generic plan).
    for (let lo = 1; lo <= 241; lo += 40) {
      const q = await c.query({ name: 'range', rowMode: 'array',
                                text: 'SELECT a, b FROM n WHERE a BETWEEN $1 AND $2 AND b LIKE $3 ORDER BY a',
                                values: [lo, lo + 29, 's%'] });
      console.log('range ' + lo + ' ' + q.rows.map((row) => row.map(cell).join('|')).join(' '));
    }
    const nulls = await c.query('SELECT count(*) FROM n WHERE b IS NULL OR b = $1', [null]);
    console.log('nulls ' + nulls.rows[0].count);

    // Rows written in a block that rolls back are not seen (tidepool writes with
    // INSERT and COPY only).
    await c.query('BEGIN');
    await c.query('INSERT INTO n VALUES ($1, $2, $3, $4)', [1000, 'gone', 1e6, 0]);
    await c.query('ROLLBACK');
    const multi = await c.query('SELECT sum(f) FROM n; SELECT max(m) FROM n');
    console.log('multi ' + multi.map((res) => cell(res.rows[0][res.fields[0].name])).join(' '));

    try {
      await c.query('INSERT INTO n VALUES ($1, $2, $3, $4)', [5, 'dup', 0, 0]);
      console.log('error none');
    } catch (e) {
      console.log('error ' + e.code + ' ' + e.message);
    }
    const after = await c.query('SELECT b FROM n WHERE a = $1', [5]);
    console.log('after ' + after.rows[0].b);
  } finally {
    await c.end();
  }
}

main().catch((e) => {
  console.error('node client failed: ' + (e.stack || e));
  process.exit(1);
});
