// A credit's statement and a payment's receipt: the documents a client takes home from the branch
// counter. Both are read in one snapshot (a repeatable-read transaction), so a payment committing
// meanwhile is either wholly in them or not at all, and they show the figures the credit read
// shows: the installments' balances come from the same ledger arithmetic (ledgerState.ts). This
// module builds the JSON documents (records.ts Statement, Receipt); the HTTP layer renders the
// same documents as PDF (src/http/pdf/), so the two representations cannot disagree.
import type { Static } from 'typebox';
import type { Kysely } from 'kysely';
import type { Credit, DB, Installment, LedgerEntry } from '../db/schema.ts';
import { getBusiness } from '../db/repositories/businesses.ts';
import { getClient } from '../db/repositories/clients.ts';
import { getCredit } from '../db/repositories/credits.ts';
import { getBranch } from '../db/repositories/branches.ts';
import { installmentsOfCredit } from '../db/repositories/installments.ts';
import { ledgerOfCredit } from '../db/repositories/ledger.ts';
import { Dec, delinquency, money, toMoneyNumber, type Decimal } from '../domain/index.ts';
import { notFound } from '../domain/errors.ts';
import type { Receipt, Statement, StatementPayment } from '../domain/records.ts';
import type { ActorContext } from './context.ts';
import { owedOfCredits, sumOwed, type Owed } from './ledgerState.ts';
import { presentBalance } from './present.ts';

export type StatementDocument = Static<typeof Statement>;
export type ReceiptDocument = Static<typeof Receipt>;

// ---------------------------------------------------------------- what the documents are made of

/** An installment with its parts (text, as numeric columns come; null where not recorded). */
export interface GatheredInstallment extends Installment {
  principal: string | null;
  interest: string | null;
  vat: string | null;
}

/** One payment: the payments list's fields, and its ledger slices (what it paid, installment by installment). */
export interface GatheredPayment {
  id: string;
  amount: string;
  paid_on: string;
  branch_id: string | null;
  created_by: string;
  created_at: Date | string;
  reversed_at: Date | string | null;
  reversal_reason: string | null;
  origin: 'payment' | 'refinance';
  /** its payment entries, in the order written, each split into what it paid */
  slices: GatheredSlice[];
}

/** One payment entry and what it paid: punitory, then the installment's VAT, interest and principal. */
export interface GatheredSlice {
  entry: LedgerEntry;
  punitory: Decimal;
  /** null where the installment does not record its parts */
  vat: Decimal | null;
  interest: Decimal | null;
  principal: Decimal | null;
}

export interface Gathered {
  business: { id: string; name: string };
  client: { id: string; first_name: string | null; last_name: string | null; dni: string; cuit: string | null };
  credit: Credit;
  installments: GatheredInstallment[];
  /** every ledger entry of the credit, oldest first (the balances are computed from them) */
  ledger: LedgerEntry[];
  /** oldest first (paid_on, then when recorded) */
  payments: GatheredPayment[];
  /** branch id → name, for the credit's and the payments' branches */
  branchNames: Map<string, string>;
}

const dateOrder = (d: Date | string) => new Date(d).getTime();

/**
 * Everything a statement or a receipt shows, read in the caller's snapshot. This is the one place
 * that knows where payments, installment parts and the client's CUIT come from:
 *
 * - payments: today the credit's `payment` ledger entries grouped by `payment_id` (an entry
 *   without one is a payment of its own); the group written last on a refinanced credit is the
 *   refinance settlement (the rule reports.ts uses for cash collected); nothing is reversed yet.
 *   MERGE: take them from `listPayments(db, businessId, creditId)` (services/payments.ts), with
 *   `reversed_at`/`reversal_reason` from there, `origin` from the ledger's `origin`, and `slices` =
 *   the entries with that `payment_id` and origin `payment` (not the reversal's or a rebate's).
 * - installment parts: today there are none, so the whole amount is principal (interest and VAT
 *   0). MERGE: the installments' `principal`, `interest` and `vat` columns (picked up below as soon
 *   as the rows carry them). A slice's parts follow from them: inside an installment a payment
 *   goes to punitory, then VAT, interest, principal (DOMAIN.md), replayed here in date order.
 * - cuit: the client's `cuit` column when the rows carry it (picked up below), null otherwise.
 */
