// Rows to API records. Each record is declared once (src/domain/records.ts) and built from a row
// key by key, in the declaration's order: the API, the CSV exports (services/reports.ts) and the
// OpenAPI document show one shape. Money becomes a JSON number, a number the driver gives as text
// (bigint, numeric) a number; fields that are not columns (delinquency, a file's URL) are
// computed; columns the record does not declare (hashes, storage keys, term snapshots) are left out.
// Clients need none of this: the API sends their rows and the response schema (the same record)
// picks the fields. Audit entries come written as JSON by the database, field by field from the
// same record (services/audit.ts); auditPageJson puts the page around them.
import { Type, type Static, type TObject, type TSchema } from 'typebox';
import type {
  Branch as BranchRow,
  Client as ClientRow,
  ClientFile as ClientFileRow,
  Credit as CreditRow,
  CreditConfig as CreditConfigRow,
  Installment as InstallmentRow,
  Lead as LeadRow,
  LedgerEntry as LedgerRow,
  Payment as PaymentRow,
  UploadSession as UploadSessionRow,
  PromiseRow,
  WaiverRow,
  ClientNote as NoteRow,
} from '../db/schema.ts';
import type { WorklistRow } from '../db/repositories/installments.ts';
import {
  Branch,
  Client,
  ClientFile,
  Credit,
  CreditConfig,
  Delinquency,
  Installment,
  type JsonSchema,
  Lead,
  LedgerEntry,
  Money,
  PaymentAmount,
  Payment,
  UploadSession,
  WorklistItem,
  PromiseToPay,
  Waiver,
  Note,
} from '../domain/records.ts';
import { Dec, delinquency, money, moneyNumberOf, toMoneyNumber } from '../domain/index.ts';
import { creditCost, type CreditCost } from '../domain/cost.ts';

/** The disclosed cost of a credit, from its schedule as granted. */
type CostRecord = { tna: number; tea: number; cft_tea: number | null };

/** What the disclosed cost is computed from: the credit's terms and its schedule as granted. */
export type CostSource = Pick<CreditRow, 'amount' | 'disbursed' | 'start_date' | 'amortization' | 'interest_rate'>;
export type CostInstallmentSource = Pick<InstallmentRow, 'due_date' | 'amount' | 'principal' | 'interest' | 'vat'>;

/**
 * The disclosed cost solved from the schedule (src/domain/cost.ts, ~3 ms of CPU for 12
 * installments): what a grant stores on the credit (./lending/grant.ts), what the backfill fills
 * in, and what a credit granted before migration 045 shows until then.
 */
export function computeCost(c: CostSource, installments: readonly CostInstallmentSource[]): CreditCost {
  // the principal the schedule was built on (an origination fee financed is in it), and the cash
  const principal = installments.reduce((sum, i) => sum.plus(money(i.principal)), money(0));
  return creditCost({
    amount: principal.gt(0) ? principal : money(c.amount),
    disbursed: money(c.disbursed),
    startDate: c.start_date,
    amortization: c.amortization,
    interestRate: money(c.interest_rate),
    installments: installments.map((i) => ({
      dueDate: i.due_date,
      amount: money(i.amount),
      principal: money(i.principal),
      interest: money(i.interest),
      vat: money(i.vat),
    })),
  });
}

/** The credit's columns that keep its disclosed cost (migration 045), as numeric text. */
export const costColumns = (cost: CreditCost) => ({
  tna: cost.tna.toFixed(),
  tea: cost.tea.toFixed(),
  cft_tea: cost.cft_tea?.toFixed() ?? null,
});

/**
 * A credit granted before migration 045 and not backfilled yet: its cost kept per credit for the
 * process, at most COST_CACHE credits (the oldest entry leaves first). Keyed by the business too,
 * so one tenant's entry is never another's.
 */
const COST_CACHE = 10_000;
const costs = new Map<string, CostRecord>();

/** The disclosed cost: as stored at grant, or computed from the schedule for a credit without it. */
export function presentCost(c: CreditRow, installments: InstallmentRow[]): CostRecord {
  if (c.tna !== null && c.tna !== undefined)
    return { tna: Number(c.tna), tea: Number(c.tea), cft_tea: c.cft_tea === null ? null : Number(c.cft_tea) };
  const key = `${c.business_id}/${c.id}/${installments.length}`;
  const cached = costs.get(key);
  if (cached) return cached;
  const cost = computeCost(c, installments);
  const r = { tna: cost.tna.toNumber(), tea: cost.tea.toNumber(), cft_tea: cost.cft_tea?.toNumber() ?? null };
  if (costs.size >= COST_CACHE) costs.delete(costs.keys().next().value!);
  costs.set(key, r);
  return r;
}
import type { Payoff } from './lending/engine/book.ts';
import { owedOfCredits, sumOwed, type Owed } from './lending/engine/state.ts';

