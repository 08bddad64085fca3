// Payment imports (docs/payments.md, "Importing payments"): a CSV file of
// payments is stored as it arrives (202), then paid in the background, line by line in file
// order, each line exactly as POST /api/credits/{id}/payments would pay it: a bad line is
// rejected with the API's code and message and changes nothing; a channel's reference already
// paid is a duplicate. Lines are decided in batches: one transaction pays a batch's lines (each
// credit locked once, its book kept between its lines) and records their outcomes, so a line is
// decided exactly once even when the process dies. A batch that fails as a whole (a racing payment
// took one of its references, a deadlock) is done again one line a transaction.
import type { Kysely, Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { withActor } from '../db/connection.ts';
import type { DB, PaymentImport, PaymentImportLine, PaymentImportLineStatus, PaymentMethod } from '../db/schema.ts';
import { getBusiness } from '../db/repositories/businesses.ts';
import {
  claimImport,
  finishImport,
  getImport,
  insertImport,
  markRepeatedLines,
  repeatedLinePayments,
  listImportLines,
  listImports,
  type ImportKey,
  pendingLines,
  recordOutcomes,
  type LineOutcome,
  type NewImportLine,
} from '../db/repositories/paymentImports.ts';
import { paymentByReference, paymentsByReferences, referenceKey } from '../db/repositories/payments.ts';
import { CsvError, parse } from 'csv-parse/sync';
import { Value } from 'typebox/value';
import { isValidDate } from '../domain/dates.ts';
import { AppError, invalid, notFound } from '../domain/errors.ts';
import { PAYMENT_METHODS, PaymentImport as PaymentImportRecord } from '../domain/records.ts';
import { isUuid } from '../domain/uuid.ts';
import { actorContext, type ActorContext, type Clock, type Database } from './context.ts';
import { emit } from './events.ts';
import { decodeCursor, encodeCursor, type CursorList } from './cursors.ts';
import { flushBatch, loadLockedMany, setAside, type SetAside } from './lending/store.ts';
import { nothingStaged } from './lending/engine/book.ts';
import { usableBranches } from './branches.ts';
import { checkPayment, isReferenceTaken, paymentReference, stagePayment } from './lending/payments.ts';
import { recordBuilder } from './present.ts';
import { money } from '../domain/index.ts';

/** At most this many lines a file (its header aside). */
export const MAX_IMPORT_LINES = 100_000;
/** At most this many bytes a file. */
export const MAX_IMPORT_BYTES = 16 * 1024 * 1024;
export const IMPORT_COLUMNS = ['credit', 'amount', 'paid_on', 'method', 'channel', 'external_reference'] as const;
/** Lines decided in one transaction. */
const BATCH = 500;
/**
 * A batch's payments are written this many to a statement, each sent as soon as they are decided:
 * the database writes one chunk while the engine decides the next (payBatch).
 */
const WRITE_CHUNK = 100;
/** How long a claim holds an import; renewed every batch. */
const LEASE_MS = 60_000;

const importRecord = recordBuilder(PaymentImportRecord);
export const presentImport = (r: PaymentImport) => importRecord(r);
export const presentImportLine = (l: PaymentImportLine) => ({
  line: l.line,
  credit: l.credit,
  amount: /^\d{1,12}(\.\d{1,2})?$/.test(l.amount) ? Number(l.amount) : null,
  status: l.status,
  code: l.code,
  message: l.message,
  payment_id: l.payment_id,
});

/**
 * The records of a CSV text (RFC 4180, read by csv-parse: quoted fields may hold commas, line
 * breaks and doubled quotes; a byte-order mark is dropped; CRLF or LF), each with the line it
 * starts on, or a 400 naming the line of a malformed quote.
 */
function csvRecords(text: string): { line: number; fields: string[] }[] {
  try {
    const rows = parse(text, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: false,
      record_delimiter: ['\r\n', '\n'],
      info: true,
      raw: true,
    }) as unknown as { record: string[]; info: { lines: number }; raw: string }[];
    // info.lines is the line a record ends on: less the line breaks inside its quoted fields
    return rows.map((r) => ({
      line: r.info.lines - (r.raw.replace(/\r?\n$/, '').match(/\n/g)?.length ?? 0),
      fields: r.record,
    }));
  } catch (err) {
    if (err instanceof CsvError)
      throw invalid('/file', `not a valid CSV file: ${err.message.replace(/^[^:]*: /, '').slice(0, 200)}`);
    throw err;
  }
}

