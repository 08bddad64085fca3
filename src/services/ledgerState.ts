// What each installment owes, rebuilt from its ledger entries, and the punitory to post as of a
// date. Pure: rows in, decimals out. The payment path and the daily run share it so both post
// exactly what DOMAIN.md's punitory rule gives.
import type { Credit, CreditStatus, LedgerEntry } from '../db/schema.ts';
import {
  Dec,
  atStorableMax,
  cumulativePunitory,
  installmentStatus,
  money,
  punitoryToPost,
  todayIn,
  type Decimal,
  type InstallmentBalance,
  type InstallmentPayment,
  type InstallmentStatus,
  type PunitoryTerms,
} from '../domain/index.ts';

export interface InstallmentLike {
  id: string;
  number: number;
  amount: string;
  due_date: string;
}

export interface InstallmentState {
  id: string;
  number: number;
  dueDate: string;
  amount: Decimal;
  principalPaid: Decimal;
  punitoryPosted: Decimal;
  punitoryPaid: Decimal;
  /** this installment's payment slices, in date order */
  payments: InstallmentPayment[];
}

type TermsSource = Pick<
  Credit,
  'daily_punitory_rate' | 'punitory_mode' | 'grace_days' | 'max_punitory_days' | 'punitory_cap_pct'
>;

/** The punitory terms snapshotted on the credit. */
export function creditTerms(c: TermsSource): PunitoryTerms {
  return {
    dailyRate: money(c.daily_punitory_rate),
    mode: c.punitory_mode,
    graceDays: c.grace_days,
    maxDays: c.max_punitory_days,
    capPct: money(c.punitory_cap_pct),
  };
}

/** The last day punitory can accrue on: the business's calendar date of the write-off. */
export function stopDate(c: Pick<Credit, 'written_off_at'>, timezone: string): string | null {
  return c.written_off_at ? todayIn(timezone, new Date(c.written_off_at)) : null;
}

function emptyState(i: InstallmentLike): InstallmentState {
  return {
    id: i.id,
    number: i.number,
    dueDate: i.due_date,
    amount: money(i.amount),
    principalPaid: new Dec(0),
    punitoryPosted: new Dec(0),
    punitoryPaid: new Dec(0),
    payments: [],
  };
}

/** Punitory posted on the installment (a negative amount is a correction). */
export function addPunitory(s: InstallmentState, amount: Decimal) {
  s.punitoryPosted = s.punitoryPosted.plus(amount);
}

/** One payment slice on the installment; slices come in date order. */
export function addPayment(s: InstallmentState, p: InstallmentPayment) {
  s.principalPaid = s.principalPaid.plus(p.principal);
  s.punitoryPaid = s.punitoryPaid.plus(p.punitory);
  s.payments.push(p);
}

/** Applies one ledger entry (punitory or payment) to the state of its installment. */
export function applyEntry(
  s: InstallmentState,
  e: Pick<LedgerEntry, 'type' | 'amount' | 'punitory_part' | 'effective_date'>,
) {
  if (e.type === 'punitory') {
    addPunitory(s, money(e.amount));
  } else if (e.type === 'payment') {
    const punitory = money(e.punitory_part);
    addPayment(s, { paidOn: e.effective_date, principal: money(e.amount).minus(punitory), punitory });
  }
}

/** The installment's state from its aggregated history (the daily run reads it in one query, not entry by entry). */
export function stateFromHistory(
  i: InstallmentLike,
  h: { punitory_posted: string; payments: [paidOn: string, principal: string, punitory: string][] | null } | undefined,
): InstallmentState {
  const s = emptyState(i);
  if (!h) return s;
  addPunitory(s, money(h.punitory_posted));
  for (const [paidOn, principal, punitory] of h.payments ?? [])
    addPayment(s, { paidOn, principal: money(principal), punitory: money(punitory) });
  return s;
}

export function buildStates(
  installments: InstallmentLike[],
  ledger: Pick<LedgerEntry, 'installment_id' | 'type' | 'amount' | 'punitory_part' | 'effective_date' | 'created_at'>[],
): InstallmentState[] {
  const states = installments.map(emptyState).sort((a, b) => a.number - b.number);
  const byId = new Map(states.map((s) => [s.id, s]));
  const ordered = [...ledger].sort(
    (a, b) =>
      a.effective_date.localeCompare(b.effective_date) ||
      new Date(a.created_at).getTime() - new Date(b.created_at).getTime(),
  );
  for (const e of ordered) {
    const s = byId.get(e.installment_id);
    if (s) applyEntry(s, e);
  }
  return states;
}

/** Cumulative punitory of one installment as of a date, from its payment history. */
export function cumulativeOf(s: InstallmentState, terms: PunitoryTerms, asOf: string, stop: string | null): Decimal {
  if (terms.dailyRate.lte(0)) return new Dec(0);
  return cumulativePunitory(
    { amount: s.amount, dueDate: s.dueDate, payments: s.payments, asOf, stopDate: stop },
    terms,
  );
}

