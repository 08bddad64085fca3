import { DOCUMENT_STATEMENTS } from '../../src/db/repositories/documents.ts';
import { CREDIT_CHANGES } from '../../src/db/repositories/creditChanges.ts';
import { LOCK_AND_BOOK } from '../../src/db/repositories/creditBook.ts';
// The statements the app runs for each benched route, as pgbench script lines (variables :name),
// copied from src/db/repositories (clients.getClient, book.*, audit.listAudit, credits.*, payments.* and the
// payment use case in src/services/lending/payments.ts and store.ts). Keep them in step with the code: the ceiling is
// only meaningful while it runs what the app runs. The key of a request costs no statement: each
// server process checks a key once and keeps it (src/services/apiKeys.ts KeyCache).
//
// Variables every script gets: :bid (the business), :keyhash (the bench key's hash).

// ---- GET /api/clients/:id: :cl the client, :cids its credits' ids as a uuid[] literal.
// The statements the app ran before it built the document in one (kept to show what that gave).

export const CLIENT = `SELECT * FROM clients WHERE business_id = :bid AND id = :cl;`;
export const CREDITS_OF_CLIENT = `SELECT * FROM credits WHERE business_id = :bid AND client_id = :cl ORDER BY sequential_id;`;
/** Kysely sends credit_id IN ($2, $3, …): the same plan as = ANY of an array */
export const INSTALLMENTS_OF_CREDITS = `SELECT * FROM installments WHERE business_id = :bid AND credit_id = ANY(:cids::uuid[]) ORDER BY credit_id, number;`;
const LEDGER_ORDER = `l.created_at, l.effective_date, CASE l.type WHEN 'installment' THEN 0 WHEN 'punitory' THEN 1 ELSE 2 END, i.number, l.id`;
export const LEDGER_OF_CREDITS = `SELECT l.* FROM ledger l JOIN installments i ON i.business_id = l.business_id AND i.id = l.installment_id
  WHERE l.business_id = :bid AND l.credit_id = ANY(:cids::uuid[]) ORDER BY ${LEDGER_ORDER};`;
export const FILES_OF_CLIENT = `SELECT * FROM client_files WHERE business_id = :bid AND client_id = :cl ORDER BY created_at, id;`;

/** The business's today, as the app computes it per request. */
export const todaySql = (timezone: string) => `(now() AT TIME ZONE '${timezone.replace(/'/g, "''")}')::date`;

/**
 * One of the documents the app builds in one statement (src/db/repositories/documents.ts: the very
 * text it prepares), with pgbench variables or expressions for its parameters $1, $2, …
 */
export const documentStatement = (name: keyof typeof DOCUMENT_STATEMENTS, args: string[]) =>
  `${DOCUMENT_STATEMENTS[name].replace(/\$(\d+)/g, (_, n: string) => args[Number(n) - 1]!)};`;

/** The client read (docs/api.md "Read a client") as the app builds it: :cl the client; today and the time zone as the app passes them. */
export const CLIENT_DOCUMENT = (timezone: string) =>
  documentStatement('client', [':bid', ':cl', todaySql(timezone), `'${timezone.replace(/'/g, "''")}'::text`]);

// ---- GET /api/credits/:id/ledger: :cid the credit

export const CREDIT = `SELECT * FROM credits WHERE business_id = :bid AND id = :cid;`;
export const LEDGER_OF_CREDIT = `SELECT l.* FROM ledger l JOIN installments i ON i.business_id = l.business_id AND i.id = l.installment_id
  WHERE l.business_id = :bid AND l.credit_id IN (:cid) ORDER BY ${LEDGER_ORDER};`;
/** A credit's payments in the order they apply (src/db/repositories/payments.ts paymentsOfCredit). */
export const PAYMENTS_OF_CREDIT = `SELECT * FROM payments WHERE business_id = :bid AND credit_id = :cid ORDER BY paid_on, created_at, id;`;
export const CREDIT_LEDGER_DOCUMENT = documentStatement('credit_ledger', [':bid', ':cid']);

// timestamps as the app writes them (pgbench reads :name as a variable even inside a string, hence
// the colons put back by translate)
const ts = (col: string) =>
  `translate(to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"~"MI"~"SS.MS"Z"'), '~', chr(58))`;

// ---- GET /api/logs: the page and its total in one statement, with the filters given;
// by offset (:off) or after a cursor's place (:ck, :cid)

export interface AuditFilters {
  table: boolean;
  action: boolean;
  record: boolean;
  cursor?: boolean;
}
const auditWhere = (f: AuditFilters) =>
  `business_id = :bid${f.table ? ' AND table_name = :tn' : ''}${f.action ? ' AND action = :ac' : ''}`;
