// Ready to distribute by tenant (docs/deployment.md, "Many lenders: distributing by business"):
// read from the catalog of the migrated database, every tenant table (one with a business_id
// column) has business_id NOT NULL, and its primary key, every unique index and every foreign key
// lead with it, a foreign key to another tenant table matching business_id to business_id. That
// is what Citus needs to distribute the tables by business_id, colocated, without a schema change.
// The global tables are listed: a new table is either a tenant's or named here, with its reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { sharedTestDb } from '../helpers/db.ts';

/** Tables without business_id, each global on purpose (reference tables in the Citus step, or the coordinator's own). */
const GLOBAL: Record<string, string> = {
  businesses: 'the tenants themselves: a reference table',
  operators: "the host's staff, across businesses: a reference table",
  schema_migrations: "the migrations applied: the coordinator's own, never distributed",
  login_failures: 'sign-in throttling by account or address, before any business is known: a reference table',
  arca_tickets: "the tax authority's access tickets, one per service for the whole host: a reference table",
};

/**
 * Tenant tables that cannot be distributed as they are: named, with what the Citus step does first.
 * Operators' sessions and set-password links live in the same tables as users' (business_id NULL
 * for an operator), and a distributed table's business_id cannot be NULL.
 */
const NOT_YET: Record<string, string> = {
  sessions: "holds operators' sessions (no business) with users': split before distributing (docs/deployment.md)",
  password_tokens: "holds operators' set-password links (no business) with users': split before distributing",
};

interface Table {
  name: string;
  tenant: boolean;
  businessIdNullable: boolean;
}
interface Key {
  table: string;
  name: string;
  kind: 'primary key' | 'unique' | 'foreign key';
  columns: (string | null)[];
  references: string | null;
  referencedColumns: string[] | null;
}

/** The tables and keys of a schema, from pg_catalog (the same on PostgreSQL and the embedded database). */
async function catalog(db: Kysely<DB>, schema: string): Promise<{ tables: Table[]; keys: Key[] }> {
  const tables = await sql<{ name: string; tenant: boolean; nullable: boolean | null }>`
    SELECT c.relname AS name, a.attname IS NOT NULL AS tenant, NOT a.attnotnull AS nullable
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'business_id' AND NOT a.attisdropped
     WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p') AND NOT c.relispartition
     ORDER BY 1`.execute(db);
  // unique indexes (those behind primary keys and unique constraints, and bare ones: an expression
  // column is null), then foreign keys with the columns they reference, in key order
  const keys = await sql<Key>`
    SELECT t.relname AS "table", i.relname AS name,
           CASE WHEN x.indisprimary THEN 'primary key' ELSE 'unique' END AS kind,
           array(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(n, o)
                   LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n
                  WHERE k.o <= x.indnkeyatts ORDER BY k.o) AS columns,
           NULL AS "references", NULL AS "referencedColumns"
      FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = ${schema} AND x.indisunique
    UNION ALL
    SELECT t.relname, k.conname, 'foreign key',
           array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY c(n, o)
                   JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = c.n ORDER BY c.o),
           r.relname,
           array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY c(n, o)
                   JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = c.n ORDER BY c.o)
      FROM pg_constraint k
      JOIN pg_class t ON t.oid = k.conrelid
      JOIN pg_class r ON r.oid = k.confrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = ${schema} AND k.contype = 'f'
     ORDER BY 1, 2`.execute(db);
  return {
    tables: tables.rows.map((t) => ({ name: t.name, tenant: t.tenant, businessIdNullable: t.nullable === true })),
    keys: keys.rows,
  };
}

