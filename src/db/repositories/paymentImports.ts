// Payment imports (migration 034), scoped to one business: the file's row and its lines, the
// background job's claim (a lease under FOR UPDATE SKIP LOCKED, so several processes share the
// imports and none pays a line twice) and the outcome of each batch of lines.
import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import type { Executor } from '../connection.ts';
import type { DB, PaymentImport, PaymentImportLine, PaymentImportLineStatus } from '../schema.ts';

export interface NewImportLine {
  line: number;
  credit: string;
  amount: string;
  paid_on: string;
  method: string;
  channel: string;
  external_reference: string;
}

/** Lines are written this many to a statement. */
const INSERT_CHUNK = 5_000;

/** The import's row and its lines, pending (a step of the caller's transaction). */
export async function insertImport(
  trx: Transaction<DB>,
  businessId: string,
  fields: { createdBy: string; branchId: string | null },
  lines: NewImportLine[],
): Promise<PaymentImport> {
  const row = await trx
    .insertInto('payment_imports')
    .values({ business_id: businessId, lines: lines.length, created_by: fields.createdBy, branch_id: fields.branchId })
    .returningAll()
    .executeTakeFirstOrThrow();
  for (let k = 0; k < lines.length; k += INSERT_CHUNK) {
    await trx.executeQuery(
      CompiledQuery.raw(
        `INSERT INTO payment_import_lines (business_id, import_id, line, credit, amount, paid_on, method, channel, external_reference)
         SELECT $1::uuid, $2::uuid, l.line, l.credit, l.amount, l.paid_on, l.method, l.channel, l.external_reference
           FROM json_to_recordset($3::json) AS l(line int, credit text, amount text, paid_on text, method text,
                                                 channel text, external_reference text)`,
        [businessId, row.id, JSON.stringify(lines.slice(k, k + INSERT_CHUNK))],
      ),
    );
  }
  return row;
}

// `same`: the business's other imports of exactly the lines of import $2 (business $1), line by
// line; `cur`: import $2's lines
const SAME_FILE = `WITH cur AS (
         SELECT line, credit, amount, paid_on, method, channel, external_reference
           FROM payment_import_lines WHERE business_id = $1::uuid AND import_id = $2::uuid),
       same AS (
         SELECT p.id FROM payment_imports p
          WHERE p.business_id = $1::uuid AND p.id <> $2::uuid AND p.lines > 0
            AND p.lines = (SELECT count(*) FROM cur)
            AND (SELECT count(*) FROM payment_import_lines e
                   JOIN cur ON cur.line = e.line AND cur.credit = e.credit AND cur.amount = e.amount
                           AND cur.paid_on = e.paid_on AND cur.method = e.method AND cur.channel = e.channel
                           AND cur.external_reference = e.external_reference
                  WHERE e.business_id = $1::uuid AND e.import_id = p.id) = p.lines)`;

/**
 * The same file sent again (a step of the transaction that stored the import): when an earlier
 * import of the business holds exactly these lines, each line without an external reference that
 * paid there is a duplicate here, naming that payment, so the file pays nothing twice (lines with
 * a reference are caught by the reference when paid). Returns the import with its counters.
 */
export async function markRepeatedLines(trx: Executor, businessId: string, importId: string): Promise<PaymentImport> {
  const r = await trx.executeQuery<PaymentImport>(
    CompiledQuery.raw(
      `${SAME_FILE},
       paid AS (
         SELECT DISTINCT ON (e.line) e.line, e.payment_id
           FROM payment_import_lines e JOIN same ON same.id = e.import_id
          WHERE e.business_id = $1::uuid AND e.external_reference = '' AND e.payment_id IS NOT NULL
          ORDER BY e.line, e.payment_id),
       u AS (
         UPDATE payment_import_lines l
            SET status = 'duplicate', code = 'duplicate_payment', payment_id = paid.payment_id,
                message = 'the same file was imported before: this line paid payment ' || paid.payment_id
           FROM paid
          WHERE l.business_id = $1::uuid AND l.import_id = $2::uuid AND l.line = paid.line AND l.status = 'pending'
         RETURNING l.line)
       UPDATE payment_imports SET duplicates = duplicates + (SELECT count(*) FROM u)
        WHERE business_id = $1::uuid AND id = $2::uuid
       RETURNING *`,
      [businessId, importId],
    ),
  );
  return r.rows[0]!;
}

// The advisory lock class under which a business's import batches decide their lines without a
// reference (the second key is the business's hash).
export const REPEATED_LINES_LOCK = 727_417;

