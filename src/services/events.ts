// Business events (docs/events.md): each use case announces what it changed, in its
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
import type { TSchema } from 'typebox';
import {
  Application,
  Branch,
  Client,
  ClientFile,
  Credit,
  CreditConfig,
  LedgerEntry,
  Notification,
  Payment,
  PaymentImport,
  PromiseToPay,
  Waiver,
  Verification,
  WorklistItem,
} from '../domain/records.ts';
import { noteWrite, readsOf, type ActorContext, type Database } from './context.ts';

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
  'promise.created',
  'waiver.created',
  'promise.broken',
  'notification.failed',
  'application.submitted',
  'application.decided',
  'payment_import.finished',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What each event type means and the record it carries as `data.object` (the OpenAPI `webhooks` section). */
export const EVENT_OBJECTS: Record<EventType, { summary: string; object: TSchema }> = {
  'client.created': { summary: 'A client was created', object: Client },
  'client.updated': { summary: "A client's data changed", object: Client },
  'credit.created': { summary: 'A credit was granted', object: Credit },
  'credit.status_changed': {
    summary:
      "A credit's status changed (paid, written off, refinanced, cancelled, reopened); data.previous_status says from what",
    object: Credit,
  },
  'payment.created': { summary: 'A payment was registered', object: Payment },
  'payment.reversed': { summary: 'A payment was reversed', object: Payment },
  'installment.overdue': { summary: 'An installment became late (announced by the daily run)', object: WorklistItem },
  'punitory.posted': { summary: 'Punitory interest was posted on a credit', object: LedgerEntry },
  'plan.created': { summary: 'A credit plan was created', object: CreditConfig },
  'plan.updated': { summary: "A credit plan's terms changed (existing credits keep theirs)", object: CreditConfig },
  'branch.created': { summary: 'A branch was created', object: Branch },
  'branch.updated': { summary: 'A branch changed', object: Branch },
  'branch.deleted': { summary: 'A branch was deleted', object: Branch },
  'file.created': { summary: "A file was added to a client's files", object: ClientFile },
  'file.deleted': { summary: "A file was deleted from a client's files", object: ClientFile },
  'verification.completed': {
    summary: "A central bank or tax authority check of a client's CUIT finished",
    object: Verification,
  },
  'waiver.created': {
    summary: 'Punitory or collection charges of an installment were waived (no longer owed; no cash)',
    object: Waiver,
  },
  'promise.created': { summary: 'A promise to pay was taken on a credit', object: PromiseToPay },
  'promise.broken': {
    summary: 'A promise to pay passed its date without the payments it promised (announced once, by the daily run)',
    object: PromiseToPay,
  },
  'notification.failed': {
    summary: 'An e-mail to a client or a user could not be delivered (refused, or every attempt failed)',
    object: Notification,
  },
  'application.submitted': {
    summary: 'A credit application was submitted, with its policy checks',
    object: Application,
  },
  'application.decided': { summary: 'A credit application was approved or rejected', object: Application },
  'payment_import.finished': {
    summary: 'A payment import decided its last line (accepted, rejected and duplicate counts)',
    object: PaymentImport,
  },
};

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
  const e = eventOf(type, object, opts);
  bufferEvent(trx, { businessId, type, orderingKey: e.ordering_key, data: e.data });
}

/** An event as emit buffers it, for a statement that writes it itself (applyCreditChanges). */
export function eventOf(
  type: EventType,
  object: { id: string },
  opts: { creditId?: string; extra?: Record<string, unknown> } = {},
): { type: EventType; ordering_key: string; data: { object: object; [key: string]: unknown } } {
  return { type, ordering_key: opts.creditId ?? object.id, data: { object, ...opts.extra } };
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
  // the passes write: on the primary. With a replica, the read after them goes there only once it
  // has replayed this request's passes (as after any write of the caller) and the caller's own
  // writes, so what committed before the request is in the page; a replica that is behind shows a
  // prefix 1..m of what the primary shows, never a later sequence without an earlier one
  // (docs/events.md "Reading from a replica")
  if ((await numberPendingEvents(db.kysely, { businessId: ctx.businessId })) > 0) await noteWrite(db, ctx);
  const rows = await eventsAfter(await readsOf(db, ctx), ctx.businessId, q);
  const items = rows.map(presentEvent);
  return { items, next_after: items.length > 0 ? items[items.length - 1]!.sequence : q.after };
}
