// What a use case changes on one locked credit, written in one statement: its new ledger entries
// (in order), how far punitory is posted, the installments whose status moved and the credit's
// own status. One round trip instead of one a table and one an installment (a payment
// costs round trips, not work). The audit triggers fire for each table as for separate statements.
import { CompiledQuery } from 'kysely';
import type { Executor } from '../connection.ts';
import { preparedText } from '../prepared.ts';
import type { CreditStatus, InstallmentStatus, LedgerEntry } from '../schema.ts';
import type { NewLedgerEntry } from './ledger.ts';

/** A ledger entry to write, its id chosen by the caller so the caller can tell it apart. */
export type StagedEntry = Omit<NewLedgerEntry, 'credit_id'> & { id: string };

export interface CreditChanges {
  creditId: string;
  /** written in this order: created_at (clock_timestamp) ascends along it */
  entries: StagedEntry[];
  /** the new punitory watermark (credit_accruals), never moved backwards; null: unchanged */
  accruedThrough: string | null;
  installments: { id: string; status: InstallmentStatus; paid_date: string | null }[];
  /** null: unchanged */
  creditStatus: CreditStatus | null;
  /** a payment to record (its slices are among the entries) */
  payment?: {
    id: string;
    amount: string;
    paid_on: string;
    branch_id: string | null;
    created_by: string;
    method: string;
    channel: string | null;
    external_reference: string | null;
  } | null;
  /** a payment reversed by this change */
  reversal?: { paymentId: string; reason: string; by: string } | null;
  /**
   * the events of the change, written to the outbox by the same statement, in this order (the
   * outbox insert of flushEvents folded into the write: one statement fewer). applyCreditChanges only.
   */
  events?: StampedEvent[];
}

/**
 * An event for the outbox, its object's one instant (`stamp`, a field of data.object) set by the
 * statement from what it wrote: the transaction's now(), the payment's created_at, or an entry's.
 * Written as JSON.stringify writes a Date (ISO 8601, milliseconds, Z). No stamp: data as given.
 */
export interface StampedEvent {
  business_id: string;
  type: string;
  ordering_key: string;
  data: Record<string, unknown>;
  stamp: { field: string; at: 'now' | 'payment' | { entry: string } } | null;
}

export interface AppliedChanges {
  /** the entries as written, in the order given */
  entries: LedgerEntry[];
  /** the transaction's now(): the updated_at of what was updated */
  now: Date;
  /** the recorded payment's created_at (null when none was recorded) */
  paymentCreatedAt: Date | null;
}

/**
 * $1 business, $2 credit, $3 the entries (JSON array, with ord), $4 the watermark or null, $5 the
 * installments' new statuses (JSON array), $6 the credit's new status or null, $7 a payment to
 * record or null, $8 a payment to mark reversed or null, $9 the events (JSON array of business_id,
 * type, ordering_key, data and the stamp's field, at and entry; see StampedEvent), into the outbox in
 * their order as flushEvents writes them. The text is exported for the bench's database-only
 * ceiling (bench/lib/statements.ts).
 */