export async function gatherStatement(db: Kysely<DB>, businessId: string, creditId: string): Promise<Gathered> {
  const credit = await getCredit(db, businessId, creditId);
  if (!credit) throw notFound('credit');
  const [business, client, installments, ledger] = await Promise.all([
    getBusiness(db, businessId),
    getClient(db, businessId, credit.client_id),
    installmentsOfCredit(db, businessId, credit.id),
    ledgerOfCredit(db, businessId, credit.id),
  ]);
  // the database's keys make both certain: a credit belongs to a client of its business
  if (!business || !client) throw notFound('credit');

  const withParts = installments.map((i): GatheredInstallment => {
    const row = i as Installment & { principal?: string | null; interest?: string | null; vat?: string | null };
    return row.principal !== undefined
      ? { ...i, principal: row.principal ?? null, interest: row.interest ?? null, vat: row.vat ?? null }
      : { ...i, principal: String(i.amount), interest: '0', vat: '0' };
  });

  const slices = splitSlices(withParts, ledger);
  const groups = new Map<string, GatheredSlice[]>();
  for (const sl of slices) {
    const key = sl.entry.payment_id ?? sl.entry.id;
    const g = groups.get(key);
    if (g) g.push(sl);
    else groups.set(key, [sl]);
  }
  // the last payment written (entries come oldest first): on a refinanced credit, the settlement
  const lastWritten = ledger.findLast((e) => e.type === 'payment');
  const settlement = lastWritten ? (lastWritten.payment_id ?? lastWritten.id) : null;
  const payments = [...groups].map(([id, slices]): GatheredPayment => {
    const first = slices[0]!.entry;
    return {
      id,
      amount: slices.reduce((s, sl) => s.plus(money(sl.entry.amount)), new Dec(0)).toFixed(2),
      paid_on: first.effective_date,
      branch_id: first.branch_id,
      created_by: first.created_by,
      created_at: first.created_at,
      reversed_at: null,
      reversal_reason: null,
      origin: credit.status === 'refinanced' && id === settlement ? 'refinance' : 'payment',
      slices: slices.sort((a, b) => dateOrder(a.entry.created_at) - dateOrder(b.entry.created_at)),
    };
  });
  payments.sort((a, b) => a.paid_on.localeCompare(b.paid_on) || dateOrder(a.created_at) - dateOrder(b.created_at));

  const branchIds = new Set([credit.branch_id, ...payments.map((p) => p.branch_id)].filter((b) => b !== null));
  const branches = await Promise.all([...branchIds].map((id) => getBranch(db, businessId, id)));
  const branchNames = new Map(branches.filter((b) => b !== undefined).map((b) => [b.id, b.name]));

  const cuit = (client as { cuit?: string | null }).cuit ?? null;
  return {
    business: { id: business.id, name: business.name },
    client: { id: client.id, first_name: client.first_name, last_name: client.last_name, dni: client.dni, cuit },
    credit,
    installments: withParts,
    ledger,
    payments,
    branchNames,
  };
}

/**
 * Each payment entry split into what it paid: its punitory part, then the rest to the
 * installment's VAT, interest and principal in that order, replaying the installment's payments in
 * date order (as they were allocated). Parts not recorded: null.
 */
function splitSlices(installments: GatheredInstallment[], ledger: LedgerEntry[]): GatheredSlice[] {
  const left = new Map(
    installments.map((i) => [
      i.id,
      i.principal === null || i.interest === null || i.vat === null
        ? null
        : { vat: money(i.vat), interest: money(i.interest), principal: money(i.principal) },
    ]),
  );
  const ordered = ledger
    .filter((e) => e.type === 'payment')
    .sort(
      (a, b) => a.effective_date.localeCompare(b.effective_date) || dateOrder(a.created_at) - dateOrder(b.created_at),
    );
  return ordered.map((entry) => {
    const punitory = money(entry.punitory_part);
    const parts = left.get(entry.installment_id);
    if (!parts) return { entry, punitory, vat: null, interest: null, principal: null };
    let rest = money(entry.amount).minus(punitory);
    const take = (k: 'vat' | 'interest') => {
      const t = Dec.max(0, Dec.min(rest, parts[k]));
      parts[k] = parts[k].minus(t);
      rest = rest.minus(t);
      return t;
    };
    const vat = take('vat');
    const interest = take('interest');
    // whatever is left pays principal (all of it, should an amount ever exceed the parts)
    parts.principal = parts.principal.minus(rest);
    return { entry, punitory, vat, interest, principal: rest };
  });
}

