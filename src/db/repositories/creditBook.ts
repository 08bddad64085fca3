// A locked credit's book in one statement: its installments (by number), its ledger (in ledger
// order), its payments (in the order they apply) and its punitory watermark, what a write on the
// credit reads after taking the credit's lock (src/services/lending/store.ts). One round trip
// instead of four. The reading is the SQL function lending_credit_book (migration 061), VOLATILE so
// that it reads with a snapshot of its own: called from the locking statement (LOCK_AND_BOOK) it
// reads after the lock, which a plain subquery of that statement would not (it would read with the
// snapshot the statement started with, and miss what was committed while it waited for the lock).
//
// The rows come as JSON and are given back as the other repositories give them: numerics as their
// exact text, dates as text, instants as Dates (to the millisecond, as both drivers parse them).
import { CompiledQuery } from 'kysely';
import type { ActorSettings, Executor } from '../connection.ts';
import { preparedText } from '../prepared.ts';
import type { Credit, Installment, LedgerEntry, Payment } from '../schema.ts';

const ms = (col: string) => `floor(extract(epoch FROM ${col}) * 1000)`;

/** $1 business, $2 credit: the book alone (no branch), after a lock taken by an earlier statement. */
const CREDIT_BOOK = preparedText(
  'credit_book',
  `SELECT book_installments AS installments, book_ledger AS ledger, book_payments AS payments,
          book_posted_through AS posted_through
     FROM lending_credit_book($1::uuid, $2::uuid, '{}'::uuid[])`,
);

export interface CreditBookRows {
  installments: Installment[];
  ledger: LedgerEntry[];
  payments: Payment[];
  /** the date punitory is posted through, null when never */
  postedThrough: string | null;
}

type Raw = Record<string, unknown>;
const instant = (v: unknown) => (v === null || v === undefined ? null : new Date(Number(v)));

interface RawBook {
  installments: Raw[];
  ledger: Raw[];
  payments: Raw[];
  posted_through: string | null;
}

export async function creditBook(db: Executor, businessId: string, creditId: string): Promise<CreditBookRows> {
  const { rows } = await db.executeQuery<RawBook>(CompiledQuery.raw(CREDIT_BOOK, [businessId, creditId]));
  return bookRows(rows[0]!);
}

/** A branch a write names, read under its share lock: where the write's entries may go. */
export interface SharedBranch {
  id: string;
  name: string;
  deleted: boolean;
}

/**
 * $1 business, $2 credit, $3 actor, $4 impersonated by ('' for none), $5 branches (uuid[]), $6 the
 * credit's own branch too (boolean): the credit locked (FOR UPDATE) with the audit trigger's
 * settings for the transaction's writer set, then its book and the branches given (and the
 * credit's, when $6) share-locked in the order of their ids, read after the lock (migration 061):
 * a payment's first statement. Exported for the bench.
 */
export const LOCK_AND_BOOK = preparedText(
  'lock_and_book',
  `SELECT c.*, b.book_installments, b.book_ledger, b.book_payments, b.book_posted_through, b.book_branches
     FROM lending_lock_credit($1::uuid, $2::uuid, $3::text, $4::text) c
    CROSS JOIN LATERAL lending_credit_book($1::uuid, c.id,
                 CASE WHEN $6::boolean AND c.branch_id IS NOT NULL THEN $5::uuid[] || c.branch_id ELSE $5::uuid[] END) b`,
  // a payment's first statement: with its BEGIN in one round trip on PostgreSQL
  { foldsBegin: true },
);

/** The branches a write may take, before its credit is read: those named, and perhaps the credit's own. */
export interface BranchCandidates {
  named: string[];
  /** the credit's branch too (read in the same statement as the credit) */
  creditsOwn: boolean;
}

/**
 * The credit locked with the writer's audit settings set, its book, and the branches it may take
 * share-locked, in one statement (LOCK_AND_BOOK): one round trip for what a payment reads. Undefined
 * when the business has no such credit (nothing locked, nothing set).
 */
export async function lockAndReadBook(
  db: Executor,
  businessId: string,
  creditId: string,
  as: ActorSettings,
  branches: BranchCandidates,
): Promise<{ credit: Credit; book: CreditBookRows; branches: SharedBranch[] } | undefined> {
  const { rows } = await db.executeQuery<
    Credit & {
      book_installments: Raw[];
      book_ledger: Raw[];
      book_payments: Raw[];
      book_posted_through: string | null;
      book_branches: SharedBranch[];
    }
  >(
    CompiledQuery.raw(LOCK_AND_BOOK, [
      businessId,
      creditId,
      as.actor,
      as.impersonatedBy,
      branches.named,
      branches.creditsOwn,
    ]),
  );
  const r = rows[0];
  if (!r) return undefined;
  const { book_installments, book_ledger, book_payments, book_posted_through, book_branches, ...credit } = r;
  return {
    credit: credit as Credit,
    book: bookRows({
      installments: book_installments,
      ledger: book_ledger,
      payments: book_payments,
      posted_through: book_posted_through,
    }),
    branches: book_branches,
  };
}

/**
 * The books of several credits, each as creditBook reads it, in one statement (a payment import's
 * batch, after locking them all): credit id → book. Set-based: each table is read once for all the
 * credits (credit_id = ANY), each row a JSON array of its columns (no keys, no jsonb), so a batch
 * of 500 credits costs three index scans and a third of the bytes a JSON object a row would.
 */
