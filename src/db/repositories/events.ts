// Business events (migrations 012, 025): buffered per transaction while a use case works, written
// to the outbox just before it commits (withActor, src/db/connection.ts), numbered by a sequencer
// pass once committed, read by the feed and by the webhook dispatcher.
import { CompiledQuery, sql, type Transaction } from 'kysely';
import type { DB, EventRow } from '../schema.ts';
import type { Executor } from '../connection.ts';
import { preparedText } from '../prepared.ts';

export interface PendingEvent {
  businessId: string;
  type: string;
  /** a credit's id for the events of a credit (webhooks keep its events in order), else the object's id */
  orderingKey: string;
  /** {object, ...}: already as the API writes it (JSON.stringify gives the document) */
  data: Record<string, unknown>;
}

const pending = new WeakMap<Transaction<DB>, PendingEvent[]>();

/** Adds an event to what the transaction will write when it commits (nothing if it rolls back). */
export function bufferEvent(trx: Transaction<DB>, event: PendingEvent): void {
  const list = pending.get(trx);
  if (list) list.push(event);
  else pending.set(trx, [event]);
}

/**
 * Takes the transaction's buffered events out of its buffer, in the order announced: a statement
 * of the caller's writes them (with its own after them: applyCreditChanges), so flushEvents does
 * not write them again.
 */
export function takeBufferedEvents(trx: Transaction<DB>): PendingEvent[] {
  const list = pending.get(trx) ?? [];
  pending.delete(trx);
  return list;
}

/**
 * Writes the transaction's buffered events into the outbox: one INSERT, no lock, so writers of one
 * business never wait for each other here. They get their sequence from a sequencer pass once
 * they have committed (sequenceEvents). Called last before the commit: after the credit's row lock
 * has been held for the whole use case, so a credit's later transaction gets later positions.
 */
export async function flushEvents(trx: Transaction<DB>): Promise<void> {
  const list = pending.get(trx);
  if (!list || list.length === 0) return;
  pending.delete(trx);
  // positions follow the rows' order: a use case's events keep the order it announced them in
  await trx.executeQuery(
    CompiledQuery.raw(FLUSH_EVENTS, [
      JSON.stringify(
        list.map((e) => ({ business_id: e.businessId, type: e.type, ordering_key: e.orderingKey, data: e.data })),
      ),
    ]),
  );
}

/**
 * $1 the events (JSON array), inserted in its order. One text whatever the number of events, so
 * it is prepared once a connection (preparedText).
 */
const FLUSH_EVENTS = preparedText(
  'flush_events',
  `INSERT INTO event_outbox (business_id, type, ordering_key, data)
   SELECT e.business_id, e.type, e.ordering_key, e.data
     FROM ROWS FROM (json_to_recordset($1::json) AS (business_id uuid, type text, ordering_key uuid, data jsonb))
          WITH ORDINALITY AS e(business_id, type, ordering_key, data, n)
    ORDER BY e.n`,
);

/** Rows one sequencer pass moves at most (a bigger backlog takes several passes). */
export const PASS_ROWS = 5_000;

/**
 * A sequencer pass for one business (migration 025): takes the business's counter row lock (the
 * only thing that takes it), then moves the outbox rows this statement can see (committed ones:
 * an open transaction's rows are not visible) into events, numbered after the counter in position
 * order, and moves the counter. Returns how many events it numbered. The numbers become visible when the caller's
 * transaction commits; passes of a business commit one after the other, so a reader always sees
 * sequences 1..n, never n+1 without n.
 */