export const CREDIT_CHANGES = `
WITH pay AS (
  -- first: the slices reference it
  INSERT INTO payments (business_id, id, credit_id, amount, paid_on, branch_id, created_by, method, channel,
                        external_reference)
  SELECT $1::uuid, p.id, $2::uuid, p.amount, p.paid_on, p.branch_id, p.created_by, coalesce(p.method, 'cash'), p.channel,
         p.external_reference
    FROM json_to_record($7::json) AS p(id uuid, amount numeric, paid_on date, branch_id uuid, created_by text,
                                       method text, channel text, external_reference text)
   WHERE $7::json IS NOT NULL
  RETURNING created_at),
rev AS (
  UPDATE payments SET reversed_at = now(), reversal_reason = r.reason, reversed_by = r.by
    FROM json_to_record($8::json) AS r(payment_id uuid, reason text, by text)
   WHERE $8::json IS NOT NULL AND business_id = $1::uuid AND id = r.payment_id AND reversed_at IS NULL),
v AS (
  SELECT * FROM json_to_recordset($3::json) AS r(ord int, id uuid, installment_id uuid, type text, origin text,
    amount numeric, punitory_part numeric, vat_part numeric, interest_part numeric, charge_part numeric,
    fees_part numeric, insurance_part numeric, effective_date date, payment_id uuid, branch_id uuid, created_by text)),
ins AS (
  INSERT INTO ledger (id, business_id, credit_id, installment_id, type, origin, amount, punitory_part, vat_part,
                      interest_part, charge_part, fees_part, insurance_part, effective_date, payment_id, branch_id, created_by)
  SELECT v.id, $1::uuid, $2::uuid, v.installment_id, v.type, v.origin, v.amount, v.punitory_part, v.vat_part,
         v.interest_part, v.charge_part, v.fees_part, v.insurance_part, v.effective_date, v.payment_id, v.branch_id, v.created_by
    FROM v ORDER BY v.ord
  RETURNING *),
acc AS (
  INSERT INTO credit_accruals (business_id, credit_id, posted_through)
  SELECT $1::uuid, $2::uuid, $4::date WHERE $4::date IS NOT NULL
  ON CONFLICT (business_id, credit_id)
    DO UPDATE SET posted_through = greatest(credit_accruals.posted_through, excluded.posted_through)),
st AS (
  UPDATE installments i SET status = s.status, paid_date = s.paid_date, updated_at = now()
    FROM json_to_recordset($5::json) AS s(id uuid, status text, paid_date date)
   WHERE i.business_id = $1::uuid AND i.id = s.id),
cr AS (
  UPDATE credits SET status = $6::text, updated_at = now()
   WHERE $6::text IS NOT NULL AND business_id = $1::uuid AND id = $2::uuid),
ev AS (
  INSERT INTO event_outbox (business_id, type, ordering_key, data)
  SELECT e.business_id, e.type, e.ordering_key,
         CASE WHEN e.stamp IS NULL THEN e.data
              ELSE jsonb_set(e.data, ARRAY['object', e.stamp], to_jsonb(to_char(
                     CASE e.at WHEN 'payment' THEN (SELECT created_at FROM pay)
                               WHEN 'entry' THEN (SELECT ins.created_at FROM ins WHERE ins.id = e.entry)
                               ELSE now() END AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) END
    FROM ROWS FROM (jsonb_to_recordset($9::jsonb) AS (business_id uuid, type text, ordering_key uuid, data jsonb, stamp text,
                                                       at text, entry uuid))
         WITH ORDINALITY AS e(business_id, type, ordering_key, data, stamp, at, entry, n)
   ORDER BY e.n)
SELECT w.*, t.now AS tx_now, (SELECT created_at FROM pay) AS payment_created_at
  FROM (SELECT now() AS now) t
  LEFT JOIN (SELECT ins.*, v.ord FROM ins JOIN v ON v.id = ins.id) w ON true
 ORDER BY w.ord`;

/** An entry as the statements read it from JSON (numerics as text, absent parts 0). */
function entryRow(e: StagedEntry, ord: number) {
  return {
    ord,
    id: e.id,
    installment_id: e.installment_id,
    type: e.type,
    origin: e.origin,
    amount: String(e.amount),
    punitory_part: e.punitory_part === undefined ? '0' : String(e.punitory_part),
    vat_part: e.vat_part === undefined ? '0' : String(e.vat_part),
    interest_part: e.interest_part === undefined ? '0' : String(e.interest_part),
    charge_part: e.charge_part === undefined ? '0' : String(e.charge_part),
    fees_part: e.fees_part === undefined ? '0' : String(e.fees_part),
    insurance_part: e.insurance_part === undefined ? '0' : String(e.insurance_part),
    effective_date: e.effective_date,
    payment_id: e.payment_id ?? null,
    branch_id: e.branch_id ?? null,
    created_by: e.created_by,
  };
}

// a payment's write: planned once a connection (src/db/connection.ts preparedText)
preparedText('credit_changes', CREDIT_CHANGES);

