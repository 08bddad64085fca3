// Hot reads answered as JSON built by the database in one prepared statement: the document goes
// from PostgreSQL to the socket as text, with no rows to parse, no decimals to convert and no
// serializer in between (a read at the database's own speed). Each object is generated
// from its record's declaration (src/domain/records.ts), key by key in its order, so a field added
// to a record is added here too (or the statement fails in every test that reads it).
//
// What the TypeScript presenters compute (src/services/present.ts, lending/engine/state.ts) is computed
// here with the same rules: delinquency as of the business's today, and each installment's
// Balance with the punitory accrued since the last posting through punitory_cumulative (migration
// 004, kept equal to src/domain/punitory.ts by test/domain/punitory-sql.test.ts).
// test/http/documents.test.ts compares both paths on random books.
import type { TObject, TSchema } from 'typebox';
import {
  Branch,
  Client,
  ClientDetail,
  ClientFile,
  Guarantee,
  Credit,
  CreditConfig,
  Installment,
  type JsonSchema,
  LedgerEntry,
} from '../../domain/records.ts';
import type { Database } from '../connection.ts';

// timestamps as the API writes them (Date#toISOString: UTC, milliseconds, Z); the colons are put
// in by translate so the text has no ":name" that pgbench (the bench's ceiling) would take for a variable
const isoTime = (col: string) =>
  `translate(to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24~MI~SS.MS"Z"'), '~', ':')`;

const isDateTime = (t: TSchema): boolean => {
  const s = t as JsonSchema;
  return s.format === 'date-time' || (Array.isArray(s.anyOf) && s.anyOf.some((x) => x.format === 'date-time'));
};

/**
 * json_build_object of a record: each property is the column of that name of `alias`, or the
 * expression `computed` gives for it. Money columns are numeric: JSON numbers as stored (1234.50).
 */
export function recordJson(schema: TObject, alias: string, computed: Record<string, string> = {}): string {
  const pairs = Object.entries(schema.properties).map(([key, s]) => {
    const expr = computed[key] ?? (isDateTime(s) ? isoTime(`${alias}.${key}`) : `${alias}.${key}`);
    return `'${key}', ${expr}`;
  });
  // json_build_object takes at most 100 arguments: a longer record is two objects merged
  if (pairs.length <= 50) return `json_build_object(${pairs.join(', ')})`;
  const half = Math.ceil(pairs.length / 2);
  return `(jsonb_build_object(${pairs.slice(0, half).join(', ')}) || jsonb_build_object(${pairs.slice(half).join(', ')}))::json`;
}

// encodeURIComponent in SQL: every character but A-Z a-z 0-9 - _ . ! ~ * ' ( ) as %XX of its UTF-8 bytes
const uriComponent = (col: string) =>
  `(SELECT coalesce(string_agg(CASE WHEN ch ~ '^[A-Za-z0-9_.!~*''()-]$' THEN ch
     ELSE upper(regexp_replace(encode(convert_to(ch, 'UTF8'), 'hex'), '(..)', '%\\1', 'g')) END, '' ORDER BY n), '')
   FROM regexp_split_to_table(${col}, '') WITH ORDINALITY AS t(ch, n))`;

// the order ledgerOfCredits (ledger.ts) gives: as written, then by kind and installment number
const LEDGER_ORDER = `l.created_at, l.effective_date, CASE l.type WHEN 'installment' THEN 0 WHEN 'punitory' THEN 1 ELSE 2 END, l.installment_number, l.id`;

/**
 * Installments with their Balance as of $3 (the business's today) in the time zone $4, for the
 * credits of CTE k; the ledger of those credits is CTE l. Like owedOf (lending/engine/state.ts): an
 * installment accrues only while its credit is active or written off (until the write-off day)
 * and its amount is not all paid; what it accrued is the cumulative punitory minus what is posted.
 */
