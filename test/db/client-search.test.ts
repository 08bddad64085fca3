// client_search (migration 051): the database keeps, for each client, what the client search reads
// (docs/benchmarks.md, "The client search's total"), whatever writes the clients: one row or many in a
// statement, an edit of the searched fields or of others, a deletion; and the migration fills it for
// the clients a database already has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { migrate } from '../../src/db/migrate.ts';
import { fold } from '../../src/db/repositories/clients.ts';
import type { DB } from '../../src/db/schema.ts';
import { build } from '../helpers/app.ts';
import { embeddedBefore } from '../helpers/db.ts';

type Row = { id: string; first_name: string | null; last_name: string | null; email: string | null };

/** What client_search should hold for each client of the business, folded in JS, beside what it holds. */
async function both(k: Kysely<DB>, businessId: string) {
  const clients = await sql<Row & { dni: string; cuit: string | null; created_at: Date }>`
    SELECT id, first_name, last_name, email, dni, cuit, created_at FROM clients WHERE business_id = ${businessId}
     ORDER BY id`.execute(k);
  const held = await sql<{ client_id: string; dni: string; cuit: string | null; created_at: Date; folded: string }>`
    SELECT client_id, dni, cuit, created_at, folded FROM client_search WHERE business_id = ${businessId}
     ORDER BY client_id`.execute(k);
  const want = clients.rows.map((c) => ({
    client_id: c.id,
    dni: c.dni,
    cuit: c.cuit,
    created_at: c.created_at,
    folded: fold(`${c.first_name ?? ''} ${c.last_name ?? ''} ${c.first_name ?? ''}\u0001${c.email ?? ''}`),
  }));
  return { want, held: held.rows };
}

const withActor = (k: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<unknown>) =>
  k.transaction().execute(async (trx) => {
    await sql`select set_config('app.actor', 'test', true)`.execute(trx);
    await fn(trx);
  });

test('client_search follows inserts of many rows, edits and deletions of clients', async (t) => {
  const h = await build(t);
  const k = h.db.kysely;
  const bid = h.tenant.businessId;
  const check = async (what: string, n: number) => {
    const { want, held } = await both(k, bid);
    assert.equal(want.length, n, `${what}: clients`);
    assert.deepEqual(held, want, what);
  };
  await withActor(k, (trx) =>
    sql`INSERT INTO clients (business_id, dni, cuit, first_name, last_name, email)
        VALUES (${bid}, '1', NULL, 'Ñandú', 'Ávila Çelik', 'A@B.com'),
               (${bid}, '2', '20000000028', NULL, 'Ríos', NULL),
               (${bid}, '3', NULL, 'Eugenia', NULL, 'eu@x.com'),
               (${bid}, '4', NULL, NULL, NULL, NULL)`.execute(trx),
  );
  await check('a statement of four clients', 4);
  await withActor(k, (trx) =>
    sql`UPDATE clients SET last_name = upper(coalesce(last_name, 'x')), dni = dni || '0'
         WHERE business_id = ${bid} AND dni IN ('1', '2')`.execute(trx),
  );
  await check('an edit of two clients', 4);
  await withActor(k, (trx) =>
    sql`UPDATE clients SET cuit = '20000000036', email = 'nuevo@x.com' WHERE business_id = ${bid} AND dni = '3'`.execute(
      trx,
    ),
  );
  await check('an edit of the cuit and the email', 4);
  await withActor(k, (trx) => sql`UPDATE clients SET city = 'Tandil' WHERE business_id = ${bid}`.execute(trx));
  await check('an edit of a field the search does not read', 4);
  await withActor(k, (trx) => sql`DELETE FROM clients WHERE business_id = ${bid} AND dni = '4'`.execute(trx));
  await check('a deletion', 3);
  const folded = (await both(k, bid)).held.map((r) => r.folded).sort();
  assert.deepEqual(folded, [
    ' rios \u0001',
    'eugenia  eugenia\u0001nuevo@x.com',
    'nandu avila celik nandu\u0001a@b.com',
  ]);
});

test('migration 051 fills client_search for the clients a database has', async (t) => {
  const db = await embeddedBefore(t, '051');
  const k = db.kysely;
  const bid = (await sql<{ id: string }>`INSERT INTO businesses (name) VALUES ('old') RETURNING id`.execute(k)).rows[0]!
    .id;
  await withActor(k, (trx) =>
    sql`INSERT INTO clients (business_id, dni, cuit, first_name, last_name, email)
        VALUES (${bid}, '10', '20000000109', 'José', 'Gómez', 'jose@x.com'), (${bid}, '11', NULL, NULL, NULL, NULL)`.execute(
      trx,
    ),
  );
  await migrate(db);
  const { want, held } = await both(k, bid);
  assert.equal(held.length, 2, 'both clients');
  assert.deepEqual(held, want);
  assert.deepEqual(held.map((r) => r.folded).sort(), ['  \u0001', 'jose gomez jose\u0001jose@x.com']);
});