/** The file's lines, checked for shape only (the header, the column count, the size). */
export function readImportFile(text: string): NewImportLine[] {
  const records = csvRecords(text).filter((r) => r.fields.some((f) => f.trim() !== ''));
  const header = records.shift();
  if (!header)
    throw invalid('/file', `the file is empty: its first line names the columns ${IMPORT_COLUMNS.join(', ')}`);
  const names = header.fields.map((f) => f.trim().toLowerCase());
  const missing = IMPORT_COLUMNS.filter(
    (c) => c !== 'method' && c !== 'channel' && c !== 'paid_on' && c !== 'external_reference' && !names.includes(c),
  );
  if (missing.length)
    throw invalid('/file', `the header lacks ${missing.join(', ')} (columns: ${IMPORT_COLUMNS.join(', ')})`);
  const unknown = names.filter((n) => !(IMPORT_COLUMNS as readonly string[]).includes(n));
  if (unknown.length)
    throw invalid('/file', `unknown column ${unknown[0]!.slice(0, 40)} (columns: ${IMPORT_COLUMNS.join(', ')})`);
  if (records.length > MAX_IMPORT_LINES)
    throw new AppError('payload_too_large', `the file has ${records.length} lines: at most ${MAX_IMPORT_LINES} a file`);
  const at = (c: string) => names.indexOf(c);
  const idx = Object.fromEntries(IMPORT_COLUMNS.map((c) => [c, at(c)])) as Record<
    (typeof IMPORT_COLUMNS)[number],
    number
  >;
  const field = (fields: string[], c: (typeof IMPORT_COLUMNS)[number]) =>
    idx[c] < 0 ? '' : (fields[idx[c]] ?? '').trim();
  return records.map((r) => ({
    line: r.line,
    credit: field(r.fields, 'credit'),
    amount: field(r.fields, 'amount'),
    paid_on: field(r.fields, 'paid_on'),
    method: field(r.fields, 'method'),
    channel: field(r.fields, 'channel'),
    external_reference: field(r.fields, 'external_reference'),
  }));
}

/** Stores the file's lines, pending, and answers the import (running); the job pays them. */
export async function startImport(db: Database, ctx: ActorContext, text: string): Promise<PaymentImport> {
  const lines = readImportFile(text);
  return withActor(db.kysely, ctx, async (trx) => {
    const row = await insertImport(
      trx,
      ctx.businessId,
      { createdBy: ctx.actor, branchId: ctx.branchId ?? null },
      lines,
    );
    // the same file again: its lines without a reference that paid before are duplicates at once
    return lines.some((l) => l.external_reference === '') ? markRepeatedLines(trx, ctx.businessId, row.id) : row;
  });
}

export async function readImport(db: Database, ctx: ActorContext, id: string): Promise<PaymentImport> {
  const r = await getImport(db.kysely, ctx.businessId, id);
  if (!r) throw notFound('payment import');
  return r;
}

export interface ImportsPage {
  items: PaymentImport[];
  total: number;
  limit: number;
  /** with a cursor: how many imports came before this page when the cursor was made */
  offset: number;
  /** where the next page starts (pass as ?cursor=); null on the last page */
  next_cursor: string | null;
}

/**
 * The business's imports, newest first, of one status or all (docs/payments.md, "Importing
 * payments"): by offset, or after the place a cursor names (the pages to come keep their place
 * while new imports arrive: those are newer than any place already shown).
 */
export async function readImports(
  db: Database,
  ctx: ActorContext,
  q: { status?: PaymentImport['status']; limit: number; offset: number; cursor?: string },
): Promise<ImportsPage> {
  let status = q.status;
  let position = q.offset;
  let after: ImportKey | undefined;
  if (q.cursor !== undefined) {
    if (q.offset !== 0)
      throw invalid('/offset', 'give a cursor or an offset, not both: the cursor already says where the page starts');
    const c = decodeCursor(IMPORT_CURSORS, ctx.businessId, q.cursor, [status]);
    status = c.filters[0] as PaymentImport['status'] | undefined;
    after = { createdAt: c.after.at, id: c.after.id };
    position = c.position;
  }
  const page = await listImports(db.kysely, ctx.businessId, {
    ...(status ? { status } : {}),
    limit: q.limit,
    offset: after ? 0 : position,
    ...(after ? { after } : {}),
  });
  const last = page.items.at(-1);
  return {
    items: page.items.map(({ place: _p, ...r }) => r),
    total: page.total,
    limit: q.limit,
    offset: position,
    next_cursor:
      page.more && last
        ? encodeCursor(
            IMPORT_CURSORS,
            ctx.businessId,
            [status],
            { at: last.place.createdAt, id: last.place.id },
            position + page.items.length,
          )
        : null,
  };
}