const BALANCES = `
pay AS (
  SELECT l.installment_id,
    coalesce(sum(l.amount) FILTER (WHERE l.type = 'punitory'), 0) AS punitory_posted,
    coalesce(sum(l.amount) FILTER (WHERE l.type = 'payment'), 0) AS paid,
    coalesce(sum(l.amount) FILTER (WHERE l.type = 'charge'), 0) AS charges,
    coalesce(-sum(l.amount) FILTER (WHERE l.type = 'waiver'), 0) AS waived,
    coalesce(sum(l.amount - l.punitory_part - l.charge_part) FILTER (WHERE l.type = 'payment'), 0) AS principal_paid,
    array_agg(l.effective_date ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS paid_on,
    array_agg(l.amount - l.punitory_part - l.charge_part ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS principal,
    -- the punitory paid before its VAT (compound grows on that: lending/engine/state.ts netPunitoryPaid)
    array_agg(l.punitory_part / (1 + k.vat_rate) ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS punitory
  FROM l JOIN k ON k.id = l.credit_id GROUP BY l.installment_id
),
ib AS (
  SELECT i.*, k.status AS credit_status, coalesce(p.punitory_posted, 0) AS punitory_posted, coalesce(p.paid, 0) AS paid,
    -- the collection charge whose day has come counts before it is posted (owedOf's chargesAsOf;
    -- src/domain/fees.ts collectionChargeOwed): the rule's figure; otherwise what is posted
    CASE WHEN k.status IN ('active', 'written_off') AND f.after_days IS NOT NULL AND i.due_date + f.after_days <= $3::date
      THEN CASE WHEN ((k.written_off_at AT TIME ZONE $4::text)::date IS NULL
                      OR i.due_date + f.after_days <= (k.written_off_at AT TIME ZONE $4::text)::date)
                  AND (SELECT coalesce(sum(x.amount - x.punitory_part - x.charge_part), 0) FROM l x
                        WHERE x.installment_id = i.id AND x.type = 'payment' AND x.effective_date < i.due_date + f.after_days) < i.amount
             THEN f.total ELSE 0 END
      ELSE coalesce(p.charges, 0) END AS charges,
    coalesce(p.waived, 0) AS waived,
    CASE WHEN k.status IN ('active', 'written_off') AND coalesce(p.principal_paid, 0) < i.amount AND k.daily_punitory_rate > 0
      THEN punitory_with_vat(punitory_cumulative(i.amount, i.due_date, $3::date, (k.written_off_at AT TIME ZONE $4::text)::date,
             k.daily_punitory_rate, k.punitory_mode, greatest(k.grace_days, i.tolerance_days), k.max_punitory_days,
             k.punitory_cap_pct, p.paid_on, p.principal, p.punitory), k.vat_rate) - coalesce(p.punitory_posted, 0)
      ELSE 0 END AS punitory_accrued
  FROM installments i
  JOIN k ON k.id = i.credit_id
  LEFT JOIN pay p ON p.installment_id = i.id
  -- the credit's collection charge (migration 055)
  LEFT JOIN LATERAL collection_charge(k.fees, k.vat_rate) f ON true
  WHERE i.business_id = $1
)`;

/** What an installment still owes (its amount, punitory and charges, less what is paid and waived): the credit read's figure. */
const OUTSTANDING = '(ib.amount + ib.punitory_posted + ib.punitory_accrued + ib.charges - ib.waived - ib.paid)';

// a cancelled credit's installments are history, never late (src/domain/delinquency.ts)
const INSTALLMENT = recordJson(Installment, 'ib', {
  overdue: `(ib.credit_status <> 'inactive' AND ib.status <> 'paid' AND ib.due_date < $3::date)`,
  days_late: `CASE WHEN ib.credit_status = 'inactive' THEN 0
    WHEN ib.status = 'paid' THEN greatest(coalesce(ib.paid_date - ib.due_date, 0), 0)
    ELSE greatest($3::date - ib.due_date, 0) END`,
  outstanding: OUTSTANDING,
});

const FILES = `coalesce((SELECT json_agg(${recordJson(ClientFile, 'f', {
  file_url: `'/api/files/' || f.client_id || '/' || ${uriComponent('f.file_name')}`,
})} ORDER BY f.created_at, f.id)
    FROM client_files f WHERE f.business_id = $1 AND f.client_id = $2), '[]')`;

// k holds the client's own credits (mine) and those the client backs as a guarantor or co-borrower
// (the guarantees, with their outstanding summed from the same balances as the credit read's)
const CLIENT_DOCUMENT = `
WITH cl AS (SELECT * FROM clients WHERE business_id = $1 AND id = $2),
g AS (SELECT * FROM credit_guarantors WHERE business_id = $1 AND client_id = $2),
k AS (
  -- two index lookups, not one OR: with the OR the planner reads every credit of the business
  -- and, expecting thousands, hashes every installment of the book
  SELECT c.*, true AS mine FROM credits c WHERE c.business_id = $1 AND c.client_id = $2
  UNION ALL
  SELECT c.*, false AS mine FROM credits c JOIN g ON g.credit_id = c.id
  WHERE c.business_id = $1 AND c.client_id <> $2
),
l AS (
  SELECT l.*, i.number AS installment_number
  FROM ledger l JOIN installments i ON i.business_id = l.business_id AND i.id = l.installment_id
  WHERE l.business_id = $1 AND l.credit_id IN (SELECT id FROM k)
),
${BALANCES}
SELECT ${recordJson(ClientDetail, '', {
  client: recordJson(Client, 'cl'),
  credits: `coalesce((SELECT json_agg(${recordJson(Credit, 'k')} ORDER BY k.sequential_id) FROM k WHERE k.mine), '[]')`,
  installments: `coalesce((SELECT json_agg(${INSTALLMENT} ORDER BY ib.credit_id, ib.number) FROM ib
    WHERE ib.credit_id IN (SELECT id FROM k WHERE k.mine)), '[]')`,
  ledgerEntries: `coalesce((SELECT json_agg(${recordJson(LedgerEntry, 'l')} ORDER BY ${LEDGER_ORDER}) FROM l
    WHERE l.credit_id IN (SELECT id FROM k WHERE k.mine)), '[]')`,
  files: FILES,
  guarantees: `coalesce((SELECT json_agg(${recordJson(Guarantee, 'g', {
    borrower_id: 'k.client_id',
    status: 'k.status',
    outstanding: `(SELECT coalesce(sum(${OUTSTANDING}), 0) FROM ib WHERE ib.credit_id = k.id)`,
  })} ORDER BY g.created_at, g.id) FROM g JOIN k ON k.id = g.credit_id), '[]')`,
})}::text AS body
FROM cl`;

