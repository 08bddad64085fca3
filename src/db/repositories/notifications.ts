// E-mails to clients and users (migration 044): queued, claimed by the mail job with a lease
// (SKIP LOCKED: any number of processes), and recorded as sent or failed.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';
import type { NotificationKind, NotificationRow, NotificationStatus } from '../schema.ts';
import { pageOf, type Page, type PageRequest } from './page.ts';

export interface NewNotification {
  client_id?: string | null;
  user_id?: string | null;
  credit_id?: string | null;
  installment_id?: string | null;
  kind: NotificationKind;
  offset_days?: number | null;
  to: string;
  subject: string;
  body: string | null;
  status: NotificationStatus;
  attempts?: number;
  error?: string | null;
  next_attempt_at?: Date | null;
  sent_at?: Date | null;
  created_at?: Date;
}

/** Inserts these; a reminder already there (installment, kind, day offset) is left as it is. Returns the new rows. */
export async function insertNotifications(
  db: Executor,
  businessId: string,
  rows: NewNotification[],
): Promise<NotificationRow[]> {
  if (rows.length === 0) return [];
  return db
    .insertInto('notifications')
    .values(rows.map((r) => ({ ...r, business_id: businessId })))
    .onConflict((oc) =>
      oc
        .columns(['business_id', 'installment_id', 'kind', 'offset_days'])
        .where('installment_id', 'is not', null)
        .doNothing(),
    )
    .returningAll()
    .execute();
}

export interface NotificationFilter {
  client_id?: string;
  status?: NotificationStatus;
  /** leave out the e-mails to users */
  clientsOnly?: boolean;
}

/** Newest first. */
export function listNotifications(
  db: Executor,
  businessId: string,
  f: NotificationFilter & PageRequest,
): Promise<Page<NotificationRow>> {
  let base = db.selectFrom('notifications').where('business_id', '=', businessId);
  if (f.client_id) base = base.where('client_id', '=', f.client_id);
  if (f.status) base = base.where('status', '=', f.status);
  if (f.clientsOnly) base = base.where('user_id', 'is', null);
  return pageOf(base, (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'), f);
}

/**
 * Claims up to `limit` queued notifications due by `now` (of one business, or of all), each for
 * `leaseMs`: another process skips them until then, and takes them over if this one dies.
 */
export async function claimDueNotifications(
  db: Executor,
  opts: { now: Date; limit: number; leaseMs: number; businessId?: string },
): Promise<NotificationRow[]> {
  const until = new Date(opts.now.getTime() + opts.leaseMs);
  const business = opts.businessId ? sql`AND business_id = ${opts.businessId}` : sql``;
  const r = await sql<NotificationRow>`
    UPDATE notifications n SET lease_until = ${until}, attempts = n.attempts + 1
      FROM (SELECT business_id, id FROM notifications
             WHERE status = 'queued' AND next_attempt_at <= ${opts.now}
               AND (lease_until IS NULL OR lease_until <= ${opts.now}) ${business}
             ORDER BY next_attempt_at
             LIMIT ${opts.limit}
             FOR UPDATE SKIP LOCKED) due
     WHERE n.business_id = due.business_id AND n.id = due.id
    RETURNING n.*`.execute(db);
  return r.rows;
}

/** What one attempt came to: sent, retried at a later time, or failed for good. Only while this claim holds the lease. */
export async function recordAttempt(
  db: Executor,
  n: Pick<NotificationRow, 'business_id' | 'id' | 'lease_until'>,
  outcome:
    | { status: 'sent'; at: Date }
    | { status: 'queued'; error: string; next_attempt_at: Date }
    | { status: 'failed'; error: string },
): Promise<NotificationRow | undefined> {
  const set =
    outcome.status === 'sent'
      ? { status: 'sent' as const, sent_at: outcome.at, error: null, next_attempt_at: null, lease_until: null }
      : outcome.status === 'queued'
        ? {
            status: 'queued' as const,
            error: outcome.error,
            next_attempt_at: outcome.next_attempt_at,
            lease_until: null,
          }
        : { status: 'failed' as const, error: outcome.error, next_attempt_at: null, lease_until: null };
  return db
    .updateTable('notifications')
    .set(set)
    .where('business_id', '=', n.business_id)
    .where('id', '=', n.id)
    .where('status', '=', 'queued')
    .where('lease_until', '=', n.lease_until)
    .returningAll()
    .executeTakeFirst();
}

/** The clients of these ids who may be reminded: an e-mail address, and not opted out. */
export function remindableClients(db: Executor, businessId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('clients')
    .select(['id', 'email', 'first_name', 'last_name'])
    .where('business_id', '=', businessId)
    .where('id', 'in', ids)
    .where('email', 'is not', null)
    .where('notifications_opt_out', '=', false)
    .execute() as Promise<{ id: string; email: string; first_name: string | null; last_name: string | null }[]>;
}

/** Queued notifications of every business (the mail backlog). */
export async function queuedNotifications(db: Executor): Promise<number> {
  const r = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('status', '=', 'queued')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
