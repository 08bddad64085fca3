// A credit's statement and a payment's receipt: the documents a client takes home from the branch
// counter. Both are read in one snapshot (a repeatable-read transaction), so a payment committing
// meanwhile is either wholly in them or not at all, and they show the figures the credit read
// shows: the installments' balances come from the same ledger arithmetic (lending/engine/state.ts). This
// module builds the JSON documents (records.ts Statement, Receipt); the HTTP layer renders the
// same documents as PDF (src/http/pdf/), so the two representations cannot disagree.
import type { Static } from 'typebox';
import type { Kysely } from 'kysely';
import type { Credit, DB, Installment, LedgerEntry, PaymentMethod } from '../db/schema.ts';
import { getBusiness } from '../db/repositories/businesses.ts';
import { getClient } from '../db/repositories/clients.ts';
import { getCredit } from '../db/repositories/credits.ts';
import { getBranch } from '../db/repositories/branches.ts';
import { installmentsOfCredit } from '../db/repositories/installments.ts';
import { ledgerOfCredit } from '../db/repositories/ledger.ts';
import { paymentsOfCredit } from '../db/repositories/payments.ts';
import { Dec, delinquency, money, toMoneyNumber, type Decimal } from '../domain/index.ts';
import { notFound } from '../domain/errors.ts';
import type { Receipt, Statement, StatementPayment } from '../domain/records.ts';
import type { ActorContext } from './context.ts';
import { owedOfCredits, sumOwed, type Owed } from './lending/engine/state.ts';
import { presentBalance, presentCreditBalance } from './present.ts';

export type StatementDocument = Static<typeof Statement>;
export type ReceiptDocument = Static<typeof Receipt>;

// ---------------------------------------------------------------- what the documents are made of

/** An installment with its parts (text, as numeric columns come). */
export type GatheredInstallment = Installment;

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
  method: PaymentMethod;
  channel: string | null;
  external_reference: string | null;
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
  /** what it paid of the insurance and of the fees, their VAT included */
  insurance: Decimal;
  fees: Decimal;
  /** what it paid of the installment's collection charges, their VAT included */
  charges: Decimal;
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
 * Everything a statement or a receipt shows, read in the caller's snapshot: the payments from the
 * payments table (reversed ones marked), and a refinance settlement from its ledger entries (it is
 * not a payment: no cash); each payment's slices are its entries net per installment (its own and
 * the corrections that allocated it again after a reversal or a backdated payment), split as the
 * ledger records them.
 */
export async function gatherStatement(db: Kysely<DB>, businessId: string, creditId: string): Promise<Gathered> {
  const credit = await getCredit(db, businessId, creditId);
  if (!credit) throw notFound('credit');
  const [business, client, installments, ledger, rows] = await Promise.all([
    getBusiness(db, businessId),
    getClient(db, businessId, credit.client_id),
    installmentsOfCredit(db, businessId, credit.id),
    ledgerOfCredit(db, businessId, credit.id),
    paymentsOfCredit(db, businessId, credit.id),
  ]);
  // the database's keys make both certain: a credit belongs to a client of its business
  if (!business || !client) throw notFound('credit');

  const slicesOf = (paymentId: string, origins: string[]): GatheredSlice[] => {
    const net = new Map<string, LedgerEntry>();
    for (const e of ledger) {
      if (e.payment_id !== paymentId || !origins.includes(e.origin)) continue;
      const n = net.get(e.installment_id);
      net.set(
        e.installment_id,
        n
          ? {
              ...n,
              amount: money(n.amount).plus(money(e.amount)).toFixed(2),
              punitory_part: money(n.punitory_part).plus(money(e.punitory_part)).toFixed(2),
              vat_part: money(n.vat_part).plus(money(e.vat_part)).toFixed(2),
              interest_part: money(n.interest_part).plus(money(e.interest_part)).toFixed(2),
              fees_part: money(n.fees_part).plus(money(e.fees_part)).toFixed(2),
              insurance_part: money(n.insurance_part).plus(money(e.insurance_part)).toFixed(2),
              charge_part: money(n.charge_part).plus(money(e.charge_part)).toFixed(2),
              created_at: e.created_at,
            }
          : e,
      );
    }
    return [...net.values()]
      .filter((e) => !money(e.amount).isZero())
      .map((entry) => {
        const punitory = money(entry.punitory_part);
        const vat = money(entry.vat_part);
        const interest = money(entry.interest_part);
        const insurance = money(entry.insurance_part);
        const fees = money(entry.fees_part);
        const charges = money(entry.charge_part);
        return {
          entry,
          punitory,
          vat,
          interest,
          insurance,
          fees,
          charges,
          principal: money(entry.amount)
            .minus(charges)
            .minus(punitory)
            .minus(vat)
            .minus(interest)
            .minus(insurance)
            .minus(fees),
        };
      });
  };
  const payments: GatheredPayment[] = rows.map((p) => ({
    id: p.id,
    amount: String(p.amount),
    paid_on: p.paid_on,
    branch_id: p.branch_id,
    created_by: p.created_by,
    created_at: p.created_at,
    reversed_at: p.reversed_at,
    reversal_reason: p.reversal_reason,
    method: p.method,
    channel: p.channel,
    external_reference: p.external_reference,
    origin: 'payment',
    slices: slicesOf(p.id, p.reversed_at === null ? ['payment', 'correction'] : ['payment']),
  }));
  const settlement = ledger.find((e) => e.origin === 'refinance');
  if (settlement?.payment_id) {
    const slices = slicesOf(settlement.payment_id, ['refinance']);
    payments.push({
      id: settlement.payment_id,
      amount: slices.reduce((sum, sl) => sum.plus(money(sl.entry.amount)), new Dec(0)).toFixed(2),
      paid_on: settlement.effective_date,
      branch_id: settlement.branch_id,
      created_by: settlement.created_by,
      created_at: settlement.created_at,
      reversed_at: null,
      reversal_reason: null,
      // a settlement moves the balance to the new credit: no cash, no channel
      method: 'other',
      channel: null,
      external_reference: null,
      origin: 'refinance',
      slices,
    });
  }
  payments.sort((a, b) => a.paid_on.localeCompare(b.paid_on) || dateOrder(a.created_at) - dateOrder(b.created_at));

  const branchIds = new Set([credit.branch_id, ...payments.map((p) => p.branch_id)].filter((b) => b !== null));
  const branches = await Promise.all([...branchIds].map((id) => getBranch(db, businessId, id)));
  const branchNames = new Map(branches.filter((b) => b !== undefined).map((b) => [b.id, b.name]));

  const cuit = (client as { cuit?: string | null }).cuit ?? null;
  return {
    business: { id: business.id, name: business.name },
    client: { id: client.id, first_name: client.first_name, last_name: client.last_name, dni: client.dni, cuit },
    credit,
    installments,
    ledger,
    payments,
    branchNames,
  };
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
    method: p.method,
    channel: p.channel,
    external_reference: p.external_reference,
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
      ...delinquency(
        {
          dueDate: i.due_date,
          status: i.status,
          paidDate: i.paid_date,
          cancelled: g.credit.status === 'inactive',
        },
        ctx.today,
      ),
      ...presentBalance(owed.get(i.id)!),
      insurance: num(i.insurance),
      fees: num(i.fees),
    })),
    payments: g.payments.map((p) => presentPayment(p, g)),
    balance: presentCreditBalance(g.installments, [...owed.values()]),
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
        insurance: num(s.insurance),
        fees: num(s.fees),
        charges: num(s.charges),
      };
    }),
    balance_after: presentCreditBalance(g.installments, [...owed.values()]),
  };
}