/** The imports' cursors carry the status they list (src/services/cursors.ts). */
const IMPORT_CURSORS: CursorList = {
  list: 'payment_imports',
  version: 'i2',
  legacy: 'i1',
  accepts: [(s) => Value.Check(PaymentImportRecord.properties.status, s)],
  otherListing: '(another business, or another status): send it alone, or with the status of the page that gave it',
};

export async function readImportLines(
  db: Database,
  ctx: ActorContext,
  id: string,
  q: { status?: Exclude<PaymentImportLineStatus, 'pending'>; limit: number; offset: number },
) {
  await readImport(db, ctx, id);
  return listImportLines(db.kysely, ctx.businessId, id, q);
}

// ---------------------------------------------------------------- the background work

export interface ImportDeps {
  db: Database;
  clock: Clock;
  log: FastifyBaseLogger;
}

/**
 * Claims running imports (of every business, or of `businessId`) one at a time and decides their
 * lines until none is left to claim; returns how many lines it decided. Safe in several processes at once.
 */
export async function processImports(
  deps: ImportDeps,
  opts: { stop?: () => boolean; businessId?: string } = {},
): Promise<number> {
  let decided = 0;
  for (;;) {
    if (opts.stop?.()) return decided;
    const now = deps.clock();
    const claimed = await claimImport(deps.db.kysely, {
      now,
      leaseUntil: new Date(now.getTime() + LEASE_MS),
      businessId: opts.businessId,
    });
    if (!claimed) return decided;
    decided += await runImport(deps, claimed, opts);
  }
}

async function runImport(deps: ImportDeps, imp: PaymentImport, opts: { stop?: () => boolean }): Promise<number> {
  const { db, clock } = deps;
  const business = await getBusiness(db.kysely, imp.business_id);
  let decided = 0;
  // the import's group of identical files once decided (repeatedLinePayments): as the claim read
  // it, else once a committed batch of this run decided it; never read again after that
  let group: string | undefined = imp.same_file_as ?? undefined;
  try {
    for (;;) {
      if (opts.stop?.()) return decided;
      const lines = await pendingLines(db.kysely, imp.business_id, imp.id, BATCH);
      if (lines.length === 0) break;
      const ctx: ActorContext = {
        ...actorContext({ businessId: imp.business_id, timezone: business!.timezone }, imp.created_by, clock),
        branchId: imp.branch_id,
      };
      try {
        // the lease renewed by the batch's own write of its outcomes
        group = await payBatch(db.kysely, ctx, imp.id, lines, group, new Date(clock().getTime() + LEASE_MS));
      } catch (err) {
        // a racing payment took a reference, a deadlock: each line alone
        deps.log.warn({ err, import_id: imp.id }, 'payment import batch failed as a whole; lines one by one');
        for (const line of lines) {
          const leaseUntil = new Date(clock().getTime() + LEASE_MS);
          try {
            group = await payBatch(db.kysely, ctx, imp.id, [line], group, leaseUntil);
          } catch (e) {
            await recordAlone(db.kysely, ctx, imp.id, line, e, leaseUntil);
          }
        }
      }
      decided += lines.length;
    }
    await finish(db.kysely, imp, 'done', clock);
  } catch (err) {
    deps.log.error({ err, import_id: imp.id }, 'payment import failed');
    await finish(db.kysely, imp, 'failed', clock).catch(() => {});
  }
  return decided;
}

async function finish(db: Kysely<DB>, imp: PaymentImport, status: 'done' | 'failed', clock: Clock) {
  await withActor(db, { actor: imp.created_by }, async (trx) => {
    const done = await finishImport(trx, imp.business_id, imp.id, status);
    if (done) emit(trx, imp.business_id, 'payment_import.finished', presentImport(done));
  });
  void clock;
}