export async function applyCreditChanges(db: Executor, businessId: string, ch: CreditChanges): Promise<AppliedChanges> {
  const entries = JSON.stringify(ch.entries.map((e, ord) => entryRow(e, ord)));
  const states = JSON.stringify(ch.installments);
  const r = await db.executeQuery<LedgerEntry & { ord: number | null; tx_now: Date; payment_created_at: Date | null }>(
    CompiledQuery.raw(CREDIT_CHANGES, [
      businessId,
      ch.creditId,
      entries,
      ch.accruedThrough,
      states,
      ch.creditStatus,
      ch.payment ? JSON.stringify(ch.payment) : null,
      ch.reversal
        ? JSON.stringify({ payment_id: ch.reversal.paymentId, reason: ch.reversal.reason, by: ch.reversal.by })
        : null,
      JSON.stringify(
        (ch.events ?? []).map((e) => {
          const at = e.stamp?.at;
          return {
            business_id: e.business_id,
            type: e.type,
            ordering_key: e.ordering_key,
            data: e.data,
            stamp: e.stamp?.field ?? null,
            at: at === undefined ? null : typeof at === 'string' ? at : 'entry',
            entry: at !== undefined && typeof at !== 'string' ? at.entry : null,
          };
        }),
      ),
    ]),
  );
  const now = r.rows[0]!.tx_now;
  const written = r.rows[0]!.ord === null ? [] : r.rows;
  return {
    now,
    paymentCreatedAt: r.rows[0]!.payment_created_at,
    entries: written.map(({ ord: _o, tx_now: _n, payment_created_at: _p, ...e }) => e as LedgerEntry),
  };
}

/**
 * $1 business, $2 the payments (JSON array, with credit_id), $3 the entries (JSON array, with ord
 * and credit_id), $4 the watermarks (credit_id, posted_through), $5 the installments' new statuses,
 * $6 the credits' new statuses (id, status). CREDIT_CHANGES for several credits at once: each
 * installment, credit and watermark appears at most once (the caller keeps the last change).
 * The payments' and the entries' created_at are one instant taken once the batch's credits are
 * locked, plus their place (ord) in microseconds: strictly ascending in the order given, so a
 * re-read (paid_on, created_at, id; the ledger by created_at first) puts two payments or entries
 * of one credit in the order they were decided. A per-row clock_timestamp() can tie within a
 * microsecond, and the tie then falls to the ids (random), reordering same-date payments.
 */
export const MANY_CREDIT_CHANGES = `
WITH t0 AS MATERIALIZED (SELECT clock_timestamp() AS at),
pay AS (
  INSERT INTO payments (business_id, id, credit_id, amount, paid_on, branch_id, created_by, method, channel,
                        external_reference, created_at)
  SELECT $1::uuid, p.id, p.credit_id, p.amount, p.paid_on, p.branch_id, p.created_by, coalesce(p.method, 'cash'), p.channel,
         p.external_reference, (SELECT at FROM t0) + p.ord * interval '1 microsecond'
    FROM json_to_recordset($2::json) AS p(ord int, id uuid, credit_id uuid, amount numeric, paid_on date, branch_id uuid,
                                          created_by text, method text, channel text, external_reference text)
  RETURNING id, created_at),
v AS (
  SELECT * FROM json_to_recordset($3::json) AS r(ord int, id uuid, credit_id uuid, installment_id uuid, type text,
    origin text, amount numeric, punitory_part numeric, vat_part numeric, interest_part numeric, charge_part numeric,
    fees_part numeric, insurance_part numeric, effective_date date,
    payment_id uuid, branch_id uuid, created_by text)),
ins AS (
  INSERT INTO ledger (id, business_id, credit_id, installment_id, type, origin, amount, punitory_part, vat_part,
                      interest_part, charge_part, fees_part, insurance_part, effective_date, payment_id, branch_id, created_by,
                      created_at)
  SELECT v.id, $1::uuid, v.credit_id, v.installment_id, v.type, v.origin, v.amount, v.punitory_part, v.vat_part,
         v.interest_part, v.charge_part, v.fees_part, v.insurance_part, v.effective_date, v.payment_id, v.branch_id, v.created_by,
         (SELECT at FROM t0) + v.ord * interval '1 microsecond'
    FROM v ORDER BY v.ord
  RETURNING *),
acc AS (
  INSERT INTO credit_accruals (business_id, credit_id, posted_through)
  SELECT $1::uuid, a.credit_id, a.posted_through FROM json_to_recordset($4::json) AS a(credit_id uuid, posted_through date)
  ON CONFLICT (business_id, credit_id)
    DO UPDATE SET posted_through = greatest(credit_accruals.posted_through, excluded.posted_through)),
st AS (
  UPDATE installments i SET status = s.status, paid_date = s.paid_date, updated_at = now()
    FROM json_to_recordset($5::json) AS s(id uuid, status text, paid_date date)
   WHERE i.business_id = $1::uuid AND i.id = s.id),
cr AS (
  UPDATE credits c SET status = s.status, updated_at = now()
    FROM json_to_recordset($6::json) AS s(id uuid, status text)
   WHERE c.business_id = $1::uuid AND c.id = s.id)
SELECT w.*, t.now AS tx_now,
       (SELECT json_agg(json_build_array(id, floor(extract(epoch FROM created_at) * 1000))) FROM pay) AS payments_created
  FROM (SELECT now() AS now) t
  LEFT JOIN (SELECT ins.*, v.ord FROM ins JOIN v ON v.id = ins.id) w ON true
 ORDER BY w.ord`;