/**
 * The payments that an identical import of the business (exactly these lines, as
 * markRepeatedLines compares them) made for these lines of this import, by line, with the import's
 * group of identical files. Taken under the business's lock of repeated lines, held until the
 * transaction ends: two imports of the same file stored at the same time (neither saw the other
 * when it was stored) are decided one batch after the other, so the second sees what the first
 * paid and pays none of it again.
 *
 * The file is compared once an import, not once a batch (migration 056): the import's first such
 * batch decides its group (sameFileGroup) and the run passes it to its later batches as `group`
 * (a decision committed: once decided, an import's group never changes), so no batch reads it again.
 */
export async function repeatedLinePayments(
  trx: Executor,
  businessId: string,
  importId: string,
  lines: number[],
  group: string | undefined,
): Promise<{ group: string; payments: Map<number, string> }> {
  // taken even when the group is known: the lock orders the batches of identical imports
  await sql`SELECT pg_advisory_xact_lock(${REPEATED_LINES_LOCK}, hashtext(${businessId}))`.execute(trx);
  const decided = group ?? (await sameFileGroup(trx, businessId, importId));
  const r = await trx.executeQuery<{ line: number; payment_id: string }>(
    CompiledQuery.raw(
      `SELECT DISTINCT ON (e.line) e.line, e.payment_id
         FROM payment_imports p
         JOIN payment_import_lines e ON e.business_id = $1::uuid AND e.import_id = p.id
        WHERE p.business_id = $1::uuid AND p.same_file_as = $2::uuid AND p.id <> $3::uuid
          AND e.line = ANY($4::int[]) AND e.external_reference = '' AND e.payment_id IS NOT NULL
        ORDER BY e.line, e.payment_id`,
      [businessId, decided, importId, `{${lines.join(',')}}`],
    ),
  );
  return { group: decided, payments: new Map(r.rows.map((x) => [Number(x.line), x.payment_id])) };
}

/**
 * The import's group of identical files (its `same_file_as`, migration 056), decided on the first
 * call: the group of an identical import already decided, else the earliest identical import
 * (itself when none); the identical imports not yet decided (stored before migration 056) join
 * the group with it. Called under the business's lock of repeated lines (after it was taken: this
 * statement sees every decision committed before), so the decisions of a business are taken one
 * after the other and identical imports always share one group. A transaction that fails undoes
 * its decision with it.
 */
async function sameFileGroup(trx: Executor, businessId: string, importId: string): Promise<string> {
  const known = await trx
    .selectFrom('payment_imports')
    .select('same_file_as')
    .where('business_id', '=', businessId)
    .where('id', '=', importId)
    .executeTakeFirstOrThrow();
  if (known.same_file_as !== null) return known.same_file_as;
  const r = await trx.executeQuery<{ id: string }>(
    CompiledQuery.raw(
      `${SAME_FILE},
       g AS (
         SELECT coalesce(
                  (SELECT p.same_file_as FROM payment_imports p JOIN same ON same.id = p.id
                    WHERE p.business_id = $1::uuid AND p.same_file_as IS NOT NULL
                    ORDER BY p.created_at, p.id LIMIT 1),
                  (SELECT p.id FROM payment_imports p
                    WHERE p.business_id = $1::uuid AND (p.id = $2::uuid OR p.id IN (SELECT id FROM same))
                    ORDER BY p.created_at, p.id LIMIT 1)) AS id)
       UPDATE payment_imports p SET same_file_as = g.id
         FROM g
        WHERE p.business_id = $1::uuid AND (p.id = $2::uuid OR p.id IN (SELECT id FROM same))
          AND p.same_file_as IS NULL
       RETURNING g.id`,
      [businessId, importId],
    ),
  );
  return r.rows[0]!.id;
}