/** A line that failed alone with something else than a refusal: a duplicate if its reference was taken, else rejected. */
async function recordAlone(
  db: Kysely<DB>,
  ctx: ActorContext,
  importId: string,
  line: PaymentImportLine,
  err: unknown,
  leaseUntil: Date,
) {
  const ref = paymentReference({ channel: line.channel, externalReference: line.external_reference });
  let outcome: LineOutcome;
  if (isReferenceTaken(err) && ref.externalReference !== null) {
    const existing = await paymentByReference(db, ctx.businessId, ref.channel, ref.externalReference);
    outcome = duplicateOutcome(line.line, existing?.id ?? null);
  } else {
    const e = err as { code?: string; message?: string };
    outcome = {
      line: line.line,
      status: 'rejected',
      code: err instanceof AppError ? err.code : 'conflict',
      message: err instanceof AppError ? err.message : 'the line could not be paid; import it again',
      payment_id: null,
    };
    void e;
  }
  await withActor(db, ctx, (trx) => recordOutcomes(trx, ctx.businessId, importId, [outcome], leaseUntil));
}

const duplicateOutcome = (line: number, paymentId: string | null): LineOutcome => ({
  line,
  status: 'duplicate',
  code: 'duplicate_payment',
  message: `the channel's reference was already paid${paymentId ? ` (payment ${paymentId})` : ''}`,
  payment_id: paymentId,
});

const repeatedOutcome = (line: number, paymentId: string): LineOutcome => ({
  line,
  status: 'duplicate',
  code: 'duplicate_payment',
  message: `the same file was imported before: this line paid payment ${paymentId}`,
  payment_id: paymentId,
});

const rejected = (line: number, err: AppError): LineOutcome => ({
  line,
  status: 'rejected',
  code: err.code,
  message: err.message,
  payment_id: null,
});

const AMOUNT = /^\d{1,12}(\.\d{1,2})?$/;
const SEQUENTIAL = /^\d{1,15}$/;
/**
 * How a line's credit is looked up: a sequential id without leading zeros, a uuid in lower case
 * (the API's paths take either case; the database writes them lower case).
 */
const creditKey = (credit: string): string => (SEQUENTIAL.test(credit) ? String(Number(credit)) : credit.toLowerCase());

/** A line's fields checked as the route's schema checks a body: the 400s of the API. */
function checkLine(l: PaymentImportLine): AppError | null {
  if (l.credit === '') return invalid('/credit', 'is required: a sequential id or a uuid');
  if (!isUuid(l.credit) && !SEQUENTIAL.test(l.credit)) return invalid('/credit', 'must be a sequential id or a uuid');
  if (!AMOUNT.test(l.amount)) return invalid('/amount', 'must be a number with at most 2 decimals');
  if (l.paid_on !== '' && !isValidDate(l.paid_on)) return invalid('/paid_on', 'must be a calendar date YYYY-MM-DD');
  if (l.method !== '' && !(PAYMENT_METHODS as readonly string[]).includes(l.method))
    return invalid('/method', `must be one of ${PAYMENT_METHODS.join(', ')}`);
  if (l.channel.length > 40) return invalid('/channel', 'must be at most 40 characters');
  if (l.external_reference.length > 100) return invalid('/external_reference', 'must be at most 100 characters');
  return null;
}

/**
 * Pays a batch of lines in one transaction, in file order, and records their outcomes. The
 * batch's credits are locked and read together (two statements); each line is decided on its
 * credit's book in memory (a refused line leaves the book as it was), its payment set aside as if
 * written, so the credit's next line sees it; the payments are written WRITE_CHUNK to a statement,
 * each chunk sent once decided so that the database writes it while the next lines are decided,
 * their events announced in file order; then the outcomes are recorded with the lease renewed. A line is refused before anything of
 * it is staged for writing, so a bad line never undoes a good one. Returns the import's group of
 * identical files, `group` as given or as the batch decided it (committed: the return follows the
 * commit, so a batch that fails leaves its caller without a decision it undid).
 */