export interface AppliedManyChanges {
  /** the entries as written, by id */
  entries: Map<string, LedgerEntry>;
  now: Date;
  /** each recorded payment's created_at, by id */
  paymentCreatedAt: Map<string, Date>;
}

/**
 * What several use cases changed on several locked credits, written in one statement, in the order
 * given: the entries in that order (created_at ascending along it), a watermark, installment or
 * credit changed twice keeps its last value (its audit row shows the change from before the first
 * to after the last).
 */
export async function applyManyCreditChanges(
  db: Executor,
  businessId: string,
  changes: CreditChanges[],
): Promise<AppliedManyChanges> {
  const payments: (NonNullable<CreditChanges['payment']> & { credit_id: string; ord: number })[] = [];
  const entries: Record<string, unknown>[] = [];
  const watermarks = new Map<string, string>();
  const installments = new Map<string, { id: string; status: InstallmentStatus; paid_date: string | null }>();
  const credits = new Map<string, CreditStatus>();
  for (const ch of changes) {
    if (ch.reversal) throw new Error('applyManyCreditChanges: a reversal is written alone (applyCreditChanges)');
    if (ch.payment) payments.push({ ...ch.payment, credit_id: ch.creditId, ord: payments.length });
    for (const e of ch.entries) entries.push({ ...entryRow(e, entries.length), credit_id: ch.creditId });
    if (ch.accruedThrough !== null) {
      const before = watermarks.get(ch.creditId);
      if (before === undefined || ch.accruedThrough > before) watermarks.set(ch.creditId, ch.accruedThrough);
    }
    for (const i of ch.installments) installments.set(i.id, i);
    if (ch.creditStatus) credits.set(ch.creditId, ch.creditStatus);
  }
  const r = await db.executeQuery<
    LedgerEntry & { ord: number | null; tx_now: Date; payments_created: [string, number][] | null }
  >(
    CompiledQuery.raw(MANY_CREDIT_CHANGES, [
      businessId,
      JSON.stringify(payments),
      JSON.stringify(entries),
      JSON.stringify([...watermarks].map(([credit_id, posted_through]) => ({ credit_id, posted_through }))),
      JSON.stringify([...installments.values()]),
      JSON.stringify([...credits].map(([id, status]) => ({ id, status }))),
    ]),
  );
  const first = r.rows[0]!;
  const written = first.ord === null ? [] : r.rows;
  return {
    now: first.tx_now,
    paymentCreatedAt: new Map((first.payments_created ?? []).map(([id, at]) => [id, new Date(Number(at))])),
    entries: new Map(
      written.map(({ ord: _o, tx_now: _n, payments_created: _p, ...e }) => [e.id, e as LedgerEntry] as const),
    ),
  };
}
