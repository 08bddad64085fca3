// Business events (migration 012): buffered per transaction while a use case works, written with
// their sequences just before it commits (withActor, src/db/connection.ts), read by the feed and
// by the webhook dispatcher.
import { sql, type Transaction } from 'kysely';
import type { DB, EventRow } from '../schema.ts';
import type { Executor } from '../connection.ts';

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
 * Writes the transaction's buffered events. Called last before the commit: the counter's row lock
 * taken here is what orders the business's event transactions, and it is held only until then.
 */
export async function flushEvents(trx: Transaction<DB>): Promise<void> {
  const list = pending.get(trx);
  if (!list || list.length === 0) return;
  pending.delete(trx);
  const byBusiness = new Map<string, PendingEvent[]>();
  for (const e of list) {
    const l = byBusiness.get(e.businessId);
    if (l) l.push(e);
    else byBusiness.set(e.businessId, [e]);
  }
  // a fixed order of businesses, so two transactions never wait on each other's counters
  for (const businessId of [...byBusiness.keys()].sort()) {
    const events = byBusiness.get(businessId)!;
    const n = events.length;
    const { rows } = await sql<{ last_sequence: string | number }>`
      INSERT INTO event_counters AS c (business_id, last_sequence) VALUES (${businessId}, ${n})
      ON CONFLICT (business_id) DO UPDATE SET last_sequence = c.last_sequence + ${n}
      RETURNING last_sequence`.execute(trx);
    const first = Number(rows[0]!.last_sequence) - n + 1;
    await trx
      .insertInto('events')
      .values(
        events.map((e, i) => ({
          business_id: businessId,
          sequence: first + i,
          type: e.type,
          ordering_key: e.orderingKey,
          data: JSON.stringify(e.data),
        })),
      )
      .execute();
  }
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

/** The last sequence given in the business (0 before its first event). */
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
 * two runs never announce the same day twice (null: never yet).
 */
export async function lockOverdueThrough(trx: Transaction<DB>, businessId: string): Promise<string | null> {
  await sql`INSERT INTO event_counters (business_id) VALUES (${businessId}) ON CONFLICT (business_id) DO NOTHING`.execute(
    trx,
  );
  const row = await trx
    .selectFrom('event_counters')
    .select('overdue_through')
    .where('business_id', '=', businessId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return row.overdue_through;
}

export async function setOverdueThrough(trx: Transaction<DB>, businessId: string, through: string): Promise<void> {
  await trx
    .updateTable('event_counters')
    .set({ overdue_through: through })
    .where('business_id', '=', businessId)
    .execute();
}