// ---------------------------------------------------------------- the documents

/** Reads in one snapshot: what a concurrent payment commits is wholly in or wholly out. */
function inSnapshot<T>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').execute(fn);
}

const num = (v: string | number | Decimal) => toMoneyNumber(money(v));
const orNull = (v: string | Decimal | null) => (v === null ? null : num(v));

function header(g: Gathered) {
  const c = g.credit;
  return {
    business: g.business,
    client: g.client,
    credit: {
      id: c.id,
      sequential_id: Number(c.sequential_id),
      status: c.status,
      amount: num(c.amount),
      total: num(c.total),
      start_date: c.start_date,
      branch_id: c.branch_id,
      branch_name: c.branch_id ? (g.branchNames.get(c.branch_id) ?? null) : null,
    },
  };
}

function presentPayment(p: GatheredPayment, g: Gathered): Static<typeof StatementPayment> {
  return {
    id: p.id,
    paid_on: p.paid_on,
    amount: num(p.amount),
    branch_id: p.branch_id,
    branch_name: p.branch_id ? (g.branchNames.get(p.branch_id) ?? null) : null,
    origin: p.origin,
    created_by: p.created_by,
    created_at: p.created_at,
    reversed_at: p.reversed_at,
    reversal_reason: p.reversal_reason,
  };
}

/** What each installment owes as of `asOf`, from these ledger entries. */
function owedAsOf(g: Gathered, ledger: LedgerEntry[], asOf: string, timezone: string): Map<string, Owed> {
  return owedOfCredits([g.credit], g.installments, ledger, asOf, timezone);
}

/** The credit's statement as of the business's today: the figures of the credit read, with its client and payments. */
export async function creditStatement(db: Kysely<DB>, ctx: ActorContext, creditId: string): Promise<StatementDocument> {
  const g = await inSnapshot(db, (trx) => gatherStatement(trx, ctx.businessId, creditId));
  const owed = owedAsOf(g, g.ledger, ctx.today, ctx.timezone);
  return {
    as_of: ctx.today,
    ...header(g),
    installments: g.installments.map((i) => ({
      id: i.id,
      number: i.number,
      due_date: i.due_date,
      amount: num(i.amount),
      principal: orNull(i.principal),
      interest: orNull(i.interest),
      vat: orNull(i.vat),
      status: i.status,
      ...delinquency({ dueDate: i.due_date, status: i.status, paidDate: i.paid_date }, ctx.today),
      ...presentBalance(owed.get(i.id)!),
    })),
    payments: g.payments.map((p) => presentPayment(p, g)),
    balance: presentBalance(sumOwed([...owed.values()])),
  };
}

/**
 * The receipt of one payment of the credit (404 when the payment is not the credit's): how it was
 * applied, slice by slice, and the credit's balance right after it was recorded, as of its date.
 */
export async function paymentReceipt(
  db: Kysely<DB>,
  ctx: ActorContext,
  creditId: string,
  paymentId: string,
): Promise<ReceiptDocument> {
  const g = await inSnapshot(db, (trx) => gatherStatement(trx, ctx.businessId, creditId));
  const payment = g.payments.find((p) => p.id === paymentId);
  if (!payment) throw notFound('payment');

  // the ledger as it stood once the payment was recorded: every entry written up to its last
  // slice (the punitory it posted first included), nothing written after
  const recorded = Math.max(...payment.slices.map((s) => dateOrder(s.entry.created_at)));
  const upTo = g.ledger.filter((e) => dateOrder(e.created_at) <= recorded);
  const asOf = upTo.reduce((d, e) => (e.effective_date > d ? e.effective_date : d), payment.paid_on);
  const owed = owedAsOf(g, upTo, asOf, ctx.timezone);
  const byId = new Map(g.installments.map((i) => [i.id, i]));

  return {
    as_of: ctx.today,
    ...header(g),
    payment: presentPayment(payment, g),
    applied: payment.slices.map((s) => {
      const i = byId.get(s.entry.installment_id)!;
      return {
        installment_id: i.id,
        number: i.number,
        due_date: i.due_date,
        amount: num(s.entry.amount),
        punitory: num(s.punitory),
        principal: orNull(s.principal),
        interest: orNull(s.interest),
        vat: orNull(s.vat),
        outstanding_after: num(owed.get(i.id)!.outstanding),
      };
    }),
    balance_after: presentBalance(sumOwed([...owed.values()])),
  };
}