export interface Postings {
  /** per installment, what to post so the posted total equals the cumulative figure (zeros left out) */
  postings: { state: InstallmentState; amount: Decimal }[];
  /** the installments whose cumulative figure stopped at the storable maximum */
  atStorableMax: InstallmentState[];
}

/** What to post so each installment's posted total equals its cumulative figure as of asOf. */
export function punitoryPostings(
  states: InstallmentState[],
  terms: PunitoryTerms,
  asOf: string,
  stop: string | null,
): Postings {
  const out: Postings = { postings: [], atStorableMax: [] };
  for (const s of states) {
    const cumulative = cumulativeOf(s, terms, asOf, stop);
    if (atStorableMax(cumulative)) out.atStorableMax.push(s);
    const diff = punitoryToPost(cumulative, s.punitoryPosted);
    if (!diff.isZero()) out.postings.push({ state: s, amount: diff });
  }
  return out;
}

/** Balance for allocation; punitoryOwed may be given (a backdated payment owes what it owed on its date). */
export function balanceOf(s: InstallmentState, punitoryOwed?: Decimal): InstallmentBalance {
  return {
    id: s.id,
    number: s.number,
    amount: s.amount,
    principalPaid: s.principalPaid,
    punitoryOwed: punitoryOwed ?? s.punitoryPosted.minus(s.punitoryPaid),
  };
}

export function statusOf(s: InstallmentState): { status: InstallmentStatus; paidDate: string | null } {
  const status = installmentStatus({
    amount: s.amount,
    principalPaid: s.principalPaid,
    punitoryOwed: s.punitoryPosted.minus(s.punitoryPaid),
    anythingPaid: s.payments.length > 0,
  });
  // the day it became paid: the date of the payment that completed it (payments are in date order)
  const last = s.payments[s.payments.length - 1];
  return { status, paidDate: status === 'paid' ? (last?.paidOn ?? null) : null };
}

// ---------------------------------------------------------------- what is owed when it is read

/** An installment's Balance (src/domain/records.ts) as of a date. */
export interface Owed {
  punitoryPosted: Decimal;
  /** since the last posting: what posting every day would have added by the date */
  punitoryAccrued: Decimal;
  /** amount and punitory */
  paid: Decimal;
  /** amount + punitoryPosted + punitoryAccrued − paid; negative: in the client's favour */
  outstanding: Decimal;
}

/** The credits whose unpaid installments accrue punitory: those the daily run posts on. */
const ACCRUING: ReadonlySet<CreditStatus> = new Set(['active', 'written_off']);

type OwedSource = TermsSource & Pick<Credit, 'status' | 'written_off_at'>;

/**
 * What an installment of this credit owes as of asOf (the business's today, in `timezone`). Its
 * punitory accrued is the cumulative figure minus what is posted: exactly what the daily posting
 * would have posted by then, so a read equals posting every day, to the cent. An installment whose
 * amount is paid (its punitory stopped growing then, and that payment posted it), or one of a
 * credit the daily run leaves alone (closed, refinanced, cancelled), accrues nothing; the
 * portfolio summary (src/db/repositories/reports.ts) applies the same rule in SQL.
 */
export function owedOf(s: InstallmentState, credit: OwedSource, asOf: string, timezone: string): Owed {
  const accrues = ACCRUING.has(credit.status) && s.principalPaid.lt(s.amount);
  const accrued = accrues
    ? cumulativeOf(s, creditTerms(credit), asOf, stopDate(credit, timezone)).minus(s.punitoryPosted)
    : new Dec(0);
  const paid = s.principalPaid.plus(s.punitoryPaid);
  return {
    punitoryPosted: s.punitoryPosted,
    punitoryAccrued: accrued,
    paid,
    outstanding: s.amount.plus(s.punitoryPosted).plus(accrued).minus(paid),
  };
}

/** Per installment id, what each installment of these credits owes as of asOf (from their rows and whole ledgers). */
export function owedOfCredits(
  credits: (OwedSource & Pick<Credit, 'id'>)[],
  installments: (InstallmentLike & { credit_id: string })[],
  ledger: (Parameters<typeof buildStates>[1][number] & Pick<LedgerEntry, 'credit_id'>)[],
  asOf: string,
  timezone: string,
): Map<string, Owed> {
  const out = new Map<string, Owed>();
  for (const c of credits) {
    const states = buildStates(
      installments.filter((i) => i.credit_id === c.id),
      ledger.filter((e) => e.credit_id === c.id),
    );
    for (const s of states) out.set(s.id, owedOf(s, c, asOf, timezone));
  }
  return out;
}

/** A credit's Balance: its installments' summed. */
export function sumOwed(items: Owed[]): Owed {
  const zero = new Dec(0);
  const total: Owed = { punitoryPosted: zero, punitoryAccrued: zero, paid: zero, outstanding: zero };
  for (const o of items) {
    total.punitoryPosted = total.punitoryPosted.plus(o.punitoryPosted);
    total.punitoryAccrued = total.punitoryAccrued.plus(o.punitoryAccrued);
    total.paid = total.paid.plus(o.paid);
    total.outstanding = total.outstanding.plus(o.outstanding);
  }
  return total;
}
