// The disclosed cost stored with the credit (migration 045, docs/lending-engine.md "The disclosed
// cost"): a grant, a refinance and the backfill store what the schedule gives when solved again
// (src/services/present.ts computeCost, from the rows as the database holds them), and the answers
// show the same figures whether they come stored or computed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { runCli } from '../../../src/cli/main.ts';
import { computeCost } from '../../../src/services/present.ts';
import { build, json, settableClock, type Harness } from '../../helpers/app.ts';
import { P35, client, credit, detail, pay, plan } from '../../helpers/book-in-cents.ts';

const FRENCH = { amortization: 'french', interest_rate: 1.2, vat_rate: 0.21, installments_count: 12 };

/** The stored figures and the figures solved again from the credit's rows, both as numbers. */
async function storedAndComputed(h: Harness, creditId: string) {
  const bid = h.tenant.businessId;
  const c = await h.db.kysely
    .selectFrom('credits')
    .selectAll()
    .where('business_id', '=', bid)
    .where('id', '=', creditId)
    .executeTakeFirstOrThrow();
  const installments = await h.db.kysely
    .selectFrom('installments')
    .selectAll()
    .where('business_id', '=', bid)
    .where('credit_id', '=', creditId)
    .orderBy('number')
    .execute();
  const cost = computeCost(c, installments);
  const num = (v: string | null) => (v === null ? null : Number(v));
  return {
    row: c,
    stored: { tna: num(c.tna), tea: num(c.tea), cft_tea: num(c.cft_tea) },
    computed: { tna: cost.tna.toNumber(), tea: cost.tea.toNumber(), cft_tea: cost.cft_tea?.toNumber() ?? null },
  };
}

async function backfill(h: Harness, ...args: string[]) {
  let out = '';
  let err = '';
  const io = {
    stdout: new Writable({ write: (c, _e, cb) => ((out += c.toString()), cb()) }),
    stderr: new Writable({ write: (c, _e, cb) => ((err += c.toString()), cb()) }),
    stderrIsTTY: false,
  };
  const code = await runCli(['backfill-cost', '--json', ...args], io, {
    db: h.db,
    storage: h.app.storage,
    config: h.config,
    clock: h.clock,
  });
  return { code, out: out ? JSON.parse(out) : null, err };
}

test('a grant stores the disclosed cost it discloses: flat and french, with and without an origination fee', async (t) => {
  const h = await build(t, { clock: settableClock('2026-03-01') });
  const c = await client(h);
  const plans = [
    await plan(h, P35),
    await plan(h, FRENCH),
    await plan(h, { ...P35, vat_rate: 0.21, fees: [{ type: 'origination', rate: 0.05, vat: true }] }),
    await plan(h, { ...FRENCH, fees: [{ type: 'origination', amount: 100, vat: false, financed: true }] }),
    await plan(h, { ...P35, fees: [{ type: 'origination', rate: 0.03, vat: true, financed: true }] }),
  ];
  const seen = new Set<string>();
  for (const p of plans) {
    const d = await credit(h, c.id, { credit_config_id: p.id, amount: 100_000, start_date: '2026-03-01' });
    const { stored, computed } = await storedAndComputed(h, d.credit.id);
    assert.notEqual(stored.tna, null, 'a new credit has its cost stored');
    assert.deepEqual(stored, computed);
    // the answer of the grant and a read show it
    assert.deepEqual(d.cost, stored);
    assert.deepEqual((await detail(h, d.credit.id)).cost, stored);
    seen.add(JSON.stringify(stored));
  }
  // five different credits, five different costs: the figures are each credit's own
  assert.equal(seen.size, plans.length);
});

test('a payment answers with the stored cost; a credit without it shows the same cost computed', async (t) => {
  const h = await build(t, { clock: settableClock('2026-04-15') });
  const c = await client(h);
  const p = await plan(h, { ...FRENCH, fees: [{ type: 'origination', rate: 0.04, vat: true }] });
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 50_000, start_date: '2026-03-01' });
  const paid = await pay(h, d.credit.id, { amount: 1000 });
  assert.deepEqual(paid.cost, d.cost);
  // as a credit granted before migration 045: no figures, computed on read
  await sql`UPDATE credits SET tna = NULL, tea = NULL, cft_tea = NULL WHERE id = ${d.credit.id}`.execute(h.db.kysely);
  assert.equal((await storedAndComputed(h, d.credit.id)).stored.tna, null);
  assert.deepEqual((await detail(h, d.credit.id)).cost, d.cost);
  assert.deepEqual((await pay(h, d.credit.id, { amount: 10 })).cost, d.cost);
});

test("a refinance stores the new credit's cost", async (t) => {
  const h = await build(t, { clock: settableClock('2026-05-20') });
  const c = await client(h);
  const p = await plan(h, P35);
  const p2 = await plan(h, { ...FRENCH, fees: [{ type: 'origination', rate: 0.02, vat: true, financed: true }] });
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  const res = await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: p2.id });
  assert.equal(res.statusCode, 201, res.body);
  const n = json(res);
  const { stored, computed } = await storedAndComputed(h, n.credit.id);
  assert.notEqual(stored.tna, null);
  assert.deepEqual(stored, computed);
  assert.deepEqual(n.cost, stored);
});

test('lending backfill-cost fills the credits without figures with the computed ones, leaving updated_at and the others alone', async (t) => {
  const h = await build(t, { clock: settableClock('2026-03-01') });
  const c = await client(h);
  const plans = [
    await plan(h, P35),
    await plan(h, FRENCH),
    await plan(h, { ...P35, vat_rate: 0.21, fees: [{ type: 'origination', rate: 0.05, vat: true }] }),
  ];
  const ids: string[] = [];
  for (const p of plans)
    for (const amount of [1000, 25_000])
      ids.push((await credit(h, c.id, { credit_config_id: p.id, amount, start_date: '2026-03-01' })).credit.id);
  const before = new Map<string, Awaited<ReturnType<typeof storedAndComputed>>>();
  for (const id of ids) before.set(id, await storedAndComputed(h, id));
  // all but the last as granted before migration 045
  const old = ids.slice(0, -1);
  await sql`UPDATE credits SET tna = NULL, tea = NULL, cft_tea = NULL WHERE id IN (${sql.join(old)})`.execute(
    h.db.kysely,
  );
  const r = await backfill(h, '--business', h.tenant.businessId, '--batch', '2');
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(r.out.businesses, [{ business_id: h.tenant.businessId, credits_filled: old.length }]);
  for (const id of ids) {
    const { row, stored, computed } = await storedAndComputed(h, id);
    assert.deepEqual(stored, computed);
    assert.deepEqual(stored, before.get(id)!.stored);
    // nothing a lender sees changed: the credit does not come back in the lists with updated_since
    assert.equal(new Date(row.updated_at).getTime(), new Date(before.get(id)!.row.updated_at).getTime());
  }
  // again: nothing left to fill
  const again = await backfill(h, '--business', h.tenant.businessId);
  assert.deepEqual(again.out.businesses, [{ business_id: h.tenant.businessId, credits_filled: 0 }]);
  assert.equal((await backfill(h, '--business', 'nope')).code, 2);
});
