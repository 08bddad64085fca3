// The credits table, scoped to one business: reads, the row lock every writer of a credit takes,
// writes, the list, and the daily run's batches and automatic write-off.
import { sql, type Insertable } from 'kysely';
import type { Executor } from '../connection.ts';
import type { InstantBound } from '../../domain/instants.ts';
import { pageOf, updatedSince, type Page, type PageRequest } from './page.ts';
import type { Credit, CreditConfig, CreditStatus, CreditsTable } from '../schema.ts';

export type NewCredit = Omit<
  Insertable<CreditsTable>,
  'business_id' | 'id' | 'sequential_id' | 'created_at' | 'updated_at'
>;

export function getCredit(db: Executor, businessId: string, id: string): Promise<Credit | undefined> {
  return db
    .selectFrom('credits')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The credit row, locked until the transaction ends: payments, write-off, refinance and the daily run on one credit queue up here. */
export function lockCredit(db: Executor, businessId: string, id: string): Promise<Credit | undefined> {
  return db
    .selectFrom('credits')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Several credits named by id or by sequential id, locked (FOR UPDATE) in the order of their ids,
 * so two such batches never deadlock. A name no credit of the business has finds nothing.
 */
export function lockCredits(
  db: Executor,
  businessId: string,
  names: { ids: string[]; sequentials?: number[] },
): Promise<Credit[]> {
  const sequentials = names.sequentials ?? [];
  if (names.ids.length === 0 && sequentials.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('credits')
    .selectAll()
    .where('business_id', '=', businessId)
    .where((eb) =>
      eb.or([
        ...(names.ids.length ? [eb('id', '=', sql<string>`ANY(${sql.val(names.ids)}::uuid[])`)] : []),
        ...(sequentials.length ? [eb('sequential_id', 'in', sequentials)] : []),
      ]),
    )
    .orderBy('id')
    .forUpdate()
    .execute();
}

// The share locks a new credit takes on what it names. They read other tables (credit_configs,
// branches) but belong to granting a credit: the plan and branch services own those tables' rules.

/** Read with a share lock: the plan cannot be deactivated or edited until this transaction ends. */
export function sharePlan(db: Executor, businessId: string, id: string): Promise<CreditConfig | undefined> {
  return db
    .selectFrom('credit_configs')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .forShare()
    .executeTakeFirst();
}

/**
 * A new credit under the business's next number, in one statement: the number is taken from
 * business_sequences and the credit inserted with it. The counter's row lock lasts until the
 * transaction ends, so numbers are given in commit order and a rolled-back credit gives its number
 * back (1, 2, 3 … with no gap and no repeat); taken in the credit's own insert, late in the
 * transaction, it is held for as short a time as it can be.
 */
export async function insertNumberedCredit(db: Executor, businessId: string, given: NewCredit): Promise<Credit> {
  // as Kysely does: a column left undefined takes its default
  const values = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  const r = await sql<Credit>`
    WITH s AS (
      INSERT INTO business_sequences AS b (business_id, last_credit_seq) VALUES (${businessId}, 1)
      ON CONFLICT (business_id) DO UPDATE SET last_credit_seq = b.last_credit_seq + 1
      RETURNING last_credit_seq)
    INSERT INTO credits (business_id, sequential_id, ${sql.join(Object.keys(values).map((k) => sql.ref(k)))})
    SELECT ${businessId}::uuid, s.last_credit_seq, ${sql.join(Object.keys(values).map((k) => sql.ref(`r.${k}`)))}
      FROM s, json_populate_record(null::credits, ${JSON.stringify(values)}::json) AS r
    RETURNING *`.execute(db);
  return r.rows[0]!;
}

export function updateCredit(
  db: Executor,
  businessId: string,
  id: string,
  patch: { status?: CreditStatus; write_off_reason?: string | null; written_off_at?: Date },
): Promise<Credit> {
  return db
    .updateTable('credits')
    .set({ ...patch, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Names the credit's collector (null: none). */
export function setCollector(db: Executor, businessId: string, id: string, userId: string | null): Promise<Credit> {
  return db
    .updateTable('credits')
    .set({ collector_id: userId, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

// ---- lists ----

export interface CreditFilter {
  status?: CreditStatus;
  clientId?: string;
  branchId?: string;
  /** only the credits changed at or after it, oldest change first */
  updatedSince?: InstantBound;
}

/**
 * Newest first (sequential_id); with updatedSince, oldest change first (updated_at, id): a range
 * of credits_updated, or of credits_status or credits_branch_updated with those filters
 * (migration 014); for one client, its few rows through credits_client.
 */
export async function listCredits(
  db: Executor,
  businessId: string,
  f: CreditFilter & PageRequest,
): Promise<Page<Credit>> {
  let base = db.selectFrom('credits').where('business_id', '=', businessId);
  if (f.status) base = base.where('status', '=', f.status);
  if (f.clientId) base = base.where('client_id', '=', f.clientId);
  if (f.branchId) base = base.where('branch_id', '=', f.branchId);
  if (f.updatedSince) base = base.where(updatedSince(f.updatedSince));
  return pageOf(
    base,
    (q) =>
      f.updatedSince
        ? q.selectAll().orderBy('updated_at', 'asc').orderBy('id', 'asc')
        : q.selectAll().orderBy('sequential_id', 'desc'),
    f,
  );
}

// ---- the daily run ----

export interface AccrualCandidate {
  id: string;
  status: CreditStatus;
  written_off_at: Date | null;
  write_off_days: number;
  daily_punitory_rate: string;
  punitory_mode: Credit['punitory_mode'];
  grace_days: number;
  max_punitory_days: number;
  punitory_cap_pct: string;
  /** the VAT its punitory carries */
  vat_rate: string;
  branch_id: string | null;
  /** the fees snapshotted on it: its collection charge */
  fees: Credit['fees'];
}

const CANDIDATE_COLUMNS = sql.raw(`c.id, c.status, c.written_off_at, c.write_off_days, c.daily_punitory_rate,
  c.punitory_mode, c.grace_days, c.max_punitory_days, c.punitory_cap_pct, c.vat_rate, c.branch_id, c.fees`);

/**
 * The credits the month close through `close` has not reached, by id: active or written off,
 * with an unpaid installment due before `close`, posted through an earlier date (or never;
 * written-off ones only until their write-off date, after which nothing accrues). Two statements:
 * the first reads two indexes only (the unpaid installments due, with their credit: migration
 * 005; the watermarks of credit_accruals) and, on an ordinary day of the month, leaves only the
 * written-off credits with something unpaid; the second looks those up by key.
 */
export async function closeCandidates(
  db: Executor,
  businessId: string,
  o: { close: string; timezone: string },
): Promise<string[]> {
  const behind = await sql<{ credit_id: string }>`
    SELECT DISTINCT i.credit_id
      FROM installments i
     WHERE i.business_id = ${businessId} AND i.status <> 'paid' AND i.due_date < ${o.close}::date
       AND NOT EXISTS (SELECT 1 FROM credit_accruals a
                        WHERE a.business_id = i.business_id AND a.credit_id = i.credit_id
                          AND a.posted_through >= ${o.close}::date)`.execute(db);
  if (behind.rows.length === 0) return [];
  const r = await sql<{ id: string }>`
    SELECT c.id
      FROM credits c
      LEFT JOIN credit_accruals a ON a.business_id = c.business_id AND a.credit_id = c.id
     WHERE c.business_id = ${businessId}
       AND c.id = ANY(${sql.val(behind.rows.map((x) => x.credit_id))}::uuid[])
       AND c.status IN ('active', 'written_off')
       AND (c.status = 'active' OR a.posted_through IS NULL
            OR a.posted_through < (c.written_off_at AT TIME ZONE ${o.timezone})::date)
     ORDER BY c.id`.execute(db);
  return r.rows.map((x) => x.id);
}

/**
 * These candidates of the close, locked, as they are now: still active or written off and not
 * posted through `close`. SKIP LOCKED: a credit a payment or another run holds is left to them
 * (a payment posts its own punitory; the next run gets the rest). The watermark is read after the
 * locks are taken: a payment that held a credit and committed just before may have moved it.
 */
export async function lockForClose(
  db: Executor,
  businessId: string,
  ids: string[],
  o: { close: string; timezone: string },
): Promise<AccrualCandidate[]> {
  if (ids.length === 0) return [];
  const r = await sql<AccrualCandidate>`
    SELECT ${CANDIDATE_COLUMNS}
      FROM credits c
     WHERE c.business_id = ${businessId}
       AND c.id = ANY(${sql.val(ids)}::uuid[])
       AND c.status IN ('active', 'written_off')
     ORDER BY c.id
       FOR UPDATE OF c SKIP LOCKED`.execute(db);
  if (r.rows.length === 0) return [];
  const done = await sql<{ credit_id: string }>`
    SELECT a.credit_id
      FROM credit_accruals a
      JOIN credits c ON c.business_id = a.business_id AND c.id = a.credit_id
     WHERE a.business_id = ${businessId}
       AND a.credit_id = ANY(${sql.val(r.rows.map((c) => c.id))}::uuid[])
       AND (a.posted_through >= ${o.close}::date
            OR (c.status = 'written_off' AND a.posted_through >= (c.written_off_at AT TIME ZONE ${o.timezone})::date))`.execute(
    db,
  );
  const skip = new Set(done.rows.map((x) => x.credit_id));
  return r.rows.filter((c) => !skip.has(c.id));
}

/**
 * Automatic write-off (docs/domain.md, "Write-off"), decided as of `today`: the active credits whose plan has
 * write_off_days > 0 and that have an unpaid installment at least that many days late, by id.
 */
export async function writeOffCandidates(db: Executor, businessId: string, o: { today: string }): Promise<string[]> {
  const r = await sql<{ id: string }>`
    SELECT DISTINCT c.id
      FROM installments i
      JOIN credits c ON c.business_id = i.business_id AND c.id = i.credit_id
     WHERE i.business_id = ${businessId} AND i.status <> 'paid' AND i.due_date < ${o.today}::date
       AND c.status = 'active' AND c.write_off_days > 0
       AND i.due_date <= ${o.today}::date - c.write_off_days
     ORDER BY c.id`.execute(db);
  return r.rows.map((x) => x.id);
}

/** These write-off candidates, locked, if they are still active (SKIP LOCKED, as for the close). */
export async function lockForWriteOff(db: Executor, businessId: string, ids: string[]): Promise<AccrualCandidate[]> {
  if (ids.length === 0) return [];
  const r = await sql<AccrualCandidate>`
    SELECT ${CANDIDATE_COLUMNS}
      FROM credits c
     WHERE c.business_id = ${businessId} AND c.id = ANY(${sql.val(ids)}::uuid[]) AND c.status = 'active'
     ORDER BY c.id
       FOR UPDATE OF c SKIP LOCKED`.execute(db);
  return r.rows;
}

/** Writes these (locked) credits off at `at`, naming the rule. */
export async function markWrittenOff(db: Executor, businessId: string, ids: string[], at: Date): Promise<Credit[]> {
  if (ids.length === 0) return [];
  const r = await sql<Credit>`
    UPDATE credits c
       SET status = 'written_off',
           written_off_at = ${at}::timestamptz,
           write_off_reason = 'automatic: an installment reached ' || c.write_off_days || ' days late (write_off_days)',
           updated_at = now()
     WHERE c.business_id = ${businessId} AND c.id = ANY(${sql.val(ids)}::uuid[]) AND c.status = 'active'
     RETURNING c.*`.execute(db);
  return r.rows;
}

/** A credit without its disclosed cost stored, with what the cost is computed from (the backfill's batch). */
export interface CostlessCredit {
  id: string;
  amount: string;
  disbursed: string;
  start_date: string;
  amortization: Credit['amortization'];
  interest_rate: string;
  installments: { due_date: string; amount: string; principal: string; interest: string; vat: string }[];
}

/**
 * Up to `limit` credits of the business granted before migration 045 and not backfilled yet, in
 * id order after `afterId`, each with its schedule (by number), in one statement.
 */
export async function creditsWithoutCost(
  db: Executor,
  businessId: string,
  afterId: string | null,
  limit: number,
): Promise<CostlessCredit[]> {
  const r = await sql<CostlessCredit>`
    SELECT c.id, c.amount::text AS amount, c.disbursed::text AS disbursed, c.start_date, c.amortization,
           c.interest_rate::text AS interest_rate,
           (SELECT coalesce(json_agg(json_build_object('due_date', i.due_date, 'amount', i.amount::text,
                      'principal', i.principal::text, 'interest', i.interest::text, 'vat', i.vat::text)
                    ORDER BY i.number), '[]')
              FROM installments i WHERE i.business_id = c.business_id AND i.credit_id = c.id) AS installments
      FROM credits c
     WHERE c.business_id = ${businessId} AND c.tna IS NULL AND (${afterId}::uuid IS NULL OR c.id > ${afterId}::uuid)
     ORDER BY c.id
     LIMIT ${limit}`.execute(db);
  return r.rows;
}

/** Stores the disclosed cost of credits that have none yet (one statement); returns how many it filled. */
export async function storeCosts(
  db: Executor,
  businessId: string,
  costs: { id: string; tna: string; tea: string; cft_tea: string | null }[],
): Promise<number> {
  if (costs.length === 0) return 0;
  const r = await sql`
    UPDATE credits c SET tna = v.tna::numeric, tea = v.tea::numeric, cft_tea = v.cft_tea::numeric
      FROM json_to_recordset(${JSON.stringify(costs)}::json) AS v(id uuid, tna text, tea text, cft_tea text)
     WHERE c.business_id = ${businessId} AND c.id = v.id AND c.tna IS NULL`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
