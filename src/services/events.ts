// Business events (API.md "Events and webhooks"): each use case announces what it changed, in its
// own transaction, with the object as that object's own read returns it. The feed reads them.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import {
  bufferEvent,
  businessesWithPendingEvents,
  eventsAfter,
  PASS_ROWS,
  sequenceEvents,
  type EventRecordRow,
} from '../db/repositories/events.ts';
import type { ActorContext, Database } from './context.ts';

export const EVENT_TYPES = [
  'client.created',
  'client.updated',
  'credit.created',
  'credit.status_changed',
  'payment.created',
  'payment.reversed',
  'installment.overdue',
  'punitory.posted',
  'plan.created',
  'plan.updated',
  'branch.created',
  'branch.updated',
  'branch.deleted',
  'file.created',
  'file.deleted',
  'verification.completed',
  'payment_import.finished',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Announces a change in the transaction that makes it: written when the transaction commits,
 * gone if it rolls back. `object` is the API's record (the present* functions build it); `extra`
 * adds to data (credit.status_changed's previous_status). `creditId` keeps a credit's events in
 * order for webhook endpoints; without it the object's own id does.
 */
export function emit(
  trx: Transaction<DB>,
  businessId: string,
  type: EventType,
  object: { id: string },
  opts: { creditId?: string; extra?: Record<string, unknown> } = {},
): void {
  bufferEvent(trx, {
    businessId,
    type,
    orderingKey: opts.creditId ?? object.id,
    data: { object, ...opts.extra },
  });
}

/** An edit's event, announced only when the record's fields changed (its updated_at aside). */
export function emitEdit(
  trx: Transaction<DB>,
  businessId: string,
  type: EventType,
  before: { id: string },
  after: { id: string },
): void {
  const fields = (r: object) => JSON.stringify({ ...r, updated_at: null });
  if (fields(before) !== fields(after)) emit(trx, businessId, type, after);
}

export interface EventRecord {
  id: string;
  sequence: number;
  type: string;
  created_at: Date;
  data: { object: object; [key: string]: unknown };
}

export const presentEvent = (e: EventRecordRow): EventRecord => ({
  id: e.id,
  sequence: Number(e.sequence),
  type: e.type,
  created_at: e.created_at,
  data: e.data as EventRecord['data'],
});

/**
 * Numbers the committed events still waiting in the outbox (docs/events.md "Why a poller never
 * misses an event"), for every business or one; a pass another process is making is waited for
 * (it is short: one statement). Returns the events numbered.
 */
export async function numberPendingEvents(db: Kysely<DB>, scope: { businessId?: string } = {}): Promise<number> {
  let numbered = 0;
  for (const businessId of await businessesWithPendingEvents(db, scope.businessId)) {
    for (;;) {
      const n = await db.transaction().execute((trx) => sequenceEvents(trx, businessId));
      numbered += n;
      if (n < PASS_ROWS) break;
    }
  }
  return numbered;
}

/**
 * The feed: events after `after`, oldest first; next_after is where the next poll starts. What
 * committed before the request is numbered first, so the feed adds no delay to an event.
 */
export async function listEvents(
  db: Database,
  ctx: ActorContext,
  q: { after: number; types?: readonly string[]; limit: number },
): Promise<{ items: EventRecord[]; next_after: number }> {
  await numberPendingEvents(db.kysely, { businessId: ctx.businessId });
  const rows = await eventsAfter(db.kysely, ctx.businessId, q);
  const items = rows.map(presentEvent);
  return { items, next_after: items.length > 0 ? items[items.length - 1]!.sequence : q.after };
}