/** What keeps these tables from being distributed by business_id, one line each (empty: nothing). */
function violations(c: { tables: Table[]; keys: Key[] }, skip: ReadonlySet<string> = new Set()): string[] {
  const tenant = new Set(c.tables.filter((t) => t.tenant).map((t) => t.name));
  const out: string[] = [];
  for (const t of c.tables) {
    if (skip.has(t.name)) continue;
    const keys = c.keys.filter((k) => k.table === t.name);
    if (!t.tenant) {
      // a reference table cannot point at a distributed one
      for (const k of keys)
        if (k.kind === 'foreign key' && tenant.has(k.references!))
          out.push(`${t.name}: global, but ${k.name} references the tenant table ${k.references}`);
      continue;
    }
    if (t.businessIdNullable) out.push(`${t.name}: business_id may be NULL`);
    if (!keys.some((k) => k.kind === 'primary key')) out.push(`${t.name}: no primary key`);
    for (const k of keys) {
      const columns = `(${k.columns.map((x) => x ?? '<expression>').join(', ')})`;
      if (k.kind !== 'foreign key') {
        if (k.columns[0] !== 'business_id') out.push(`${t.name}: ${k.kind} ${k.name} ${columns}`);
      } else if (tenant.has(k.references!)) {
        // to another tenant table: colocated, business_id to business_id (to a global one, anything goes)
        if (k.columns[0] !== 'business_id') out.push(`${t.name}: foreign key ${k.name} ${columns}`);
        else if (k.referencedColumns![0] !== 'business_id')
          out.push(
            `${t.name}: foreign key ${k.name} matches business_id to ${k.references}.${k.referencedColumns![0]}`,
          );
      }
    }
  }
  return out;
}

test('every tenant table is keyed by business_id first: primary key, unique indexes, foreign keys', async () => {
  const db = await sharedTestDb();
  const c = await catalog(db.kysely, 'public');
  assert.ok(c.tables.length > 20 && c.keys.length > 50, `the catalog was not read (${c.tables.length} tables)`);

  const global = c.tables.filter((t) => !t.tenant).map((t) => t.name);
  assert.deepEqual(
    global,
    Object.keys(GLOBAL).sort(),
    'a table without business_id must be listed in GLOBAL, with why',
  );
  for (const name of Object.keys(NOT_YET))
    assert.ok(
      c.tables.some((t) => t.name === name && t.tenant),
      `${name} is no longer a tenant table: update NOT_YET`,
    );

  const found = violations(c, new Set(Object.keys(NOT_YET)));
  assert.deepEqual(found, [], `not distributable by business_id:\n${found.join('\n')}`);
});

test('the check finds a key that does not lead with business_id, and a foreign key that crosses tenants', async () => {
  const db = await sharedTestDb();
  // temporary tables: one session (the transaction's), seen by nobody else, gone at its end
  await db.kysely
    .transaction()
    .execute(async (trx) => {
      await sql`CREATE TEMP TABLE g (id uuid PRIMARY KEY) ON COMMIT DROP`.execute(trx);
      await sql`CREATE TEMP TABLE a (business_id uuid NOT NULL, id uuid, token text UNIQUE,
                  PRIMARY KEY (business_id, id)) ON COMMIT DROP`.execute(trx);
      await sql`CREATE TEMP TABLE b (business_id uuid, id uuid, a_id uuid, g_id uuid REFERENCES g (id),
                  PRIMARY KEY (id, business_id), UNIQUE (business_id, a_id),
                  FOREIGN KEY (a_id, business_id) REFERENCES a (id, business_id)) ON COMMIT DROP`.execute(trx);
      await sql`CREATE TEMP TABLE n (business_id uuid, k int) ON COMMIT DROP`.execute(trx);
      await sql`CREATE TEMP TABLE r (id uuid PRIMARY KEY, business_id_of uuid, a_business uuid, a_id uuid,
                  FOREIGN KEY (a_business, a_id) REFERENCES a (business_id, id)) ON COMMIT DROP`.execute(trx);
      const schema = (
        await sql<{ s: string }>`SELECT nspname AS s FROM pg_namespace WHERE oid = pg_my_temp_schema()`.execute(trx)
      ).rows[0]!.s;
      const found = violations(await catalog(trx, schema));
      assert.deepEqual(found.sort(), [
        'a: unique a_token_key (token)',
        'b: foreign key b_a_id_business_id_fkey (a_id, business_id)',
        'b: primary key b_pkey (id, business_id)',
        'n: business_id may be NULL',
        'n: no primary key',
        'r: global, but r_a_business_a_id_fkey references the tenant table a',
      ]);
      throw new Rollback();
    })
    .catch((e) => {
      if (!(e instanceof Rollback)) throw e;
    });
});

class Rollback extends Error {}