export const AUDIT_LIST = (f: AuditFilters) => {
  const where = `${auditWhere(f)}${f.record ? ' AND record_id = :rid::uuid' : ''}`;
  const total = f.record
    ? `SELECT count(*) FROM audit_log WHERE ${where}`
    : `SELECT coalesce(sum(n), 0)::bigint FROM audit_log_counts WHERE ${auditWhere(f)}`;
  return `WITH page AS (
  SELECT id FROM audit_log WHERE ${where}${f.cursor ? ' AND (changed_at, id) < (:ck::timestamptz, :cid::uuid)' : ''}
   ORDER BY changed_at DESC, id DESC LIMIT 51 OFFSET ${f.cursor ? '0' : ':off'})
SELECT t.total, a.*, ${ts('a.changed_at').replace('.MS', '.US')} AS changed_key
  FROM (${total}) AS t (total)
  LEFT JOIN (page JOIN audit_log a ON a.business_id = :bid AND a.id = page.id) ON true
 ORDER BY a.changed_at DESC, a.id DESC;`;
};

// ---- POST /api/credits/:id/payments: :cid the credit, :iid an installment it owes, :br its branch.
// The use case's transaction (registerPayment): lock the credit and read, after the lock, its
// installments, ledger, payments and watermark with the branch share-locked, in one statement
// (creditBook.ts LOCK_AND_BOOK, migration 061; the app sends it with its BEGIN in one round trip,
// pgbench sends BEGIN alone), then one statement recording the payment (its
// payments row), the watermark, the payment slice, the installment's status (when it changes) and
// the payment's event in the outbox.
// The answer is built from what was read and written, with no read back. What it leaves out: the
// punitory entries a first payment of the day posts on an overdue credit, and the corrections of
// earlier payments a replay may give (their number depends on the credit).
export const PAYMENT_TRANSACTION = (timezone: string) => {
  const today = todaySql(timezone);
  // the payment's id, the same in its payments row and its slice: a uuid from the transaction's own
  // id (one payment a transaction, never reused), so the statement needs no extra round trip
  const paymentId = 'md5(txid_current()::text)::uuid';
  // the use case's one write (src/db/repositories/creditChanges.ts), its JSON parameters built here
  const entries = `json_build_array(json_build_object('ord', 0, 'id', gen_random_uuid(), 'installment_id', :iid::uuid,
    'type', 'payment', 'origin', 'payment', 'amount', '0.01', 'punitory_part', '0', 'vat_part', '0', 'interest_part', '0', 'charge_part', '0', 'fees_part', '0', 'insurance_part', '0',
    'effective_date', ${today}, 'payment_id', ${paymentId}, 'branch_id', :br::uuid, 'created_by', 'bench'))`;
  const payment = `json_build_object('id', ${paymentId}, 'amount', '0.01', 'paid_on', ${today}, 'branch_id', :br::uuid,
    'created_by', 'bench')`;
  // an installment's status moves on its first payment only, as the app's
  const moved = `(SELECT coalesce(json_agg(json_build_object('id', id, 'status', 'partial', 'paid_date', NULL)), '[]')
    FROM installments WHERE business_id = :bid AND id = :iid AND status = 'pending')`;
  // the payment's event, written by the same statement (its created_at the payments row's)
  const events = `jsonb_build_array(jsonb_build_object('business_id', :bid::uuid, 'type', 'payment.created',
    'ordering_key', :cid::uuid, 'data', jsonb_build_object('object', jsonb_build_object('id', ${paymentId}, 'created_at', NULL)),
    'stamp', 'created_at', 'at', 'payment', 'entry', NULL))`;
  const write = CREDIT_CHANGES.replace(
    /\$(\d+)/g,
    (_, n: string) => [':bid', ':cid', entries, today, moved, 'NULL', payment, 'NULL', events][Number(n) - 1]!,
  )
    // the stamp's format, without the colons pgbench would take for variables (:MI, :SS)
    .replace('HH24:MI:SS', "HH24' || chr(58) || 'MI' || chr(58) || 'SS");
  // the app's statements (src/services/lending/payments.ts registerPayment): the lock sets the
  // audit actor, and reads the book after it with the branch share-locked (migration 061)
  const lockAndBook = LOCK_AND_BOOK.trim().replace(
    /\$(\d+)/g,
    (_, n: string) => [':bid', ':cid', "'bench'", "''", 'ARRAY[:br::uuid]', 'false'][Number(n) - 1]!,
  );
  return `BEGIN;
${lockAndBook};
${write.trim()};
END;`;
};
