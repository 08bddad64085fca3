// Waivers (docs/domain.md, "Fees and charges"): punitory or collection charges of one installment
// taken off what is owed, with a reason. Never cash: a `waiver` ledger entry (negative), no
// payment. One transaction under the credit's lock, as a payment.
import { withActor } from '../../db/connection.ts';
import { insertWaiver, waiversOfCredit } from '../../db/repositories/waivers.ts';
import { getCredit } from '../../db/repositories/credits.ts';
import { guarantorsOfCredit } from '../../db/repositories/guarantors.ts';
import { toMoneyString } from '../../domain/index.ts';
import { conflict, notFound, unprocessable } from '../../domain/errors.ts';
import { readsOf, type Database } from '../context.ts';
import { emit } from '../events.ts';
import { presentGuarantor } from '../guarantors.ts';
import { presentWaiver } from '../present.ts';
import { positiveAmount, postThrough, statesOf } from './engine/book.ts';
import { chargesUnpaid, punitoryUnpaid } from './engine/state.ts';
import { flush, loadLocked, type CreditDetailRows, type LendingContext } from './store.ts';

export interface WaiverInput {
  installmentId: string;
  kind: 'punitory' | 'charge';
  amount: number | string;
  reason: string;
}

const STATUS_FORBIDS_WAIVER: Record<string, string> = {
  refinanced: 'the credit was refinanced: its balance moved to the new credit',
  inactive: 'the credit was cancelled',
};

/**
 * Posts punitory up to today (as any event on the credit does), then writes the waiver against
 * what is posted and unpaid of that part of the installment: more is 422 and nothing is written.
 */
export async function createWaiver(
  db: Database,
  ctx: LendingContext,
  creditId: string,
  input: WaiverInput,
): Promise<CreditDetailRows> {
  return withActor(db.kysely, ctx, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    const why = STATUS_FORBIDS_WAIVER[l.credit.status];
    if (why) throw conflict(`waiver refused: ${why}`);
    const amount = positiveAmount(input.amount);
    const reason = input.reason.trim();
    if (reason === '') throw unprocessable('reason must not be blank', [{ path: '/reason', message: 'blank' }]);
    if (!l.installments.some((i) => i.id === input.installmentId))
      throw unprocessable('installment_id is not an installment of this credit', [
        { path: '/installment_id', message: 'not an installment of this credit' },
      ]);

    postThrough(ctx, l, ctx.today);
    const s = statesOf(l).find((x) => x.id === input.installmentId)!;
    const unpaid = input.kind === 'punitory' ? punitoryUnpaid(s) : chargesUnpaid(s);
    if (amount.gt(unpaid)) {
      const what = input.kind === 'punitory' ? 'punitory' : 'charges';
      const most = unpaid.gt(0) ? toMoneyString(unpaid) : '0.00';
      throw unprocessable(
        `amount ${toMoneyString(amount)} is more than the ${what} posted and unpaid on installment ${s.number} (${most} as of ${ctx.today})`,
        [{ path: '/amount', message: `at most ${most}` }],
      );
    }
    const id = crypto.randomUUID();
    const negative = toMoneyString(amount.neg());
    l.staged.entries.push({
      id,
      installment_id: s.id,
      type: 'waiver',
      origin: 'waiver',
      amount: negative,
      ...(input.kind === 'punitory' ? { punitory_part: negative } : { charge_part: negative }),
      effective_date: ctx.today,
      branch_id: l.credit.branch_id,
      created_by: ctx.actor,
    });
    await flush(trx, ctx, l);
    const waiver = await insertWaiver(trx, ctx.businessId, {
      id,
      credit_id: l.credit.id,
      installment_id: s.id,
      kind: input.kind,
      amount: toMoneyString(amount),
      reason,
      created_by: ctx.actor,
    });
    emit(trx, ctx.businessId, 'waiver.created', presentWaiver({ ...waiver, installment_number: s.number }), {
      creditId: l.credit.id,
    });
    const guarantors = (await guarantorsOfCredit(trx, ctx.businessId, creditId)).map(presentGuarantor);
    return { credit: l.credit, installments: l.installments, ledgerEntries: l.ledger, guarantors };
  });
}

/** The waivers of a credit, newest first, each with its installment's number (a read: 404 for a credit of another business). */
export async function listWaivers(db: Database, ctx: LendingContext, creditId: string) {
  const from = await readsOf(db, ctx);
  const credit = await getCredit(from, ctx.businessId, creditId);
  if (!credit) throw notFound('credit');
  return (await waiversOfCredit(from, ctx.businessId, creditId)).map(presentWaiver);
}
