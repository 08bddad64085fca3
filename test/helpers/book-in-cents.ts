// Steps of the lending tests, through the public interface only: plans, clients,
// credits and payments over HTTP, the daily run through the `lending accrue` command, money as
// integer cents so sums never meet binary floating point. Every expected figure in these tests is
// worked out by hand from docs/domain.md in a comment next to it.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { json, type Harness } from './app.ts';
export { credit, pay } from './book.ts';
export { accrue } from './cli.ts';

/**
 * The plan of the worked examples: 1000 at 35 % flat in 3 installments of 450 (principal 333.33,
 * 333.33, 333.34; interest 116.67, 116.67, 116.66), first due 30 days after the start, then the
 * same day of each month; 0.5 % a day simple punitory → 2.25 a day on an unpaid installment.
 */
export const P35 = {
  installments_count: 3,
  interest_rate: 0.35,
  days_until_first_payment: 30,
  cut_type: 'fixed',
  daily_punitory_rate: 0.005,
};

/**
 * P35 with 21 % VAT, life insurance 1 % a month without VAT and an admin fee of 20 with VAT
 * (test/services/lending/fees.test.ts works the schedule out: amounts 508.70, 505.37, 502.03;
 * insurance 10, 6.67, 3.33; fees 20 and their VAT 4.20 each; the interest's VAT 24.50 each).
 */
export const P35_FEES = {
  ...P35,
  vat_rate: 0.21,
  fees: [
    { type: 'insurance', rate: 0.01, vat: false },
    { type: 'admin', amount: 20, vat: true },
  ],
};

export async function plan(h: Harness, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await h.post('/api/credit-configs', { name: 'plan', ...fields });
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

export async function client(h: Harness): Promise<any> {
  const res = await h.post('/api/clients', { dni: String(randomInt(10_000_000, 99_999_999)), first_name: 'Test' });
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

/** GET /api/credits/{id}: the CreditDetail as of today. */
export async function detail(h: Harness, creditId: string): Promise<any> {
  const res = await h.get(`/api/credits/${creditId}`);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/** GET /api/credits/{id}/ledger: every entry of the credit. */
export async function ledger(h: Harness, creditId: string): Promise<any[]> {
  const res = await h.get(`/api/credits/${creditId}/ledger`);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/** GET /api/credits/{id}/payments. */
export async function payments(h: Harness, creditId: string): Promise<any[]> {
  const res = await h.get(`/api/credits/${creditId}/payments`);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/** GET /api/credits/{id}/payoff?as_of=. */
export async function payoff(h: Harness, creditId: string, asOf?: string): Promise<any> {
  const res = await h.get(`/api/credits/${creditId}/payoff${asOf ? `?as_of=${asOf}` : ''}`);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/** A JSON money number as integer cents. */
export const cents = (x: number) => Math.round(x * 100);
/** Integer cents back to a JSON money number. */
export const money = (c: number) => c / 100;
/** The sum of the `amount`s, to the cent. */
export const total = (xs: { amount: number }[]) => money(xs.reduce((s, x) => s + cents(x.amount), 0));

/**
 * The net of ledger entries grouped by a key, in money (entries summing to zero are kept as 0), e.g.
 * the payment slices per installment number.
 */
export function netBy(entries: any[], key: (e: any) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) {
    const k = key(e);
    out[k] = money(cents(out[k] ?? 0) + cents(e.amount));
  }
  return out;
}

/** An installment's punitory as read today: what is posted plus what accrued since the last posting. */
export const punitoryOf = (i: any) => money(cents(i.punitory_posted) + cents(i.punitory_accrued));

/** The figures of an installment that must not depend on when punitory was posted. */
export const figures = (i: any) => ({
  number: i.number,
  amount: i.amount,
  status: i.status,
  overdue: i.overdue,
  days_late: i.days_late,
  punitory: punitoryOf(i),
  paid: i.paid,
  outstanding: i.outstanding,
});
