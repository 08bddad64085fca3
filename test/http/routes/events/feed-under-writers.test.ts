// The change feed (docs/events.md): every event type a scripted day causes, each
// object as its own read returns it, in order, per business only; and a poller racing many
// concurrent writers sees every event exactly once (on PostgreSQL the writers' transactions
// really interleave; the embedded database runs them one at a time).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock, type Harness } from '../../../helpers/app.ts';
import { P35, accrue, client, credit, pay, plan } from '../../../helpers/book-in-cents.ts';

async function feed(h: Harness, query = '', key?: string): Promise<{ items: any[]; next_after: number }> {
  const res = await h.get(`/api/events${query}`, key);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/** Every event after `after`, page by page. */
async function drain(h: Harness, after = 0, types?: string): Promise<any[]> {
  const out: any[] = [];
  for (;;) {
    const page = await feed(h, `?after=${after}&limit=100${types ? `&types=${types}` : ''}`);
    out.push(...page.items);
    if (page.items.length === 0) {
      assert.equal(page.next_after, after, 'an empty page keeps the cursor');
      return out;
    }
    after = page.next_after;
    assert.equal(after, page.items.at(-1).sequence);
  }
}

const typesOf = (events: any[]) => events.map((e) => e.type);

test('a scripted day: each change is one event, in commit order, with the object as its read returns it', async (t) => {
  const clock = settableClock('2026-03-01');
  const h = await build(t, { clock });
  assert.deepEqual(await feed(h), { items: [], next_after: 0 });

  const p = await plan(h, P35);
  const b = json(await h.post('/api/branches', { name: 'Centro' }));
  const c = await client(h);
  const edited = json(await h.put(`/api/clients/${c.id}`, { first_name: 'Ana' }));
  const cr = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01', branch_id: b.id });
  const before = await drain(h);
  assert.deepEqual(typesOf(before), [
    'plan.created',
    'branch.created',
    'client.created',
    'client.updated',
    'credit.created',
  ]);
  assert.deepEqual(
    before.map((e) => e.sequence),
    [1, 2, 3, 4, 5],
    'sequences are dense from 1',
  );
  assert.deepEqual(before[0].data.object, p);
  assert.deepEqual(before[1].data.object, b);
  assert.deepEqual(before[2].data.object, c);
  assert.deepEqual(before[3].data.object, edited);
  assert.deepEqual(before[4].data.object, cr.credit);
  for (const e of before) {
    assert.match(e.id, /^[0-9a-f-]{36}$/);
    assert.ok(!Number.isNaN(Date.parse(e.created_at)), 'holds: !Number.isNaN(Date.parse(e.created_at))');
  }

  // the daily run the day after the first due date (2026-03-31): installment 1 becomes late
  clock.set('2026-04-01');
  const mine = ['--business', h.tenant.businessId];
  const run = await accrue(h, ...mine);
  assert.equal(run.code, 0, run.err);
  assert.equal(run.out.businesses[0].overdue_announced, 1);
  const overdue = await drain(h, 5);
  assert.deepEqual(typesOf(overdue), ['installment.overdue']);
  const late = overdue[0].data.object;
  assert.equal(late.credit_id, cr.credit.id);
  assert.equal(late.number, 1);
  assert.equal(late.overdue, true);
  assert.equal(late.days_late, 1);
  assert.equal(late.client_id, c.id);
  // the worklist's item of that day is the same document
  const worklist = json(await h.get('/api/installments?overdue=true'));
  assert.deepEqual(worklist.items[0], late);
  // another run the same day, or the next (nothing else fell due), announces nothing again
  await accrue(h, ...mine);
  clock.set('2026-04-02');
  assert.equal((await accrue(h, ...mine)).out.businesses[0].overdue_announced, 0);
  assert.deepEqual(await drain(h, 6), []);

  // a payment (with the punitory accrued to its date), a reversal, then the rest paid: closed
  const paid = await pay(h, cr.credit.id, { amount: 200 });
  const afterPay = await drain(h, 6);
  assert.deepEqual(typesOf(afterPay), ['punitory.posted', 'payment.created']);
  const payments = json(await h.get(`/api/credits/${cr.credit.id}/payments`));
  assert.deepEqual(afterPay[1].data.object, payments[0]);
  assert.equal(afterPay[1].data.object.credit_id, cr.credit.id);
  const punitoryEntry = paid.ledgerEntries.find((e: any) => e.type === 'punitory');
  assert.deepEqual(afterPay[0].data.object, punitoryEntry);

  const rev = await h.post(`/api/credits/${cr.credit.id}/payments/${payments[0].id}/reverse`, { reason: 'bounced' });
  assert.equal(rev.statusCode, 200, rev.body);
  const afterReverse = await drain(h, afterPay.at(-1).sequence);
  assert.deepEqual(typesOf(afterReverse), ['payment.reversed']);
  const reversedRead = json(await h.get(`/api/credits/${cr.credit.id}/payments`))[0];
  assert.deepEqual(afterReverse[0].data.object, reversedRead);
  assert.equal(reversedRead.reversal_reason, 'bounced');

  const payoff = json(await h.get(`/api/credits/${cr.credit.id}/payoff`));
  await pay(h, cr.credit.id, { amount: payoff.amount });
  const closing = await drain(h, afterReverse.at(-1).sequence);
  assert.deepEqual(typesOf(closing).slice(-2), ['payment.created', 'credit.status_changed']);
  const changed = closing.at(-1);
  assert.equal(changed.data.previous_status, 'active');
  assert.equal(changed.data.object.status, 'closed');
  assert.deepEqual(changed.data.object, json(await h.get(`/api/credits/${cr.credit.id}`)).credit);

  // branch edits and deletion, plan edits; an edit that changes nothing announces nothing
  const seq = closing.at(-1).sequence;
  await h.put(`/api/branches/${b.id}`, { phone: '123' });
  await h.del(`/api/branches/${b.id}`);
  await h.del(`/api/branches/${b.id}`);
  await h.put(`/api/credit-configs/${p.id}`, { name: 'renamed' });
  await h.put(`/api/credit-configs/${p.id}`, {});
  assert.deepEqual(typesOf(await drain(h, seq)), ['branch.updated', 'branch.deleted', 'plan.updated']);

  // filtered by type, and the filter's validation
  const onlyClients = await drain(h, 0, 'client.created,client.updated');
  assert.deepEqual(typesOf(onlyClients), ['client.created', 'client.updated']);
  const bad = await h.get('/api/events?types=client.created,nope');
  assert.equal(bad.statusCode, 400);
  assert.equal(json(bad).code, 'validation_failed');
  for (const q of ['?after=-1', '?after=x', '?limit=0', '?limit=101', '?other=1']) {
    const r = await h.get(`/api/events${q}`);
    assert.equal(r.statusCode, 400, q);
  }

  // another business sees none of these, and its own sequence starts at 1
  const other = await h.newTenant();
  assert.deepEqual(await feed(h, '', other.fullKey), { items: [], next_after: 0 });
  await h.post('/api/clients', { dni: '30111222', first_name: 'Otro' }, other.fullKey);
  const theirs = await feed(h, '', other.fullKey);
  assert.deepEqual(
    theirs.items.map((e: any) => [e.sequence, e.type]),
    [[1, 'client.created']],
  );
});

test('write-offs, cancels and refinances announce the status change; a failed write announces nothing', async (t) => {
  const h = await build(t, { clock: settableClock('2026-03-01') });
  const p = await plan(h, P35);
  const c = await client(h);
  const a = await credit(h, c.id, { credit_config_id: p.id, amount: 1000 });
  const b = await credit(h, c.id, { credit_config_id: p.id, amount: 1000 });
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000 });
  const start = (await drain(h)).at(-1).sequence;

  assert.equal((await h.post(`/api/credits/${a.credit.id}/write-off`, { reason: 'fraud' })).statusCode, 200);
  assert.equal((await h.post(`/api/credits/${b.credit.id}/cancel`)).statusCode, 200);
  const refi = await h.post(`/api/credits/${d.credit.id}/refinance`, { credit_config_id: p.id });
  assert.equal(refi.statusCode, 201, refi.body);
  // refused writes: nothing
  assert.equal((await h.post(`/api/credits/${b.credit.id}/cancel`)).statusCode, 409);
  assert.equal((await h.post(`/api/credits/${b.credit.id}/payments`, { amount: 10 })).statusCode, 409);
  assert.equal((await h.post('/api/clients', { dni: c.dni, first_name: 'dup' })).statusCode, 409);

  const events = await drain(h, start);
  assert.deepEqual(
    events.map((e) => [e.type, e.data.object.id, e.data.previous_status, e.data.object.status]),
    [
      ['credit.status_changed', a.credit.id, 'active', 'written_off'],
      ['credit.status_changed', b.credit.id, 'active', 'inactive'],
      ['credit.status_changed', d.credit.id, 'active', 'refinanced'],
      ['credit.created', json(refi).credit.id, undefined, 'active'],
    ],
  );
});

