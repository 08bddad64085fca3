// The client read (GET /api/clients/{id}) is JSON built by the database in one statement
// (src/db/repositories/documents.ts); the credit read, the client's credits and the file upload
// answer with records built in TypeScript (src/services/present.ts, ledgerState.ts). On random
// books (every punitory mode, grace, caps, maximum days, partial and backdated payments,
// write-offs, cancellations, files with names a URL must escape) read on random later days, the
// two must show the same records, key for key and to the cent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { addDays } from '../../src/domain/index.ts';
import { build, json, settableClock } from '../helpers/app.ts';
import { pdf } from '../helpers/file-fixtures.ts';
import { upload } from '../helpers/files.ts';
import { client, credit, plan } from '../helpers/book.ts';

const START = '2025-01-10';

const planArb = fc.record({
  installments_count: fc.integer({ min: 1, max: 6 }),
  days_until_first_payment: fc.integer({ min: 0, max: 40 }),
  cut_type: fc.constantFrom('fixed', 'monthly'),
  payment_day: fc.integer({ min: 1, max: 28 }),
  interest_rate: fc.constantFrom(0, 0.1, 0.35),
  daily_punitory_rate: fc.constantFrom(0, 0.001, 0.005, 0.02),
  punitory_mode: fc.constantFrom('simple_outstanding', 'compound', 'full_amount'),
  grace_days: fc.integer({ min: 0, max: 5 }),
  max_punitory_days: fc.constantFrom(0, 10, 60),
  punitory_cap_pct: fc.constantFrom(0, 5, 30),
});

const creditArb = fc.record({
  plan: fc.nat(2),
  amount: fc.integer({ min: 100, max: 50_000 }),
  startOffset: fc.integer({ min: 0, max: 20 }),
  // payments: [days after the credit's start, share of what the credit owes in cents]
  payments: fc.array(fc.tuple(fc.integer({ min: 0, max: 150 }), fc.integer({ min: 1, max: 60 })), { maxLength: 4 }),
  end: fc.constantFrom('none', 'none', 'write-off', 'cancel'),
});

const NAMES = ['dni frente.pdf', 'recibo #3 (copia) 100%.pdf', 'contrato+anexo&más.pdf', 'año_2025 ñandú.pdf'];

test('the client read built by the database equals the records built in TypeScript', async (t) => {
  const clock = settableClock(START);
  const h = await build(t, { clock, timezone: 'America/Argentina/Buenos_Aires' });
  await fc.assert(
    fc.asyncProperty(
      fc.array(planArb, { minLength: 3, maxLength: 3 }),
      fc.array(creditArb, { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 0, max: 240 }),
      fc.subarray(NAMES, { maxLength: 2 }),
      async (plans, credits, readOffset, names) => {
        clock.set(START);
        const ps = [];
        for (const p of plans) ps.push(await plan(h, p));
        const c = await client(h);
        const ids: string[] = [];
        for (const k of credits) {
          const start = addDays(START, k.startOffset);
          clock.set(start);
          const made = await credit(h, c.id, { credit_config_id: ps[k.plan].id, amount: k.amount, start_date: start });
          ids.push(made.credit.id);
          // payments in the order given: a later one may be dated before an earlier one (backdated)
          for (const [after, pct] of k.payments) {
            const day = addDays(start, after);
            clock.set(addDays(day, 3));
            const owed = json(await h.get(`/api/credits/${made.credit.id}`)).balance.outstanding;
            const amount = Math.floor(owed * pct) / 100;
            if (amount > 0) await h.post(`/api/credits/${made.credit.id}/payments`, { amount, paid_on: day });
          }
          if (k.end !== 'none') await h.post(`/api/credits/${made.credit.id}/${k.end}`, { reason: 'test' });
        }
        const files = [];
        for (const name of names) {
          const res = await upload(h, c.id, name, pdf());
          assert.equal(res.statusCode, 201, res.body);
          files.push(json(res));
        }

        clock.set(addDays(START, 150 + readOffset));
        const res = await h.get(`/api/clients/${c.id}`);
        assert.equal(res.statusCode, 200);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        const detail = json(res);
        assert.deepEqual(detail.client, json(await h.get(`/api/clients/${c.id}`)).client);
        assert.deepEqual(detail.credits, json(await h.get(`/api/clients/${c.id}/credits`)));
        const installments = [];
        const entries = [];
        for (const id of [...ids].sort()) {
          const read = json(await h.get(`/api/credits/${id}`));
          installments.push(...read.installments);
          entries.push(...read.ledgerEntries);
        }
        assert.deepEqual(detail.installments, installments);
        // the ledger of all the client's credits in the order written (created_at first)
        const byId = (a: any, b: any) => a.id.localeCompare(b.id);
        assert.deepEqual([...detail.ledgerEntries].sort(byId), [...entries].sort(byId));
        assert.deepEqual(detail.files, files);
      },
    ),
    { numRuns: 12, seed: 20261123 },
  );
});

test('a client of another business, or none, is a 404 Error', async (t) => {
  const h = await build(t);
  const c = await client(h);
  const other = await h.newTenant();
  const res = await h.get(`/api/clients/${c.id}`, other.fullKey);
  assert.equal(res.statusCode, 404);
  assert.equal(typeof json(res).error, 'string');
  assert.equal((await h.get('/api/clients/00000000-0000-4000-8000-000000000000')).statusCode, 404);
});

test("a read never sees, nor joins, another request's transaction that is still open", async (t) => {
  const h = await build(t);
  const c = await client(h);
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  let changed!: () => void;
  const inside = new Promise<void>((r) => {
    changed = r;
  });
  // a write that changes the client and then waits, and is rolled back
  const write = h.db.kysely
    .transaction()
    .execute(async (trx) => {
      await sql`UPDATE clients SET first_name = 'Uncommitted' WHERE id = ${c.id}`.execute(trx);
      changed();
      await held;
      throw new Error('rolled back');
    })
    .catch(() => {});
  await inside;
  const read = h.get(`/api/clients/${c.id}`);
  const credits = h.get(`/api/clients/${c.id}/credits`);
  await new Promise((r) => setTimeout(r, 50));
  release();
  await write;
  const detail = json(await read);
  assert.equal(detail.client.first_name, 'Test');
  assert.equal((await credits).statusCode, 200);
  assert.equal(json(await h.get(`/api/clients/${c.id}`)).client.first_name, 'Test');
});
