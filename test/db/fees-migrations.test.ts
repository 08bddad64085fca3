// Migrations 045 (the disclosed cost stored), 046 (insurance and admin fees) and 047 (charges and
// waivers), and every one after them, change no figure of a credit that existed before: a database
// left at 044 by hand holds a book as the code of then wrote it (plain SQL on the 044 schema: the
// services of today write columns it lacks), its figures are read by SQL before, the migrations
// run, and the same SQL and the credit read of today (the real HTTP app on that database) give the
// same figures to the cent; the cost backfill then stores the cost the read showed, and leaves
// updated_at alone. Figures worked out by hand in the comments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { build, json, settableClock } from '../helpers/app.ts';
import { embeddedBefore } from '../helpers/db.ts';
import { migrate, migrationFiles } from '../../src/db/migrate.ts';
import { createApiKey } from '../../src/db/repositories/apiKeys.ts';
import { backfillCosts } from '../../src/services/lending/costBackfill.ts';
import { computeCost } from '../../src/services/present.ts';

/** What a credit's rows say, as text to the cent: the same query before the migrations and after. */
async function snapshot(k: Kysely<any>, businessId: string) {
  const credits = await sql<any>`
    SELECT id, sequential_id, amount::text, total::text, disbursed::text, status, amortization, start_date::text,
           interest_rate::text, updated_at
      FROM credits WHERE business_id = ${businessId} ORDER BY sequential_id`.execute(k);
  const installments = await sql<any>`
    SELECT credit_id, number, amount::text, principal::text, interest::text, vat::text, due_date::text, status,
           paid_date::text
      FROM installments WHERE business_id = ${businessId} ORDER BY credit_id, number`.execute(k);
  const ledger = await sql<any>`
    SELECT credit_id, installment_id, type, origin, sum(amount)::text AS amount, sum(punitory_part)::text AS punitory,
           sum(vat_part)::text AS vat, sum(interest_part)::text AS interest, count(*)::int AS entries
      FROM ledger WHERE business_id = ${businessId}
     GROUP BY credit_id, installment_id, type, origin ORDER BY credit_id, installment_id, type, origin`.execute(k);
  const payments = await sql<any>`
    SELECT credit_id, id, amount::text, paid_on::text, reversed_at IS NOT NULL AS reversed, method
      FROM payments WHERE business_id = ${businessId} ORDER BY credit_id, paid_on, id`.execute(k);
  return { credits: credits.rows, installments: installments.rows, ledger: ledger.rows, payments: payments.rows };
}