test("pollers racing many concurrent writers of one business see every event exactly once, each credit's in commit order", async (t) => {
  const h = await build(t);
  const p = await plan(h, P35);
  const credits = await Promise.all(
    Array.from(
      { length: 6 },
      async () => (await credit(h, (await client(h)).id, { credit_config_id: p.id, amount: 1000 })).credit.id,
    ),
  );
  const start = (await drain(h)).at(-1).sequence;

  // two pollers with different page sizes, each storing next_after as its cursor; a poller that
  // ever got sequence n+1 before n, or one twice, fails below
  let writing = true;
  const poller = async (limit: number) => {
    const seen: any[] = [];
    let after = start;
    for (;;) {
      const stop = !writing; // one last poll after the writers are done
      const page = await feed(h, `?after=${after}&limit=${limit}`);
      seen.push(...page.items);
      after = page.next_after;
      if (stop && page.items.length === 0) return seen;
      if (page.items.length === 0) await new Promise((r) => setTimeout(r, 1));
    }
  };
  const pollers = [poller(7), poller(100)];

  // on PostgreSQL these are transactions of one business in flight together on every connection of
  // the pool: a chain of payments per credit (each waits for the previous one's answer, so the
  // credit's commit order is known: amounts 1.01, 1.02, …), payments racing on one credit (its row
  // lock orders them), clients created and edited
  const chain = 5;
  const chains = credits.slice(1).map(async (id) => {
    for (let i = 1; i <= chain; i++) await pay(h, id, { amount: 1 + i / 100 });
  });
  const racing = Array.from({ length: 8 }, () => pay(h, credits[0]!, { amount: 2 }));
  const others = Array.from({ length: 24 }, async (_, i) => {
    const c = await client(h);
    if (i % 2) assert.equal((await h.put(`/api/clients/${c.id}`, { first_name: `n${i}` })).statusCode, 200);
  });
  await Promise.all([...chains, ...racing, ...others]);
  writing = false;
  const seen = await Promise.all(pollers);

  const all = await drain(h, start);
  // 5 chains of 5 payments, 8 racing payments, 24 clients of which 12 edited
  assert.equal(all.length, 5 * chain + 8 + 24 + 12);
  assert.deepEqual(
    all.map((e) => e.sequence),
    Array.from({ length: all.length }, (_, i) => start + 1 + i),
    'dense, from where the feed was',
  );
  for (const s of seen)
    assert.deepEqual(
      s.map((e) => e.id),
      all.map((e) => e.id),
      'each poller saw each event once, in order',
    );
  const paymentsOf = (id: string) =>
    all.filter((e) => e.type === 'payment.created' && e.data.object.credit_id === id).map((e) => e.data.object.amount);
  for (const id of credits.slice(1))
    assert.deepEqual(
      paymentsOf(id),
      Array.from({ length: chain }, (_, i) => 1 + (i + 1) / 100),
      "a credit's events in its commit order",
    );
  assert.equal(paymentsOf(credits[0]!).length, 8);
  // each client's edit after its creation
  const at = new Map(all.map((e, i) => [`${e.type}:${e.data.object.id}`, i]));
  for (const e of all.filter((x) => x.type === 'client.updated'))
    assert.ok(
      at.get(`client.created:${e.data.object.id}`)! < at.get(`client.updated:${e.data.object.id}`)!,
      "a client's client.created comes before its client.updated",
    );
});