async function payBatch(
  db: Kysely<DB>,
  ctx: ActorContext,
  importId: string,
  lines: PaymentImportLine[],
  group: string | undefined,
  leaseUntil: Date,
): Promise<string | undefined> {
  return withActor(db, ctx, async (trx) => {
    const outcomes: LineOutcome[] = [];
    const refs = lines
      .map((l) => paymentReference({ channel: l.channel, externalReference: l.external_reference }))
      .filter((r) => r.externalReference !== null) as { channel: string | null; externalReference: string }[];
    const taken = await paymentsByReferences(trx, ctx.businessId, refs);
    // the lines without a reference that the same file, imported at the same time, has paid:
    // the start's check (markRepeatedLines) could not see an import not yet stored or not yet paid
    const bare = lines.filter((l) => l.external_reference === '').map((l) => l.line);
    const same = bare.length ? await repeatedLinePayments(trx, ctx.businessId, importId, bare, group) : undefined;
    const repeated = same?.payments ?? new Map<number, string>();
    const keys = [...new Set(lines.map((l) => creditKey(l.credit)))];
    const uuids = keys.filter(isUuid);
    const sequentials = keys.filter((k) => SEQUENTIAL.test(k)).map(Number);
    // the credits the lines name, resolved, locked and read together (no credit is read twice)
    const books = await loadLockedMany(trx as Transaction<DB>, ctx, { ids: uuids, sequentials });
    const creditOf = new Map<string, string>();
    for (const { credit: c } of books.values()) {
      creditOf.set(c.id, c.id);
      creditOf.set(String(c.sequential_id), c.id);
    }
    // a line's branch: the acting user's (where the money was taken), else its credit's, unless deleted
    const branches = await usableBranches(trx as Transaction<DB>, ctx.businessId, [
      ...(ctx.branchId ? [ctx.branchId] : []),
      ...[...books.values()].map((b) => b.credit.branch_id).filter((b): b is string => b !== null),
    ]);
    const acting = ctx.branchId && branches.has(ctx.branchId) ? ctx.branchId : null;
    // the payments decided so far and not yet sent; once WRITE_CHUNK of them, they are written
    // while the next lines are decided (the statement runs in the database as the engine runs here)
    let written: SetAside[] = [];
    let writes: Promise<void> = Promise.resolve();
    const send = async () => {
      const chunk = written;
      written = [];
      // after the previous chunk: the events are announced in the order of the lines
      writes = writes.then(() => flushBatch(trx as Transaction<DB>, ctx, chunk));
      // a failure is thrown where the writes are awaited, below; meanwhile it is not unhandled
      writes.catch(() => {});
      // the statement on its way before the next lines keep this thread busy
      await new Promise((r) => setImmediate(r));
    };
    for (const line of lines) {
      if (written.length >= WRITE_CHUNK) await send();
      const bad = checkLine(line);
      if (bad) {
        outcomes.push(rejected(line.line, bad));
        continue;
      }
      const ref = paymentReference({ channel: line.channel, externalReference: line.external_reference });
      const key = ref.externalReference === null ? null : referenceKey(ref.channel, ref.externalReference);
      if (key !== null && taken.has(key)) {
        outcomes.push(duplicateOutcome(line.line, taken.get(key)!));
        continue;
      }
      const earlier = key === null ? repeated.get(line.line) : undefined;
      if (earlier !== undefined) {
        outcomes.push(repeatedOutcome(line.line, earlier));
        continue;
      }
      const creditId = creditOf.get(creditKey(line.credit));
      const l = creditId === undefined ? undefined : books.get(creditId);
      if (!l) {
        outcomes.push(rejected(line.line, notFound('credit')));
        continue;
      }
      const before = { postedThrough: l.postedThrough, atStorableMax: l.atStorableMax };
      try {
        const checked = checkPayment(ctx, l, {
          amount: money(line.amount).toFixed(2),
          ...(line.paid_on ? { paidOn: line.paid_on } : {}),
          method: (line.method || 'cash') as PaymentMethod,
          channel: ref.channel,
          externalReference: ref.externalReference,
        });
        const branchId = acting ?? (l.credit.branch_id && branches.has(l.credit.branch_id) ? l.credit.branch_id : null);
        const paymentId = stagePayment(ctx, l, checked, branchId);
        written.push(setAside(ctx, l));
        if (key !== null) taken.set(key, paymentId);
        outcomes.push({ line: line.line, status: 'accepted', code: null, message: null, payment_id: paymentId });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        // the book as it was before the line: what the refused line staged is dropped
        Object.assign(l, before, { staged: nothingStaged() });
        outcomes.push(rejected(line.line, err));
      }
    }
    if (written.length) await send();
    await writes;
    await recordOutcomes(trx, ctx.businessId, importId, outcomes, leaseUntil);
    return same?.group ?? group;
  });
}