export function getImport(db: Executor, businessId: string, id: string): Promise<PaymentImport | undefined> {
  return db
    .selectFrom('payment_imports')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The place of an import in the list, newest first: its created_at to the microsecond (UTC) and its id. */
export interface ImportKey {
  createdAt: string;
  id: string;
}

/**
 * A page of a business's imports, newest first (created_at, then id, descending), of one status or
 * all: by offset, or after a place (`after`, offset then 0). Each item carries its place; `more`
 * says whether another page follows.
 */
export async function listImports(
  db: Executor,
  businessId: string,
  q: { status?: PaymentImport['status']; limit: number; offset: number; after?: ImportKey },
): Promise<{ items: (PaymentImport & { place: ImportKey })[]; total: number; more: boolean }> {
  let base = db.selectFrom('payment_imports').where('business_id', '=', businessId);
  if (q.status) base = base.where('status', '=', q.status);
  let rows = base
    .selectAll()
    .select(sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('place_at'))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .offset(q.offset);
  if (q.after)
    rows = rows.where(sql<boolean>`(created_at, id) < (${q.after.createdAt}::timestamptz, ${q.after.id}::uuid)`);
  const [found, count] = await Promise.all([
    rows.execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const items = found
    .slice(0, q.limit)
    .map(({ place_at, ...r }) => ({ ...r, place: { createdAt: place_at, id: r.id } }));
  return { items, total: Number(count.n), more: found.length > q.limit };
}

/** A page of an import's lines in file order, of one status or all. */
export async function listImportLines(
  db: Executor,
  businessId: string,
  importId: string,
  q: { status?: PaymentImportLineStatus; limit: number; offset: number },
): Promise<{ items: PaymentImportLine[]; total: number }> {
  let base = db
    .selectFrom('payment_import_lines')
    .where('business_id', '=', businessId)
    .where('import_id', '=', importId);
  if (q.status) base = base.where('status', '=', q.status);
  const [items, count] = await Promise.all([
    base.selectAll().orderBy('line').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.n) };
}

/**
 * Claims one running import whose lease has passed (or never was), skipping those another process
 * holds, and leases it until `leaseUntil`; committed on return, so no other process takes it
 * before then. A process that dies leaves it to the next claim once the lease has passed.
 */
export async function claimImport(
  db: Kysely<DB>,
  q: { now: Date; leaseUntil: Date; businessId?: string },
): Promise<PaymentImport | undefined> {
  const { rows } = await sql<PaymentImport>`
    WITH c AS (
      SELECT business_id, id FROM payment_imports
       WHERE status = 'running' AND (lease_until IS NULL OR lease_until < ${q.now})
         ${q.businessId === undefined ? sql`` : sql`AND business_id = ${q.businessId}`}
       ORDER BY created_at
       LIMIT 1
       FOR UPDATE SKIP LOCKED)
    UPDATE payment_imports p SET lease_until = ${q.leaseUntil}
      FROM c WHERE p.business_id = c.business_id AND p.id = c.id
    RETURNING p.*`.execute(db);
  return rows[0];
}

/** The next pending lines of an import, in file order. */
export function pendingLines(db: Executor, businessId: string, importId: string, limit: number) {
  return db
    .selectFrom('payment_import_lines')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('import_id', '=', importId)
    .where('status', '=', 'pending')
    .orderBy('line')
    .limit(limit)
    .execute();
}

export interface LineOutcome {
  line: number;
  status: Exclude<PaymentImportLineStatus, 'pending'>;
  code: string | null;
  message: string | null;
  payment_id: string | null;
}

/**
 * Records the outcome of lines still pending and adds them to the import's counters, in one
 * statement (a step of the transaction that made their payments); the import's lease is renewed
 * to `leaseUntil` by the same statement (no update of its own, no audit row of its own).
 */
export async function recordOutcomes(
  trx: Executor,
  businessId: string,
  importId: string,
  outcomes: LineOutcome[],
  leaseUntil: Date,
): Promise<void> {
  await trx.executeQuery(
    CompiledQuery.raw(
      `WITH o AS (
         SELECT * FROM json_to_recordset($3::json) AS o(line int, status text, code text, message text, payment_id uuid)),
       u AS (
         UPDATE payment_import_lines l
            SET status = o.status, code = o.code, message = o.message, payment_id = o.payment_id
           FROM o
          WHERE l.business_id = $1::uuid AND l.import_id = $2::uuid AND l.line = o.line AND l.status = 'pending'
         RETURNING l.status)
       UPDATE payment_imports
          SET accepted = accepted + (SELECT count(*) FROM u WHERE status = 'accepted'),
              rejected = rejected + (SELECT count(*) FROM u WHERE status = 'rejected'),
              duplicates = duplicates + (SELECT count(*) FROM u WHERE status = 'duplicate'),
              lease_until = $4::timestamptz
        WHERE business_id = $1::uuid AND id = $2::uuid`,
      [businessId, importId, JSON.stringify(outcomes), leaseUntil.toISOString()],
    ),
  );
}

/** Marks an import finished (done, or failed), once; returns it, or undefined if it already was. */
export function finishImport(
  trx: Executor,
  businessId: string,
  id: string,
  status: 'done' | 'failed',
): Promise<PaymentImport | undefined> {
  return trx
    .updateTable('payment_imports')
    .set({ status, finished_at: sql<Date>`now()`, lease_until: null })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .where('status', '=', 'running')
    .returningAll()
    .executeTakeFirst();
}