test('an edit that changes nothing announces nothing; the first daily run announces what was already late', async (t) => {
  const clock = settableClock('2026-03-01');
  const h = await build(t, { clock });
  const p = await plan(h, P35);
  const c = await client(h);
  const branch = json(await h.post('/api/branches', { name: 'Centro' }));
  const start = (await drain(h)).at(-1).sequence;

  // the same values PUT back: no event; a real change: one
  assert.equal((await h.put(`/api/clients/${c.id}`, { first_name: c.first_name })).statusCode, 200);
  assert.equal((await h.put(`/api/credit-configs/${p.id}`, { name: p.name })).statusCode, 200);
  assert.equal((await h.put(`/api/branches/${branch.id}`, { name: 'Centro' })).statusCode, 200);
  assert.deepEqual(await drain(h, start), []);
  assert.equal((await h.put(`/api/branches/${branch.id}`, { name: 'Centro 2' })).statusCode, 200);
  assert.deepEqual(typesOf(await drain(h, start)), ['branch.updated']);

  // a credit granted with a past start date: its first installment is already late when the
  // business's first daily run happens, days after it fell due
  const cr = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-01-01' });
  const before = (await drain(h)).at(-1).sequence;
  clock.set('2026-03-10');
  const run = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(run.code, 0, run.err);
  const late = (await drain(h, before)).filter((e) => e.type === 'installment.overdue');
  assert.equal(run.out.businesses[0].overdue_announced, late.length);
  assert.ok(late.length >= 1, 'the late installments are announced');
  assert.ok(
    late.every((e) => e.data.object.credit_id === cr.credit.id),
    'every e of late: e.data.object.credit_id === cr.credit.id',
  );
  // and only once
  clock.set('2026-03-11');
  const again = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(again.out.businesses[0].overdue_announced, 0);
});

test('the feed refuses what it cannot serve with a 400: a sequence beyond any, blank types', async (t) => {
  const h = await build(t);
  for (const q of ['?after=99999999999999999999', '?after=-1', '?types=%20', '?types=,', '?types=x']) {
    const res = await h.get(`/api/events${q}`);
    assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed', q);
  }
});
