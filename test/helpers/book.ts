// Shared steps of the lending-engine tests: plans, clients and credits through the HTTP API, the
// `lending accrue` command run in-process against the test database, and the ledger invariant
// every integration test ends with.
import assert from 'node:assert/strict';
import type { Database } from '../../src/db/connection.ts';
import { addDays, money, todayIn, Dec, type Decimal } from '../../src/domain/index.ts';
import {
  buildStates,
  creditTerms,
  cumulativeOf,
  punitoryPostings,
  statusOf,
  stopDate,
} from '../../src/services/lending/engine/state.ts';
import { withActor } from '../../src/db/connection.ts';
import { markWrittenOff } from '../../src/db/repositories/credits.ts';
import { installmentsOfCredit, setInstallmentState } from '../../src/db/repositories/installments.ts';
import { insertLedger, ledgerOfCredit } from '../../src/db/repositories/ledger.ts';
import { markAccrued, postedThrough } from '../../src/db/repositories/creditAccruals.ts';
import { json, type Harness } from './app.ts';
export { accrue } from './cli.ts';

export const todayUtc = () => todayIn('UTC');
/** A date k days from today (UTC, the test tenant's time zone). */
export const day = (k: number) => addDays(todayUtc(), k);

export async function plan(h: Harness, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await h.post('/api/credit-configs', { name: 'plan', ...fields });
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

let dni = 10_000_000;
export async function client(h: Harness): Promise<any> {
  const res = await h.post('/api/clients', {
    dni: String(++dni) + Math.random().toString().slice(2, 6),
    first_name: 'Test',
  });
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

export async function credit(h: Harness, clientId: string, body: Record<string, unknown>): Promise<any> {
  const res = await h.post(`/api/clients/${clientId}/credits`, body);
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

export async function pay(h: Harness, creditId: string, body: Record<string, unknown>): Promise<any> {
  const res = await h.post(`/api/credits/${creditId}/payments`, body);
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

export const sum = (xs: { amount: number }[]) =>
  Number(xs.reduce((s, x) => s.plus(money(x.amount)), new Dec(0)).toFixed(2));

/**
 * The ledger invariant, for every credit of the business:
 * - one installment entry per installment, equal to its amount; the installments add up to the total;
 * - payments never exceed installment + posted punitory, and neither part is overpaid;
 * - each installment's status and paid_date agree with its sums;
 * - the punitory posted equals the cumulative punitory as of the credit's posted_through (credit_accruals; idempotent posting);
 * - closed and refinanced credits are fully paid, active ones are not; sequential ids are 1..N.
 */
export async function assertLedgerInvariant(db: Database, businessId: string): Promise<void> {
  const k = db.kysely;
  const [biz, credits, installments, ledger, accruals, payments] = await Promise.all([
    k.selectFrom('businesses').select('timezone').where('id', '=', businessId).executeTakeFirstOrThrow(),
    k.selectFrom('credits').selectAll().where('business_id', '=', businessId).orderBy('sequential_id').execute(),
    k.selectFrom('installments').selectAll().where('business_id', '=', businessId).execute(),
    k.selectFrom('ledger').selectAll().where('business_id', '=', businessId).execute(),
    k
      .selectFrom('credit_accruals')
      .select(['credit_id', 'posted_through'])
      .where('business_id', '=', businessId)
      .execute(),
    k.selectFrom('payments').selectAll().where('business_id', '=', businessId).execute(),
  ]);
  const postedThrough = new Map(accruals.map((a) => [a.credit_id, a.posted_through]));
  const reversed = new Set(payments.filter((p) => p.reversed_at !== null).map((p) => p.id));
  assert.deepEqual(
    credits.map((c) => c.sequential_id),
    credits.map((_, i) => i + 1),
    'sequential ids are 1..N with no gap',
  );
  for (const c of credits) {
    const insts = installments.filter((i) => i.credit_id === c.id).sort((a, b) => a.number - b.number);
    const entries = ledger.filter((e) => e.credit_id === c.id);
    const where = `credit #${c.sequential_id} (${c.status})`;
    assert.equal(insts.length, c.installments_count, `${where}: installment count`);
    assert.equal(
      sum(insts.map((i) => ({ amount: Number(i.amount) }))),
      Number(c.total),
      `${where}: installments add up to the total`,
    );
    const states = buildStates(insts, entries);
    const terms = creditTerms(c);
    const through = postedThrough.get(c.id);
    for (const inst of insts) {
      const s = states.find((x) => x.id === inst.id)!;
      const own = entries.filter((e) => e.installment_id === inst.id);
      const instEntries = own.filter((e) => e.type === 'installment');
      assert.equal(instEntries.length, 1, `${where} #${inst.number}: one installment entry`);
      assert.equal(instEntries[0]!.amount, inst.amount, `${where} #${inst.number}: installment entry = amount`);
      // a slice as first written is positive; reversals and corrections may be negative, but what
      // one payment leaves on an installment (its net) is a slice's shape, and nothing once reversed
      const net = new Map<string, { amount: Decimal; punitory: Decimal; origins: Set<string> }>();
      for (const e of own.filter((x) => x.type === 'payment')) {
        if (e.origin === 'payment' || e.origin === 'rebate' || e.origin === 'refinance')
          assert.ok(
            money(e.amount).gt(0) && money(e.punitory_part).gte(0) && money(e.punitory_part).lte(money(e.amount)),
            `${where}: payment slice shape`,
          );
        const n = net.get(e.payment_id!) ?? { amount: new Dec(0), punitory: new Dec(0), origins: new Set() };
        n.amount = n.amount.plus(money(e.amount));
        n.punitory = n.punitory.plus(money(e.punitory_part));
        n.origins.add(e.origin);
        net.set(e.payment_id!, n);
      }
      for (const [paymentId, n] of net) {
        const where2 = `${where} #${inst.number}, payment ${paymentId}`;
        if (n.origins.has('reversal')) {
          assert.ok(n.amount.isZero() && n.punitory.isZero(), `${where2}: a reversed payment leaves nothing`);
          assert.ok(reversed.has(paymentId), `${where2}: reversal entries of a payment not marked reversed`);
        } else
          assert.ok(
            n.amount.gte(0) && n.punitory.gte(0) && n.punitory.lte(n.amount),
            `${where2}: net slice shape (${n.amount}, ${n.punitory})`,
          );
      }
      const paid = s.principalPaid.plus(s.punitoryPaid);
      assert.ok(
        paid.lte(s.amount.plus(s.punitoryPosted)),
        `${where} #${inst.number}: payments ${paid} exceed installment + punitory ${s.amount.plus(s.punitoryPosted)}`,
      );
      assert.ok(s.principalPaid.lte(s.amount), `${where} #${inst.number}: amount overpaid`);
      assert.ok(s.punitoryPaid.lte(s.punitoryPosted), `${where} #${inst.number}: punitory overpaid`);
      const expect = statusOf(s);
      assert.equal(inst.status, expect.status, `${where} #${inst.number}: status agrees with the sums`);
      assert.equal(inst.paid_date, expect.paidDate, `${where} #${inst.number}: paid_date`);
      if (through) {
        const cum = cumulativeOf(s, terms, through, stopDate(c, biz.timezone));
        assert.equal(
          s.punitoryPosted.toFixed(2),
          cum.toFixed(2),
          `${where} #${inst.number}: posted punitory = cumulative as of ${through}`,
        );
      } else {
        assert.ok(s.punitoryPosted.isZero(), `${where} #${inst.number}: punitory posted without a posting date`);
      }
    }
    // a payment's entries (slices and their corrections) add up to it; a reversed one's to nothing
    for (const p of payments.filter((x) => x.credit_id === c.id)) {
      const mine = entries.filter((e) => e.payment_id === p.id && e.origin !== 'rebate');
      const total = mine.reduce((a, e) => a.plus(money(e.amount)), new Dec(0));
      assert.equal(
        total.toFixed(2),
        p.reversed_at === null ? money(p.amount).toFixed(2) : '0.00',
        `${where}: payment ${p.id} of ${p.amount}${p.reversed_at === null ? '' : ' (reversed)'}`,
      );
    }
    const allPaid = insts.every((i) => i.status === 'paid');
    if (c.status === 'closed' || c.status === 'refinanced') assert.ok(allPaid, `${where}: must be fully paid`);
    if (c.status === 'active') assert.ok(!allPaid, `${where}: fully paid but still active`);
    assert.equal(c.status === 'written_off', c.written_off_at !== null, `${where}: written_off_at`);
  }
}

/**
 * The daily run as it was before month closes (commit e574865), rebuilt from the repositories:
 * every day, on every active or written-off credit with an unpaid installment due before the day
 * and not posted through it (a written-off one only until its write-off date), the punitory owed
 * up to the day, effective that day; then the credits past write_off_days written off. This is
 * the ledger an existing book has: one punitory entry per overdue installment per day.
 */
export async function legacyDailyRun(
  db: Database,
  bid: string,
  today: string,
  o: { writeOff?: string[]; now?: Date; timezone?: string } = {},
) {
  const tz = o.timezone ?? 'UTC';
  await withActor(db.kysely, { actor: 'cli' }, async (trx) => {
    const credits = await trx
      .selectFrom('credits')
      .selectAll()
      .where('business_id', '=', bid)
      .where('status', 'in', ['active', 'written_off'])
      .execute();
    const through = await postedThrough(
      trx,
      bid,
      credits.map((c) => c.id),
    );
    for (const c of credits) {
      const stop = stopDate(c, tz);
      const pt = through.get(c.id);
      if (pt !== undefined && (pt >= today || (stop !== null && pt >= stop))) continue;
      const insts = await installmentsOfCredit(trx, bid, c.id);
      if (!insts.some((i) => i.status !== 'paid' && i.due_date < today)) continue;
      const states = buildStates(insts, await ledgerOfCredit(trx, bid, c.id));
      const { postings } = punitoryPostings(states, creditTerms(c), today, stop);
      await insertLedger(
        trx,
        bid,
        postings.map((p) => ({
          credit_id: c.id,
          installment_id: p.state.id,
          type: 'punitory' as const,
          origin: p.amount.lt(0) ? ('correction' as const) : ('accrual' as const),
          amount: p.amount.toFixed(2),
          vat_part: p.vat.toFixed(2),
          effective_date: today,
          branch_id: c.branch_id,
          created_by: 'cli',
        })),
      );
      for (const p of postings) {
        p.state.punitoryPosted = p.state.punitoryPosted.plus(p.amount);
        const inst = insts.find((i) => i.id === p.state.id)!;
        const next = statusOf(p.state);
        if (next.status !== inst.status || next.paidDate !== inst.paid_date)
          await setInstallmentState(trx, bid, inst.id, next.status, next.paidDate);
      }
      await markAccrued(trx, bid, [c.id], today);
    }
    await markWrittenOff(trx, bid, o.writeOff ?? [], o.now ?? new Date());
  });
}
