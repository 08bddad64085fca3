// Reports as the API and the command line present them: the portfolio summary (figures computed
// in SQL, turned into JSON numbers here) and the CSV exports (rows one batch at a time, quoted by
// csv-stringify). Decisions: docs/reports.md.
import { stringify } from 'csv-stringify/sync';
import { Type, type TObject, type TSchema } from 'typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { readsOf, type ActorContext, type Database } from './context.ts';
import { getBranch } from '../db/repositories/branches.ts';
import { listBusinesses } from '../db/repositories/businesses.ts';
import { collectionRows, refreshSummaryFigures, type CollectionsGroup } from '../db/repositories/reports.ts';
import {
  countRows,
  exportBatches,
  exportQuery,
  summaryFigures,
  type Bound,
  type Dataset,
  type ExportFilter,
  type ExportRow,
  type SummaryQuery,
} from '../db/repositories/reports.ts';
import {
  AuditLogEntry,
  Client,
  Credit,
  Installment,
  type JsonSchema,
  LedgerEntry,
  Payment,
} from '../domain/records.ts';
import { notFound } from '../domain/errors.ts';
import { isValidDate, money, todayIn, toMoneyNumber } from '../domain/index.ts';
import { installmentDelinquency, paymentKind, recordBuilder, type Computed } from './present.ts';

export { DATASETS, type Dataset, type Bound } from '../db/repositories/reports.ts';

const amount = (s: string) => toMoneyNumber(money(s));
const ratio = (s: string | number) => Number(s);
const both = (a: string, r: string) => ({ amount: amount(a), ratio: ratio(r) });

export const SITUATIONS = ['1', '2', '3', '4', '5'] as const;

/**
 * The kept per-credit figures of every business whose day changed since this process last
 * refreshed it (lastDay: business id → day, kept by the caller): the summary as of its today, run
 * on the primary to store them (docs/reports.md, "Per-credit figures kept for the day"). Returns
 * the businesses refreshed. A business another process is refreshing is left to it.
 */
export async function refreshDailySummaryFigures(
  db: Database,
  now: Date,
  lastDay: Map<string, string>,
): Promise<number> {
  const businesses = await listBusinesses(db.kysely);
  let n = 0;
  for (const b of businesses) {
    const today = todayIn(b.timezone, now);
    if (lastDay.get(b.id) === today) continue;
    if (await refreshSummaryFigures(db.kysely, { businessId: b.id, timezone: b.timezone, today })) n++;
    lastDay.set(b.id, today);
  }
  return n;
}

/** The portfolio figures as of a date; a branch that is not the business's is 404. */
export async function portfolioSummary(database: Database, ctx: Pick<ActorContext, 'actor'> | null, q: SummaryQuery) {
  const db = await readsOf(database, ctx);
  if (q.branchId && !(await getBranch(db, q.businessId, q.branchId))) throw notFound('branch');
  // the figures worked out are stored for the next read of the day on the primary only: a
  // replica's handle is read-only (docs/reports.md, "Per-credit figures kept for the day")
  const r = await summaryFigures(db, q, { store: db === database.kysely });
  const situations = Object.fromEntries(
    r.situations.map((s) => [String(s.s), { clients: Number(s.clients), outstanding: amount(s.outstanding) }]),
  ) as Record<(typeof SITUATIONS)[number], { clients: number; outstanding: number }>;
  return {
    as_of: q.asOf,
    clients: Number(r.clients),
    credits: {
      active: Number(r.active),
      refinanced: Number(r.refinanced),
      closed: Number(r.closed),
      written_off: Number(r.written_off),
      inactive: Number(r.inactive),
    },
    disbursed: amount(r.disbursed),
    disbursed_refinanced: amount(r.disbursed_refinanced),
    outstanding: amount(r.outstanding),
    written_off_outstanding: amount(r.written_off_outstanding),
    overdue: amount(r.overdue),
    par: {
      par1: both(r.par1, r.par1_ratio),
      par30: both(r.par30, r.par30_ratio),
      par60: both(r.par60, r.par60_ratio),
      par90: both(r.par90, r.par90_ratio),
    },
    situations,
    collected: { day: amount(r.collected_day), month: amount(r.collected_month) },
    branches: r.branches.map((b) => ({
      branch_id: b.branch_id,
      name: b.name,
      outstanding: amount(b.outstanding),
      overdue: amount(b.overdue),
      par30: both(b.par30, b.par30_ratio),
    })),
  };
}