/** A credit with its installments and ledger entries, as read or as a use case left them. */
export interface CreditDetailRows {
  credit: CreditRow;
  installments: InstallmentRow[];
  ledgerEntries: LedgerRow[];
  /** the clients who back the credit, as records (none for a credit just made) */
  guarantors?: { id: string; credit_id: string; client_id: string; role: string; created_at: Date | string }[];
}

/** How money is written: a JSON number (the API), or the database's numeric text as stored ("1234.50": a CSV file, no float on the way). */
export type MoneyAs = 'number' | 'text';

type Row = Record<string, unknown>;
type Kind = 'money' | 'number' | 'as-is';

// money: a property declared with records.ts's Money (or a payment's amount, money of either sign)
const kindOf = (s: TSchema): Kind =>
  s === Money || s === PaymentAmount
    ? 'money'
    : (s as JsonSchema).type === 'integer' || (s as JsonSchema).type === 'number'
      ? 'number'
      : 'as-is';

function convert(kind: Kind, v: unknown, moneyAs: MoneyAs): unknown {
  if (kind === 'money') return moneyAs === 'number' ? moneyNumberOf(v as string) : v;
  if (kind === 'number' && typeof v === 'string') return Number(v);
  return v;
}

/** Builds records of `schema` from rows; `computed` gives the fields that are not columns. */
export function recordBuilder<T extends TObject>(schema: T) {
  const fields = Object.entries(schema.properties).map(([k, s]) => [k, kindOf(s)] as const);
  return (row: object, computed: object = {}, moneyAs: MoneyAs = 'number'): Static<T> => {
    const out: Row = {};
    for (const [k, kind] of fields)
      out[k] = k in computed ? (computed as Row)[k] : convert(kind, (row as Row)[k], moneyAs);
    return out as Static<T>;
  };
}

/** Fields of a record that are not columns: their declaration (part of the record's), the columns they are computed from, and how. */
export interface Computed<R> {
  fields: TObject;
  columns: readonly (keyof R & string)[];
  of(row: R, today: string): object;
}

type DelinquencySource = Pick<InstallmentRow, 'due_date' | 'status' | 'paid_date'> & {
  /** its credit's status (an export reads it with the installment) */
  credit_status?: CreditRow['status'];
};

/** An installment's overdue and days_late as of the business's today (a cancelled credit's: never late). */
export const installmentDelinquency: Computed<DelinquencySource> = {
  fields: Delinquency,
  columns: ['due_date', 'status', 'paid_date', 'credit_status'],
  of: (i, today) =>
    delinquency(
      { dueDate: i.due_date, status: i.status, paidDate: i.paid_date, cancelled: i.credit_status === 'inactive' },
      today,
    ),
};

/** The same of an installment of a credit in this status: a cancelled credit's are never late. */
export const installmentDelinquencyOf = (i: DelinquencySource, today: string, creditStatus: CreditRow['status']) =>
  installmentDelinquency.of({ ...i, credit_status: creditStatus }, today);

export function fileUrl(clientId: string, fileName: string) {
  return `/api/files/${clientId}/${encodeURIComponent(fileName)}`;
}

const client = recordBuilder(Client);
const credit = recordBuilder(Credit);
const installment = recordBuilder(Installment);
const worklistItem = recordBuilder(WorklistItem);
const ledgerEntry = recordBuilder(LedgerEntry);
const file = recordBuilder(ClientFile);
const creditConfig = recordBuilder(CreditConfig);
const branch = recordBuilder(Branch);
const uploadSession = recordBuilder(UploadSession);

const payment = recordBuilder(Payment);
/** A payment's kind: one of amount <= 0 is a payoff close (migration 053), its amount minus the refund. */
export const paymentKind: Computed<Pick<PaymentRow, 'amount'>> = {
  fields: Type.Pick(Payment, ['kind']),
  columns: ['amount'],
  of: (p) => ({ kind: money(p.amount).gt(0) ? 'payment' : 'payoff_close' }),
};
export const presentPayment = (p: PaymentRow) => payment(p, paymentKind.of(p, ''));

export const presentPayoff = (p: Payoff) => ({
  as_of: p.asOf,
  amount: toMoneyNumber(p.amount),
  refundable: toMoneyNumber(p.refundable),
  breakdown: {
    due: toMoneyNumber(p.breakdown.due),
    punitory: toMoneyNumber(p.breakdown.punitory),
    charges: toMoneyNumber(p.breakdown.charges),
    principal: toMoneyNumber(p.breakdown.principal),
    interest: toMoneyNumber(p.breakdown.interest),
    vat: toMoneyNumber(p.breakdown.vat),
    insurance: toMoneyNumber(p.breakdown.insurance),
    fees: toMoneyNumber(p.breakdown.fees),
    rebate: toMoneyNumber(p.breakdown.rebate),
  },
});