test('045 to the last migration change no figure of the credits written before them', async (t) => {
  const db = await embeddedBefore(t, '045');
  const k = db.kysely;
  const one = async <T = any>(q: ReturnType<typeof sql>) => (await q.execute(k)).rows[0] as T;
  const bid = (await one<{ id: string }>(sql`INSERT INTO businesses (name) VALUES ('libro de 044') RETURNING id`)).id;
  const owner = (
    await one<{ id: string }>(sql`INSERT INTO clients (business_id, dni) VALUES (${bid}, '30111222') RETURNING id`)
  ).id;
  const plan = (
    await one<{ id: string }>(sql`INSERT INTO credit_configs (business_id, name) VALUES (${bid}, 'p') RETURNING id`)
  ).id;
  const creditRow = async (n: number, f: Record<string, string | number | boolean>) =>
    (
      await one<{ id: string }>(sql`
        INSERT INTO credits (business_id, client_id, credit_config_id, amount, total, status, created_by, sequential_id,
                             start_date, installments_count, days_until_first_payment, cut_type, payment_day,
                             interest_rate, daily_punitory_rate, grace_days, punitory_mode, max_punitory_days,
                             punitory_cap_pct, write_off_days, amortization, vat_rate, origination_fee)
        VALUES (${bid}, ${owner}, ${plan}, ${f.amount}, ${f.total}, ${f.status}, 'cli', ${n}, ${f.start},
                ${f.count}, 31, 'fixed', 1, ${f.rate}, ${f.daily}, 0, 'simple_outstanding', 0, 0, 0,
                ${f.amortization}, ${f.vat}, ${f.fee}) RETURNING id`)
    ).id;
  const installment = async (
    creditId: string,
    number: number,
    f: { amount: string; principal: string; interest: string; vat: string; due: string; start: string },
    status = 'pending',
    paidDate: string | null = null,
  ) =>
    (
      await one<{ id: string }>(sql`
        WITH i AS (
          INSERT INTO installments (business_id, credit_id, number, amount, principal, interest, vat, due_date, status,
                                    paid_date)
          VALUES (${bid}, ${creditId}, ${number}, ${f.amount}, ${f.principal}, ${f.interest}, ${f.vat}, ${f.due},
                  ${status}, ${paidDate}::date)
          RETURNING business_id, credit_id, id, amount)
        INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, effective_date, created_by)
        SELECT business_id, credit_id, id, 'installment', 'schedule', amount, ${f.start}, 'cli' FROM i
        RETURNING installment_id AS id`)
    ).id;
  const entry = (
    creditId: string,
    installmentId: string,
    f: {
      type: string;
      origin: string;
      amount: string;
      date: string;
      payment?: string;
      pun?: string;
      vat?: string;
      int?: string;
    },
  ) =>
    sql`
    INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, punitory_part, vat_part,
                        interest_part, effective_date, payment_id, created_by)
    VALUES (${bid}, ${creditId}, ${installmentId}, ${f.type}, ${f.origin}, ${f.amount}, ${f.pun ?? '0'}, ${f.vat ?? '0'},
            ${f.int ?? '0'}, ${f.date}, ${f.payment ?? null}, 'cli')`.execute(k);
  const payment = async (creditId: string, amount: string, paidOn: string, method = 'cash') =>
    (
      await one<{ id: string }>(sql`
        INSERT INTO payments (business_id, credit_id, amount, paid_on, created_by, method)
        VALUES (${bid}, ${creditId}, ${amount}, ${paidOn}, 'cli', ${method}) RETURNING id`)
    ).id;

  // A: 1000 at 35 % flat in 3 installments of 450 (principal 333.33, 333.33, 333.34; interest
  // 116.67, 116.67, 116.66), due 02-01, 03-01, 04-01; 0.5 % a day: installment 1 paid 4 days late,
  // 2.25 a day, 9 of punitory posted on 02-05. 500 paid on 02-05: 9 + 450 to installment 1, 41 of
  // interest to installment 2. 100 paid on 02-07 (75.67 interest, 24.33 principal of installment
  // 2), reversed.
  const a = await creditRow(1, {
    amount: 1000,
    total: 1350,
    status: 'active',
    start: '2026-01-01',
    count: 3,
    rate: 0.35,
    daily: 0.005,
    amortization: 'flat',
    vat: 0,
    fee: 0,
  });
  const a1 = await installment(
    a,
    1,
    { amount: '450', principal: '333.33', interest: '116.67', vat: '0', due: '2026-02-01', start: '2026-01-01' },
    'paid',
    '2026-02-05',
  );
  const a2 = await installment(
    a,
    2,
    { amount: '450', principal: '333.33', interest: '116.67', vat: '0', due: '2026-03-01', start: '2026-01-01' },
    'partial',
  );
  await installment(a, 3, {
    amount: '450',
    principal: '333.34',
    interest: '116.66',
    vat: '0',
    due: '2026-04-01',
    start: '2026-01-01',
  });
  await entry(a, a1, { type: 'punitory', origin: 'accrual', amount: '9', date: '2026-02-05' });
  await sql`INSERT INTO credit_accruals (business_id, credit_id, posted_through) VALUES (${bid}, ${a}, '2026-02-05')`.execute(
    k,
  );
  const pa = await payment(a, '500', '2026-02-05', 'transfer');
  await entry(a, a1, {
    type: 'payment',
    origin: 'payment',
    amount: '459',
    date: '2026-02-05',
    payment: pa,
    pun: '9',
    int: '116.67',
  });
  await entry(a, a2, { type: 'payment', origin: 'payment', amount: '41', date: '2026-02-05', payment: pa, int: '41' });
  const pb = await payment(a, '100', '2026-02-07');
  await entry(a, a2, {
    type: 'payment',
    origin: 'payment',
    amount: '100',
    date: '2026-02-07',
    payment: pb,
    int: '75.67',
  });
  await entry(a, a2, {
    type: 'payment',
    origin: 'reversal',
    amount: '-100',
    date: '2026-02-07',
    payment: pb,
    int: '-75.67',
  });
  await sql`UPDATE payments SET reversed_at = now(), reversal_reason = 'rechazado', reversed_by = 'cli' WHERE id = ${pb}`.execute(
    k,
  );

  // B: 1000 French at 60 % TNA (5 % a month) with 21 % VAT in 2 installments, an origination fee
  // of 60.50 (50 + its VAT) deducted: disbursed 939.50. Installment 537.80 before VAT: 1 is
  // principal 487.80, interest 50, VAT 10.50 (548.30); 2 is principal 512.20, interest 25.61, VAT
  // 5.38 (543.19); total 1091.49. Installment 1 paid on its due date; paid off on 02-10, 9 days
  // into the 28 of installment 2's period: interest 25.61 × 9 / 28 = 8.23, its VAT 1.73, so
  // 512.20 + 8.23 + 1.73 = 522.16 and a rebate of 17.38 of interest and 3.65 of VAT (21.03).
  const b = await creditRow(2, {
    amount: 1000,
    total: 1091.49,
    status: 'closed',
    start: '2026-01-01',
    count: 2,
    rate: 0.6,
    daily: 0.002,
    amortization: 'french',
    vat: 0.21,
    fee: 60.5,
  });
  const b1 = await installment(
    b,
    1,
    { amount: '548.30', principal: '487.80', interest: '50', vat: '10.50', due: '2026-02-01', start: '2026-01-01' },
    'paid',
    '2026-02-01',
  );
  const b2 = await installment(
    b,
    2,
    { amount: '543.19', principal: '512.20', interest: '25.61', vat: '5.38', due: '2026-03-01', start: '2026-01-01' },
    'paid',
    '2026-02-10',
  );
  const pc = await payment(b, '548.30', '2026-02-01', 'debit');
  await entry(b, b1, {
    type: 'payment',
    origin: 'payment',
    amount: '548.30',
    date: '2026-02-01',
    payment: pc,
    vat: '10.50',
    int: '50',
  });
  const pd = await payment(b, '522.16', '2026-02-10');
  await entry(b, b2, {
    type: 'payment',
    origin: 'payment',
    amount: '522.16',
    date: '2026-02-10',
    payment: pd,
    vat: '1.73',
    int: '8.23',
  });
  await entry(b, b2, {
    type: 'payment',
    origin: 'rebate',
    amount: '21.03',
    date: '2026-02-10',
    payment: pd,
    vat: '3.65',
    int: '17.38',
  });

  const before = await snapshot(k, bid);
  // the cost a read of then showed, solved from the schedule as granted (nothing stored before 045)
  const costBefore = new Map<string, ReturnType<typeof computeCost>>();
  for (const c of before.credits) {
    const row = (await sql<any>`SELECT * FROM credits WHERE id = ${c.id}`.execute(k)).rows[0];
    const insts = (
      await sql<any>`SELECT due_date::text, amount::text, principal::text, interest::text, vat::text
                       FROM installments WHERE credit_id = ${c.id} ORDER BY number`.execute(k)
    ).rows;
    costBefore.set(
      c.id,
      computeCost({ ...row, start_date: c.start_date, amount: c.amount, disbursed: c.disbursed }, insts),
    );
  }

  // every migration from 045 on
  const applied = await migrate(db);
  assert.deepEqual(
    applied,
    migrationFiles().filter((f) => f >= '045'),
    'the migrations left to run are 045 and after',
  );
  const after = await snapshot(k, bid);
  assert.deepEqual(after, before, 'the rows of every credit read the same after the migrations');

  // the credit read of today on that database: the figures of then, none of the new ones
  const h = await build(t, { db, clock: settableClock('2026-02-10') });
  const key = (await createApiKey(k, { businessId: bid, scope: 'full', name: 'test' })).key;
  const read = async (id: string) => {
    const res = await h.get(`/api/credits/${id}`, key);
    assert.equal(res.statusCode, 200, res.body);
    return json(res);
  };
  const row = (d: any) =>
    d.installments.map((i: any) => [
      i.number,
      i.amount,
      i.principal,
      i.interest,
      i.vat,
      i.insurance,
      i.fees,
      i.punitory_posted,
      i.punitory_accrued,
      i.charges,
      i.waived,
      i.paid,
      i.outstanding,
      i.status,
    ]);
  const ra = await read(a);
  // A on 02-10: installment 1 paid with its punitory (459); 2 has 41 (the reversed 100 counts
  // nothing) and owes 409; 3 owes 450: 1350 + 9 − 500 = 859
  assert.deepEqual(row(ra), [
    [1, 450, 333.33, 116.67, 0, 0, 0, 9, 0, 0, 0, 459, 0, 'paid'],
    [2, 450, 333.33, 116.67, 0, 0, 0, 0, 0, 0, 0, 41, 409, 'partial'],
    [3, 450, 333.34, 116.66, 0, 0, 0, 0, 0, 0, 0, 0, 450, 'pending'],
  ]);
  assert.deepEqual(
    [ra.credit.amount, ra.credit.total, ra.credit.disbursed, ra.credit.status],
    [1000, 1350, 1000, 'active'],
  );
  assert.deepEqual(
    [ra.balance.punitory_posted, ra.balance.charges, ra.balance.waived, ra.balance.paid, ra.balance.outstanding],
    [9, 0, 0, 500, 859],
  );
  assert.deepEqual([ra.balance.insurance, ra.balance.fees], [0, 0]);
  const rb = await read(b);
  // B closed: each installment paid in full, the rebate counted as paid; disbursed 939.50
  assert.deepEqual(row(rb), [
    [1, 548.3, 487.8, 50, 10.5, 0, 0, 0, 0, 0, 0, 548.3, 0, 'paid'],
    [2, 543.19, 512.2, 25.61, 5.38, 0, 0, 0, 0, 0, 0, 543.19, 0, 'paid'],
  ]);
  assert.deepEqual(
    [rb.credit.amount, rb.credit.total, rb.credit.disbursed, rb.credit.status],
    [1000, 1091.49, 939.5, 'closed'],
  );
  assert.deepEqual([rb.balance.paid, rb.balance.outstanding], [1091.49, 0]);

  // the cost: what a read of then solved, until the backfill stores it; then the same, stored
  for (const [id, d] of [
    [a, ra],
    [b, rb],
  ] as const) {
    const c = costBefore.get(id)!;
    assert.deepEqual(
      d.cost,
      { tna: c.tna.toNumber(), tea: c.tea.toNumber(), cft_tea: c.cft_tea?.toNumber() ?? null },
      `credit ${d.credit.sequential_id}: cost`,
    );
  }
  assert.equal(
    (await sql<any>`SELECT count(*)::int AS n FROM credits WHERE business_id = ${bid} AND tna IS NULL`.execute(k))
      .rows[0].n,
    2,
    'nothing stored by the migration itself',
  );
  const filled = await backfillCosts(db, { businessId: bid });
  assert.deepEqual(filled, [{ business_id: bid, credits_filled: 2 }]);
  assert.deepEqual((await read(a)).cost, ra.cost, 'A: the stored cost is the one shown');
  assert.deepEqual((await read(b)).cost, rb.cost, 'B: the stored cost is the one shown');
  assert.deepEqual(await snapshot(k, bid), before, 'the backfill changes no figure and leaves updated_at alone');

  // the ledger as the API lists it: the same entries and sums
  const ledgerA = json(await h.get(`/api/credits/${a}/ledger`, key));
  const sums = (entries: any[]) =>
    entries.reduce<Record<string, number>>((s, e) => {
      const k2 = `${e.type}/${e.origin}`;
      s[k2] = Math.round(((s[k2] ?? 0) + e.amount) * 100) / 100;
      return s;
    }, {});
  assert.deepEqual(sums(ledgerA), {
    'installment/schedule': 1350,
    'punitory/accrual': 9,
    'payment/payment': 600,
    'payment/reversal': -100,
  });
});
