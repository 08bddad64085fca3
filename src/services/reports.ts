// Reports as the API and the command line present them: the portfolio summary (figures computed
// in SQL, turned into JSON numbers here) and the CSV exports (rows from a cursor, one batch at a
// time, quoted by csv-stringify). Decisions: docs/reports.md.
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { getBranch } from '../db/repositories/branches.ts';
import {
  countExport,
  cursorBatches,
  exportQueries,
  summaryFigures,
  type Bound,
  type Dataset,
  type ExportFilter,
  type ExportRow,
  type SummaryQuery,
} from '../db/repositories/reports.ts';
import { notFound } from '../domain/errors.ts';
import { delinquency, isValidDate, money, toMoneyNumber } from '../domain/index.ts';

export { DATASETS, type Dataset, type Bound } from '../db/repositories/reports.ts';

const amount = (s: string) => toMoneyNumber(money(s));
const ratio = (s: string | number) => Number(s);
const both = (a: string, r: string) => ({ amount: amount(a), ratio: ratio(r) });

export const SITUATIONS = ['1', '2', '3', '4', '5'] as const;

/** The portfolio figures as of a date; a branch that is not the business's is 404. */
export async function portfolioSummary(db: Kysely<DB>, q: SummaryQuery) {
  if (q.branchId && !(await getBranch(db, q.businessId, q.branchId))) throw notFound('branch');
  const r = await summaryFigures(db, q);
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
  const [hh, mm, ss, oh, om] = [m[2], m[3], m[4], m[5] ?? '0', m[6] ?? '0'].map(Number) as [number, number, number, number, number];
  if (hh > 23 || mm > 59 || ss > 59 || oh > 15 || om > 59) return null;
  return { instant: s };
}

type Cell = string | number | null;
const iso = (d: Date | string | null) => (d === null ? null : d instanceof Date ? d.toISOString() : d);
const bool = (b: boolean) => (b ? 'true' : 'false');

interface DatasetDef<D extends Dataset> {
  /** the record's fields in the contract's order, then our extensions */
  columns: string[];
  row(r: ExportRow<D>, today: string): Cell[];
}

// Money stays the database's numeric text ("1234.50"): no float on the way to the file.
const DEFS: { [D in Dataset]: DatasetDef<D> } = {
  clients: {
    columns: ['id', 'business_id', 'first_name', 'last_name', 'dni', 'sex', 'street', 'street_number', 'floor', 'apartment', 'city', 'state', 'country', 'zip_code', 'phone', 'alt_phone', 'email', 'created_at', 'updated_at'],
    row: (r) => [r.id, r.business_id, r.first_name, r.last_name, r.dni, r.sex, r.street, r.street_number, r.floor, r.apartment, r.city, r.state, r.country, r.zip_code, r.phone, r.alt_phone, r.email, iso(r.created_at), iso(r.updated_at)],
  },
  credits: {
    columns: ['id', 'client_id', 'credit_config_id', 'amount', 'status', 'refinanced_from_id', 'created_by', 'origin_transaction_reference', 'branch_id', 'sequential_id', 'created_at', 'updated_at', 'written_off_at', 'write_off_reason', 'total', 'start_date'],
    row: (r) => [r.id, r.client_id, r.credit_config_id, r.amount, r.status, r.refinanced_from_id, r.created_by, r.origin_transaction_reference, r.branch_id, r.sequential_id, iso(r.created_at), iso(r.updated_at), iso(r.written_off_at), r.write_off_reason, r.total, r.start_date],
  },
  installments: {
    columns: ['id', 'credit_id', 'number', 'amount', 'due_date', 'status', 'overdue', 'days_late', 'created_at', 'updated_at'],
    row: (r, today) => {
      const d = delinquency({ dueDate: r.due_date, status: r.status, paidDate: r.paid_date }, today);
      return [r.id, r.credit_id, r.number, r.amount, r.due_date, r.status, bool(d.overdue), d.days_late, iso(r.created_at), iso(r.updated_at)];
    },
  },
  ledger: {
    columns: ['id', 'installment_id', 'type', 'amount', 'branch_id', 'created_by', 'created_at', 'credit_id', 'effective_date'],
    row: (r) => [r.id, r.installment_id, r.type, r.amount, r.branch_id, r.created_by, iso(r.created_at), r.credit_id, r.effective_date],
  },
  logs: {
    columns: ['id', 'table_name', 'action', 'record_id', 'old_data', 'new_data', 'business_id', 'branch_id', 'changed_at', 'impersonated_by', 'actor'],
    row: (r) => [r.id, r.table_name, r.action, r.record_id, r.old_data, r.new_data, r.business_id, r.branch_id, iso(r.changed_at), r.impersonated_by, r.actor],
  },
};

export const columnsOf = (dataset: Dataset) => DEFS[dataset].columns;

// RFC 4180: CRLF between records; a field holding a comma, a quote, CR or LF is quoted, quotes
// doubled. csv-stringify quotes the record delimiter, not a lone LF or CR: quoted_match adds them.
const CSV = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;

export interface ExportOptions extends ExportFilter {
  /** the business's today: installments' overdue and days_late */
  today: string;
  batchSize?: number;
}

/**
 * The CSV of a dataset: the header, then one chunk of text per fetched batch with its row
 * count. Nothing is read from the database until the first batch is asked for, and the next
 * batch only when the consumer takes this one.
 */
export async function* exportCsv(db: Kysely<DB>, dataset: Dataset, o: ExportOptions): AsyncGenerator<{ csv: string; rows: number }> {
  const def = DEFS[dataset] as unknown as DatasetDef<Dataset>;
  yield { csv: stringify([def.columns], CSV), rows: 0 };
  const query = exportQueries[dataset](db, o);
  for await (const batch of cursorBatches(db, query, o.batchSize)) {
    yield { csv: stringify(batch.map((r) => def.row(r as never, o.today)), CSV), rows: batch.length };
  }
}

export { countExport };