export type PortfolioSummary = Awaited<ReturnType<typeof portfolioSummary>>;

// ---------------------------------------------------------------- exports

/** YYYY-MM-DD, or an RFC 3339 date-time with its offset. */
export const BOUND_PATTERN = '^\\d{4}-\\d{2}-\\d{2}([Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2}))?$';
const DATETIME_RE = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** A from/to value as a bound, or null when it is not a real date or instant (2024-02-30, 25:00). */
export function parseBound(s: string): Bound | null {
  if (isValidDate(s)) return { date: s };
  const m = DATETIME_RE.exec(s);
  if (!m || !isValidDate(m[1])) return null;
  const [hh, mm, ss, oh, om] = [m[2], m[3], m[4], m[5] ?? '0', m[6] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (hh > 23 || mm > 59 || ss > 59 || oh > 15 || om > 59) return null;
  return { instant: s };
}

// Each dataset is a record of the contract: its CSV columns are the record's properties in order
// (the contract's fields, then our extensions), a row is the record as the API presents it, with
// money as the database's numeric text ("1234.50"): no float on the way to the file.
// (computed: of the dataset's own row type, unknown here)

/**
 * The installments export: the contract's fields and the delinquency, then every part of the
 * amount as the schedule stored it (principal, interest, vat, insurance, fees: they add up to
 * the amount; vat holds the VAT of the interest, the insurance and the fees, docs/domain.md
 * "Fees and charges"). What an installment owes (punitory_posted, punitory_accrued, paid,
 * outstanding) is a figure of the day it is read, computed from the ledger; the ledger export has
 * its entries.
 */
const InstallmentColumns = Type.Pick(Installment, [
  'id',
  'credit_id',
  'number',
  'amount',
  'due_date',
  'status',
  'overdue',
  'days_late',
  'created_at',
  'updated_at',
  'principal',
  'interest',
  'vat',
  'insurance',
  'fees',
]);

const EXPORTS: Record<Dataset, { record: TObject; computed?: Computed<never> }> = {
  clients: { record: Client },
  credits: { record: Credit },
  installments: { record: InstallmentColumns, computed: installmentDelinquency },
  ledger: { record: LedgerEntry },
  payments: { record: Payment, computed: paymentKind },
  logs: { record: AuditLogEntry },
};

/** The CSV header: the record's properties in order. */
const columnsOf = (dataset: Dataset) => Object.keys(EXPORTS[dataset].record.properties);

/** The columns an export reads: the record's stored properties and those its computed ones are computed from. */
function selectOf(dataset: Dataset): string[] {
  const { record, computed } = EXPORTS[dataset];
  const stored = Object.keys(record.properties).filter((k) => !(computed && k in computed.fields.properties));
  return [...new Set([...stored, ...(computed?.columns ?? [])])];
}

type Cell = string | number | null;
/** A presented value as a CSV cell: instants in RFC 3339 as in the API's JSON, booleans true/false. */
const cell = (v: unknown): Cell =>
  v instanceof Date ? v.toISOString() : typeof v === 'boolean' ? (v ? 'true' : 'false') : (v as Cell);

/** Whether a record field holds a number (money, counts), possibly null: its cells are figures. */
const isNumeric = (t: TSchema | JsonSchema): boolean => {
  const s = t as JsonSchema;
  return s.type === 'number' || s.type === 'integer' || (Array.isArray(s.anyOf) && s.anyOf.some(isNumeric));
};

// A spreadsheet runs a cell that starts with one of these as a formula (CSV injection): a text
// cell that does gets a leading apostrophe, as OWASP recommends, so it shows as text. Figures are
// written as they are: a negative amount stays a number.
const FORMULA_START = /^[=+\-@\t\r]/;
const asText = (v: Cell): Cell => (typeof v === 'string' && FORMULA_START.test(v) ? `'${v}` : v);

function csvRow(dataset: Dataset): (r: ExportRow, today: string) => Cell[] {
  const { record, computed } = EXPORTS[dataset];
  const build = recordBuilder(record);
  const text = Object.values(record.properties).map((s) => !isNumeric(s));
  return (r, today) =>
    Object.values(build(r, computed?.of(r as never, today), 'text')).map((v, i) =>
      text[i] ? asText(cell(v)) : cell(v),
    );
}

// RFC 4180: CRLF between records; a field holding a comma, a quote, CR or LF is quoted, quotes
// doubled. csv-stringify quotes the record delimiter, not a lone LF or CR: quoted_match adds them.
const CSV = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;

export interface ExportOptions extends ExportFilter {
  /** the business's today: installments' overdue and days_late */
  today: string;
  /** whose export it is (the API caller; none for the command line): read-your-writes on a replica */
  actor?: string;
  /** the Consistency-Token the caller brought: the replica serves the export only once it has that write */
  readAfter?: string | null;
  batchSize?: number;
}

/**
 * The CSV of a dataset: the header, then one chunk of text per fetched batch with its row
 * count. Nothing is read from the database until the first batch is asked for, and the next
 * batch only when the consumer takes this one.
 */
export async function* exportCsv(
  db: Database,
  dataset: Dataset,
  o: ExportOptions,
): AsyncGenerator<{ csv: string; rows: number }> {
  const row = csvRow(dataset);
  yield { csv: stringify([columnsOf(dataset)], CSV), rows: 0 };
  const from = await readsOf(db, o.actor === undefined ? null : { actor: o.actor, readAfter: o.readAfter ?? null });
  for await (const batch of exportBatches(db, dataset, selectOf(dataset), o, o.batchSize, from)) {
    yield {
      csv: stringify(
        batch.map((r) => row(r, o.today)),
        CSV,
      ),
      rows: batch.length,
    };
  }
}

/** How many rows an export will have (for a progress bar; a concurrent write may change it). */
export function countExport(db: Kysely<DB>, dataset: Dataset, f: ExportFilter): Promise<number> {
  return countRows(db, exportQuery(db, dataset, selectOf(dataset), f));
}

/** The collections report (docs/reports.md "Collections"): the payments of a period by day, method, channel or branch. */
export async function collectionsReport(
  db: Kysely<DB>,
  q: { businessId: string; from: string; to: string; groupBy: CollectionsGroup },
) {
  const rows = (await collectionRows(db, q)).map((r) => ({
    key: r.key,
    payments: Number(r.payments),
    amount: toMoneyNumber(money(r.amount)),
    reversed_payments: Number(r.reversed_payments),
    reversed_amount: toMoneyNumber(money(r.reversed_amount)),
  }));
  const raw = await collectionRows(db, { ...q, groupBy: 'method' });
  const sum = (f: 'amount' | 'reversed_amount') => raw.reduce((s, r) => s.plus(money(r[f])), money(0));
  const count = (f: 'payments' | 'reversed_payments') => raw.reduce((s, r) => s + Number(r[f]), 0);
  return {
    from: q.from,
    to: q.to,
    group_by: q.groupBy,
    rows,
    totals: {
      payments: count('payments'),
      amount: toMoneyNumber(sum('amount')),
      reversed_payments: count('reversed_payments'),
      reversed_amount: toMoneyNumber(sum('reversed_amount')),
    },
  };
}