export async function sequenceEvents(
  trx: Transaction<DB>,
  businessId: string,
  opts: { limit?: number } = {},
): Promise<number> {
  const lock = () =>
    trx
      .selectFrom('event_counters')
      .select('last_sequence')
      .where('business_id', '=', businessId)
      .forUpdate()
      .executeTakeFirst();
  let counter = await lock();
  if (!counter) {
    // the business's first pass: the row may be created by a concurrent pass too (then this waits for it)
    await sql`INSERT INTO event_counters (business_id) VALUES (${businessId}) ON CONFLICT (business_id) DO NOTHING`.execute(
      trx,
    );
    counter = (await lock())!;
  }
  // a statement after the lock: in READ COMMITTED its snapshot holds every pass committed before
  const { rows } = await sql<{ n: string | number }>`
    WITH moved AS (
      DELETE FROM event_outbox
       WHERE business_id = ${businessId}
         AND pos IN (SELECT pos FROM event_outbox WHERE business_id = ${businessId} ORDER BY pos LIMIT ${opts.limit ?? PASS_ROWS})
      RETURNING pos, id, type, ordering_key, data, created_at),
    numbered AS (
      INSERT INTO events (business_id, sequence, id, type, ordering_key, data, created_at)
      SELECT ${businessId}::uuid, ${counter.last_sequence}::bigint + row_number() OVER (ORDER BY pos), id, type,
             ordering_key, data, created_at
        FROM moved
      RETURNING sequence),
    counted AS (SELECT count(*) AS n FROM numbered)
    UPDATE event_counters c SET last_sequence = c.last_sequence + counted.n
      FROM counted
     WHERE c.business_id = ${businessId} AND counted.n > 0
    RETURNING counted.n`.execute(trx);
  return rows.length ? Number(rows[0]!.n) : 0;
}

/** The businesses with events waiting for their numbers (optionally one business). */
export async function businessesWithPendingEvents(db: Executor, businessId?: string): Promise<string[]> {
  const rows = businessId
    ? await db.selectFrom('event_outbox').select('business_id').where('business_id', '=', businessId).limit(1).execute()
    : await db.selectFrom('event_outbox').select('business_id').distinct().execute();
  return rows.map((r) => r.business_id);
}

export type EventRecordRow = Pick<EventRow, 'id' | 'sequence' | 'type' | 'created_at' | 'data' | 'ordering_key'>;

/** The business's events after a sequence, oldest first (the feed; the webhook dispatcher). */
export function eventsAfter(
  db: Executor,
  businessId: string,
  q: { after: number; types?: readonly string[]; limit: number },
): Promise<EventRecordRow[]> {
  let query = db
    .selectFrom('events')
    .select(['id', 'sequence', 'type', 'created_at', 'data', 'ordering_key'])
    .where('business_id', '=', businessId)
    .where('sequence', '>', q.after);
  if (q.types && q.types.length > 0) query = query.where('type', 'in', q.types);
  return query.orderBy('sequence').limit(q.limit).execute();
}

/** The last sequence given in the business (0 before its first event): read after a pass, under its lock, it is exact. */
export async function lastSequence(db: Executor, businessId: string): Promise<number> {
  const row = await db
    .selectFrom('event_counters')
    .select('last_sequence')
    .where('business_id', '=', businessId)
    .executeTakeFirst();
  return row ? Number(row.last_sequence) : 0;
}

/**
 * How far the daily run has announced overdue installments, locked until the transaction ends so
 * two runs never announce the same day twice (null: never yet). Its own row, not the sequencer's
 * counter: the run holds it for its whole transaction.
 */
export async function lockOverdueThrough(trx: Transaction<DB>, businessId: string): Promise<string | null> {
  await sql`INSERT INTO overdue_announcements (business_id) VALUES (${businessId}) ON CONFLICT (business_id) DO NOTHING`.execute(
    trx,
  );
  const row = await trx
    .selectFrom('overdue_announcements')
    .select('through')
    .where('business_id', '=', businessId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return row.through;
}

export async function setOverdueThrough(trx: Transaction<DB>, businessId: string, through: string): Promise<void> {
  await trx.updateTable('overdue_announcements').set({ through }).where('business_id', '=', businessId).execute();
}