/** A CreditBalance (records.ts): the installments' parts and what they owe, summed. */
export function presentCreditBalance(installments: InstallmentRow[], owed: Owed[]) {
  let principal = new Dec(0);
  let interest = new Dec(0);
  let vat = new Dec(0);
  let insurance = new Dec(0);
  let fees = new Dec(0);
  for (const i of installments) {
    principal = principal.plus(money(i.principal));
    interest = interest.plus(money(i.interest));
    vat = vat.plus(money(i.vat));
    insurance = insurance.plus(money(i.insurance ?? 0));
    fees = fees.plus(money(i.fees ?? 0));
  }
  return {
    principal: toMoneyNumber(principal),
    interest: toMoneyNumber(interest),
    vat: toMoneyNumber(vat),
    ...presentBalance(sumOwed(owed)),
    insurance: toMoneyNumber(insurance),
    fees: toMoneyNumber(fees),
  };
}

/** A Balance (records.ts) as JSON numbers. */
export const presentBalance = (o: Owed) => ({
  punitory_posted: toMoneyNumber(o.punitoryPosted),
  punitory_accrued: toMoneyNumber(o.punitoryAccrued),
  charges: toMoneyNumber(o.charges),
  waived: toMoneyNumber(o.waived),
  paid: toMoneyNumber(o.paid),
  outstanding: toMoneyNumber(o.outstanding),
});

export const presentCredit = (c: CreditRow) => credit(c);
export const presentClient = (c: ClientRow) => client(c);
/**
 * An installment with its delinquency and what it owes, both as of the business's today (a
 * cancelled credit's installment is history: never late, accruing nothing).
 */
export const presentInstallment = (i: InstallmentRow, today: string, owed: Owed, creditStatus: CreditRow['status']) =>
  installment(i, { ...installmentDelinquencyOf(i, today, creditStatus), ...presentBalance(owed) });
export const presentWorklistItem = (
  i: WorklistRow,
  today: string,
  owed: Owed,
  collections: { latest_promise: object | null; last_note: object | null },
) => worklistItem(i, { ...installmentDelinquency.of(i, today), ...presentBalance(owed), ...collections });
export const presentLedgerEntry = (e: LedgerRow) => ledgerEntry(e);
const promiseToPay = recordBuilder(PromiseToPay);
const waiver = recordBuilder(Waiver);
export const presentWaiver = (w: WaiverRow & { installment_number: number }) => waiver(w);
const note = recordBuilder(Note);
export const presentPromise = (p: PromiseRow) => promiseToPay(p);
export const presentNote = (n: NoteRow) => note(n);
export const presentFile = (f: ClientFileRow) => file(f, { file_url: fileUrl(f.client_id, f.file_name) });
export const presentCreditConfig = (c: CreditConfigRow) => creditConfig(c);
// the contract types address and phone string, not nullable: an unknown one is ""
export const presentBranch = (b: BranchRow) => branch(b, { address: b.address ?? '', phone: b.phone ?? '' });
export const presentUploadSession = (s: UploadSessionRow) => uploadSession(s);
const lead = recordBuilder(Lead);
// amount_requested is Nullable(Money): the builder converts Money alone
export const presentLead = (l: LeadRow) =>
  lead(l, {
    amount_requested: l.amount_requested === null ? null : toMoneyNumber(money(l.amount_requested)),
  });

/**
 * A credit with its installments and its balance (as of the business's today: `at`) and ledger
 * entries: all of them, or those given (a payment's answer shows only the entries it created).
 */
export function presentDetail(
  d: CreditDetailRows,
  at: { today: string; timezone: string },
  entries: LedgerRow[] = d.ledgerEntries,
) {
  const owed = owedOfCredits([d.credit], d.installments, d.ledgerEntries, at.today, at.timezone);
  return {
    credit: presentCredit(d.credit),
    installments: d.installments.map((i) => presentInstallment(i, at.today, owed.get(i.id)!, d.credit.status)),
    ledgerEntries: entries.map(presentLedgerEntry),
    balance: presentCreditBalance(d.installments, [...owed.values()]),
    cost: presentCost(d.credit, d.installments),
    guarantors: d.guarantors ?? [],
  };
}

/** The body of an audit list page, in the order of the Page record: the items as the database wrote them. */
export function auditPageJson(p: {
  itemsJson: string;
  total: number;
  limit: number;
  offset: number;
  next_cursor: string | null;
}): string {
  return `{"items":${p.itemsJson},"total":${p.total},"limit":${p.limit},"offset":${p.offset},"next_cursor":${JSON.stringify(p.next_cursor)}}`;
}