export async function creditBooks(
  db: Executor,
  businessId: string,
  creditIds: string[],
): Promise<Map<string, CreditBookRows>> {
  if (creditIds.length === 0) return new Map();
  const { rows } = await db.executeQuery<{
    installments: unknown[][] | null;
    ledger: unknown[][] | null;
    payments: unknown[][] | null;
    accruals: [string, string][] | null;
  }>(CompiledQuery.raw(CREDIT_BOOKS, [businessId, creditIds]));
  const r = rows[0]!;
  const books = new Map<string, CreditBookRows>(
    creditIds.map((id) => [id, { installments: [], ledger: [], payments: [], postedThrough: null }]),
  );
  const bookOf = (id: unknown) => books.get(id as string)!;
  for (const x of r.installments ?? [])
    bookOf(x[0]).installments.push({
      business_id: businessId,
      credit_id: x[0],
      id: x[1],
      number: x[2],
      amount: x[3],
      due_date: x[4],
      status: x[5],
      paid_date: x[6],
      created_at: instant(x[7]),
      updated_at: instant(x[8]),
      principal: x[9],
      interest: x[10],
      vat: x[11],
      insurance: x[12],
      insurance_vat: x[13],
      fees: x[14],
      fees_vat: x[15],
      tolerance_days: x[16],
    } as Installment);
  for (const x of r.ledger ?? [])
    bookOf(x[0]).ledger.push({
      business_id: businessId,
      credit_id: x[0],
      id: x[1],
      installment_id: x[2],
      type: x[3],
      origin: x[4],
      amount: x[5],
      punitory_part: x[6],
      vat_part: x[7],
      interest_part: x[8],
      charge_part: x[9],
      fees_part: x[10],
      insurance_part: x[11],
      effective_date: x[12],
      payment_id: x[13],
      branch_id: x[14],
      created_by: x[15],
      created_at: instant(x[16]),
    } as LedgerEntry);
  for (const x of r.payments ?? [])
    bookOf(x[0]).payments.push({
      business_id: businessId,
      credit_id: x[0],
      id: x[1],
      amount: x[2],
      paid_on: x[3],
      branch_id: x[4],
      created_by: x[5],
      created_at: instant(x[6]),
      reversed_at: instant(x[7]),
      reversal_reason: x[8],
      reversed_by: x[9],
      method: x[10],
      channel: x[11],
      external_reference: x[12],
    } as Payment);
  for (const [id, through] of r.accruals ?? []) bookOf(id).postedThrough = through;
  return books;
}

/**
 * $1 business, $2 the credits (uuid[]): the rows CREDIT_BOOK reads, for all of them at once, in
 * its order within each credit; each row an array of its columns in the order creditBooks takes
 * them. The credits' installments are read once (i) and the ledger's order takes their numbers
 * from there: joined to the whole table instead, the planner read every installment of the
 * business (a parallel scan of the table) for a batch's few thousand. Exported for the import
 * bench's ceiling (bench/import.ts).
 */
export const CREDIT_BOOKS = preparedText(
  'credit_books',
  `
WITH i AS MATERIALIZED (
  SELECT * FROM installments WHERE business_id = $1::uuid AND credit_id = ANY($2::uuid[]))
SELECT
  (SELECT json_agg(json_build_array(i.credit_id, i.id, i.number, i.amount::text, i.due_date, i.status, i.paid_date,
            ${ms('i.created_at')}, ${ms('i.updated_at')}, i.principal::text, i.interest::text, i.vat::text,
            i.insurance::text, i.insurance_vat::text, i.fees::text, i.fees_vat::text, i.tolerance_days)
          ORDER BY i.credit_id, i.number)
     FROM i) AS installments,
  (SELECT json_agg(json_build_array(l.credit_id, l.id, l.installment_id, l.type, l.origin, l.amount::text,
            l.punitory_part::text, l.vat_part::text, l.interest_part::text, l.charge_part::text, l.fees_part::text,
            l.insurance_part::text, l.effective_date, l.payment_id, l.branch_id, l.created_by, ${ms('l.created_at')})
          ORDER BY l.credit_id, l.created_at, l.effective_date,
                   CASE l.type WHEN 'installment' THEN 0 WHEN 'punitory' THEN 1 ELSE 2 END, i.number, l.id)
     FROM ledger l
     JOIN i ON i.credit_id = l.credit_id AND i.id = l.installment_id
    WHERE l.business_id = $1::uuid AND l.credit_id = ANY($2::uuid[])) AS ledger,
  (SELECT json_agg(json_build_array(p.credit_id, p.id, p.amount::text, p.paid_on, p.branch_id, p.created_by,
            ${ms('p.created_at')}, ${ms('p.reversed_at')}, p.reversal_reason, p.reversed_by, p.method, p.channel,
            p.external_reference)
          ORDER BY p.credit_id, p.paid_on, p.created_at, p.id)
     FROM payments p WHERE p.business_id = $1::uuid AND p.credit_id = ANY($2::uuid[])) AS payments,
  (SELECT json_agg(json_build_array(a.credit_id, a.posted_through))
     FROM credit_accruals a WHERE a.business_id = $1::uuid AND a.credit_id = ANY($2::uuid[])) AS accruals`,
);

function bookRows(r: RawBook): CreditBookRows {
  return {
    installments: r.installments.map(
      (i) => ({ ...i, created_at: instant(i.created_at), updated_at: instant(i.updated_at) }) as unknown as Installment,
    ),
    ledger: r.ledger.map((e) => ({ ...e, created_at: instant(e.created_at) }) as unknown as LedgerEntry),
    payments: r.payments.map(
      (p) => ({ ...p, created_at: instant(p.created_at), reversed_at: instant(p.reversed_at) }) as unknown as Payment,
    ),
    postedThrough: r.posted_through,
  };
}