// The credit's ledger (docs/api.md "Read a credit's ledger"), oldest first; no row when the business has no such credit.
const CREDIT_LEDGER = `
WITH l AS (
  SELECT l.*, i.number AS installment_number
  FROM ledger l JOIN installments i ON i.business_id = l.business_id AND i.id = l.installment_id
  WHERE l.business_id = $1 AND l.credit_id = $2
)
SELECT coalesce((SELECT json_agg(${recordJson(LedgerEntry, 'l')} ORDER BY ${LEDGER_ORDER}) FROM l), '[]')::text AS body
FROM credits WHERE business_id = $1 AND id = $2`;

// The client's credits (docs/api.md "List a client's credits"), oldest first; no row when the business has no such client.
const CLIENT_CREDITS = `
SELECT coalesce((SELECT json_agg(${recordJson(Credit, 'k')} ORDER BY k.sequential_id)
  FROM credits k WHERE k.business_id = $1 AND k.client_id = $2), '[]')::text AS body
FROM clients WHERE business_id = $1 AND id = $2`;

// The plans (docs/api.md "List plans"), oldest first.
const PLANS = `
SELECT coalesce(json_agg(${recordJson(CreditConfig, 'c')} ORDER BY c.created_at, c.id), '[]')::text AS body
FROM credit_configs c WHERE c.business_id = $1`;

// The branches (docs/api.md "List branches"), deleted ones included; the contract types address and phone string, not nullable: an unknown one is ""
const BRANCHES = `
SELECT coalesce(json_agg(${recordJson(Branch, 'b', { address: "coalesce(b.address, '')", phone: "coalesce(b.phone, '')" })}
  ORDER BY b.created_at, b.id), '[]')::text AS body
FROM branches b WHERE b.business_id = $1`;

/** The statements of this module by name: what the app prepares, and the bench's ceilings run (bench/lib/statements.ts). */
export const DOCUMENT_STATEMENTS = {
  client: CLIENT_DOCUMENT,
  client_credits: CLIENT_CREDITS,
  credit_ledger: CREDIT_LEDGER,
  plans: PLANS,
  branches: BRANCHES,
} as const;

async function documentOf(
  db: Database,
  name: keyof typeof DOCUMENT_STATEMENTS,
  params: unknown[],
): Promise<string | undefined> {
  const rows = await db.prepared<{ body: string }>(`document_${name}`, DOCUMENT_STATEMENTS[name], params);
  return rows[0]?.body;
}

/** The ClientDetail of docs/api.md "Read a client" as JSON text, as of `today` in `timezone`; undefined when the business has no such client. */
export const clientDocument = (db: Database, businessId: string, clientId: string, today: string, timezone: string) =>
  documentOf(db, 'client', [businessId, clientId, today, timezone]);

/** The client's credits as JSON text; undefined when the business has no such client. */
export const clientCreditsDocument = (db: Database, businessId: string, clientId: string) =>
  documentOf(db, 'client_credits', [businessId, clientId]);

/** The credit's ledger as JSON text; undefined when the business has no such credit. */
export const creditLedgerDocument = (db: Database, businessId: string, creditId: string) =>
  documentOf(db, 'credit_ledger', [businessId, creditId]);

/** The plans as JSON text. */
export const plansDocument = async (db: Database, businessId: string) => (await documentOf(db, 'plans', [businessId]))!;

/** The branches as JSON text. */
export const branchesDocument = async (db: Database, businessId: string) =>
  (await documentOf(db, 'branches', [businessId]))!;
