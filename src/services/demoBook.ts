// The demo business's book: a few credits in every state a newcomer should see — on time, paid
// late with punitory, overdue (its punitory shown by every read, posted by the daily run at the
// month close), closed, and fresh.
import type { Database } from '../db/connection.ts';
import { getBusiness } from '../db/repositories/businesses.ts';
import { addDays, compareDates, money, toMoneyString, type Clock } from '../domain/index.ts';
import { accrueBusiness } from './accrual.ts';
import type { ActorContext } from './context.ts';
import { createCredit } from './lending/grant.ts';
import { registerPayment } from './lending/payments.ts';

const earlier = (a: string, b: string) => (compareDates(a, b) <= 0 ? a : b);

export async function buildDemoBook(
  db: Database,
  ctx: ActorContext,
  ids: { clients: string[]; plans: string[]; branches: string[] },
  clock: Clock,
) {
  const business = await getBusiness(db.kysely, ctx.businessId);
  if (!business) return;
  const today = ctx.today;
  const ago = (n: number) => addDays(today, -n);
  const [monthly3, fixed6, single] = ids.plans;
  const [central, north] = ids.branches;
  const [maria, juan, lucia, carlos, sofia] = ids.clients;
  if (!monthly3 || !fixed6 || !single || !maria || !juan || !lucia || !carlos || !sofia) return;

  // María: 3 monthly installments, the first paid on its due date (or today if not due yet)
  const a = await createCredit(db, ctx, {
    clientId: maria,
    creditConfigId: monthly3,
    amount: 150000,
    startDate: ago(40),
    branchId: central ?? null,
    originTransactionReference: 'DEMO-0001',
  });
  await registerPayment(db, ctx, a.credit.id, {
    amount: a.installments[0]!.amount,
    paidOn: earlier(a.installments[0]!.due_date, today),
  });

  // Juan: a single payment due 25 days ago, never paid: overdue; the daily run below posts the
  // punitory of the months ended since (reads add the rest)
  await createCredit(db, ctx, {
    clientId: juan,
    creditConfigId: single,
    amount: 50000,
    startDate: ago(55),
    branchId: central ?? null,
  });

  // Lucía: 6 fixed installments; #1 paid on time, #2 paid 5 days late (compound punitory posted
  // with the payment), #3 overdue now
  const c = await createCredit(db, ctx, {
    clientId: lucia,
    creditConfigId: fixed6,
    amount: 200000,
    startDate: ago(100),
    branchId: north ?? null,
  });
  const [c1, c2] = c.installments;
  await registerPayment(db, ctx, c.credit.id, { amount: c1!.amount, paidOn: c1!.due_date, branchId: north ?? null });
  const late = earlier(addDays(c2!.due_date, 5), today);
  await registerPayment(db, ctx, c.credit.id, { amount: '60000', paidOn: late, branchId: north ?? null });

  // Carlos: granted today
  await createCredit(db, ctx, { clientId: carlos, creditConfigId: monthly3, amount: 80000, branchId: central ?? null });

  // Sofía: a single payment, paid in full 3 days late: closed
  const e = await createCredit(db, ctx, { clientId: sofia, creditConfigId: single, amount: 30000, startDate: ago(45) });
  const paidOn = earlier(addDays(e.installments[0]!.due_date, 3), today);
  // 33,600 (30,000 at 12 %) plus 3 days × 0.4 % × 33,600 = 403.20 of punitory
  const owed = money(e.installments[0]!.amount).times(money('1.012'));
  await registerPayment(db, ctx, e.credit.id, { amount: toMoneyString(owed), paidOn });

  await accrueBusiness(db, business, { actor: 'cli', clock });
}
