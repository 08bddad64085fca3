// Webhook endpoints, their secrets and cursors, and their deliveries (migration 013). The
// statements that share the delivery work between processes are here: the dispatcher's lock on an
// endpoint's cursor and the senders' claim of due deliveries, both FOR UPDATE SKIP LOCKED.
import { sql, type Transaction } from 'kysely';
import type { DB, WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint } from '../schema.ts';
import type { Executor } from '../connection.ts';

export interface EndpointFields {
  url: string;
  events: string[];
  description: string | null;
}

export async function insertEndpoint(
  trx: Transaction<DB>,
  businessId: string,
  fields: EndpointFields,
  state: { secret: string; lastSequence: number },
): Promise<WebhookEndpoint> {
  const endpoint = await trx
    .insertInto('webhook_endpoints')
    .values({ business_id: businessId, ...fields })
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('webhook_endpoint_state')
    .values({
      business_id: businessId,
      endpoint_id: endpoint.id,
      secret: state.secret,
      last_sequence: state.lastSequence,
    })
    .execute();
  return endpoint;
}

export function countEndpoints(db: Executor, businessId: string): Promise<number> {
  return db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('business_id', '=', businessId)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

export function listEndpoints(db: Executor, businessId: string): Promise<WebhookEndpoint[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('business_id', '=', businessId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function getEndpoint(db: Executor, businessId: string, id: string): Promise<WebhookEndpoint | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Read locked until the transaction ends: edits of one endpoint wait for each other. */
export function lockEndpoint(trx: Transaction<DB>, businessId: string, id: string) {
  return trx
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export function updateEndpoint(
  trx: Transaction<DB>,
  businessId: string,
  id: string,
  patch: Partial<EndpointFields> & { enabled?: boolean; disabled_at?: Date | null; disabled_reason?: string | null },
): Promise<WebhookEndpoint | undefined> {
  return trx
    .updateTable('webhook_endpoints')
    .set({ ...patch, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the endpoint with its secret, cursor and deliveries. */
export function deleteEndpoint(trx: Transaction<DB>, businessId: string, id: string) {
  return trx
    .deleteFrom('webhook_endpoints')
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Disables an enabled endpoint because its deliveries failed (the endpoint's row: audited, by the
 * job's actor). Nothing when it is already disabled.
 */
export function disableEndpoint(trx: Transaction<DB>, businessId: string, id: string, at: Date, reason: string) {
  return trx
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_at: at, disabled_reason: reason, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .where('enabled', '=', true)
    .returning('id')
    .executeTakeFirst();
}

/**
 * Everything of the endpoint not delivered (pending or failed) is due at `now`, with a new 3-day
 * window from its next attempt: what re-enabling an endpoint does.
 */
export function reopenDeliveries(trx: Transaction<DB>, businessId: string, endpointId: string, now: Date) {
  return trx
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, first_attempt_at: null })
    .where('business_id', '=', businessId)
    .where('endpoint_id', '=', endpointId)
    .where('status', '<>', 'delivered')
    .execute();
}

// ---- dispatch: events to deliveries

/** Enabled endpoints whose cursor is behind their business's last event (optionally one business's). */
export function endpointsBehind(db: Executor, q: { businessId?: string }) {
  let query = db
    .selectFrom('webhook_endpoint_state as s')
    .innerJoin('webhook_endpoints as e', (j) =>
      j.onRef('e.business_id', '=', 's.business_id').onRef('e.id', '=', 's.endpoint_id'),
    )
    .innerJoin('event_counters as c', 'c.business_id', 's.business_id')
    .select(['s.business_id', 's.endpoint_id'])
    .where('e.enabled', '=', true)
    .whereRef('c.last_sequence', '>', 's.last_sequence');
  if (q.businessId) query = query.where('s.business_id', '=', q.businessId);
  return query.orderBy('s.last_sequence').execute();
}

/**
 * The endpoint's cursor and event types, its state row locked until the transaction ends; undefined
 * when another process holds it (it is dispatching that endpoint now) or the endpoint is gone.
 */
export function lockCursor(trx: Transaction<DB>, businessId: string, endpointId: string) {
  return trx
    .selectFrom('webhook_endpoint_state as s')
    .innerJoin('webhook_endpoints as e', (j) =>
      j.onRef('e.business_id', '=', 's.business_id').onRef('e.id', '=', 's.endpoint_id'),
    )
    .select(['s.last_sequence', 'e.events', 'e.enabled'])
    .where('s.business_id', '=', businessId)
    .where('s.endpoint_id', '=', endpointId)
    .forUpdate('s')
    .skipLocked()
    .executeTakeFirst();
}

export interface NewDelivery {
  endpoint_id: string;
  event_sequence: number;
  event_id: string;
  event_type: string;
  ordering_key: string;
}

export async function insertDeliveries(
  trx: Transaction<DB>,
  businessId: string,
  rows: NewDelivery[],
  now: Date,
): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('webhook_deliveries')
    .values(rows.map((r) => ({ ...r, business_id: businessId, created_at: now, next_attempt_at: now })))
    .onConflict((oc) => oc.columns(['business_id', 'endpoint_id', 'event_sequence']).doNothing())
    .execute();
}

export async function setCursor(trx: Transaction<DB>, businessId: string, endpointId: string, sequence: number) {
  await trx
    .updateTable('webhook_endpoint_state')
    .set({ last_sequence: sequence })
    .where('business_id', '=', businessId)
    .where('endpoint_id', '=', endpointId)
    .execute();
}

// ---- sending: claim, then record the outcome

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  business_id: string;
  id: string;
  endpoint_id: string;
  /** this attempt's number: the outcome is recorded only while the row still has it */
  attempt: number;
  first_attempt_at: Date;
  url: string;
  secret: string;
  event_id: string;
  event_sequence: number;
  event_type: string;
  event_created_at: Date;
  event_data: Record<string, unknown>;
  /** the deliveries of the same endpoint and key wait for this one */
  ordering_key: string;
}

/**
 * Claims up to `limit` deliveries due at `now` of enabled endpoints, skipping those another
 * process holds, and those with an earlier delivery of the same endpoint and ordering key not yet
 * delivered (one credit's events reach an endpoint in order). Each claimed row counts an attempt
 * and is leased: its next_attempt_at moves to `leaseUntil`, so once this commits no other sender
 * takes it before then, and if this sender dies it is due again after that.
 */
export async function claimDue(
  trx: Transaction<DB>,
  q: { now: Date; leaseUntil: Date; limit: number; businessId?: string },
): Promise<ClaimedDelivery[]> {
  const scope = q.businessId ? sql`AND d.business_id = ${q.businessId}` : sql``;
  const { rows } = await sql<ClaimedDelivery>`
    WITH due AS (
      SELECT d.business_id, d.id
        FROM webhook_deliveries d
        JOIN webhook_endpoints e ON e.business_id = d.business_id AND e.id = d.endpoint_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= ${q.now} AND e.enabled ${scope}
         AND NOT EXISTS (
               SELECT 1 FROM webhook_deliveries p
                WHERE p.endpoint_id = d.endpoint_id AND p.ordering_key = d.ordering_key
                  AND p.event_sequence < d.event_sequence AND p.status <> 'delivered')
       ORDER BY d.next_attempt_at, d.event_sequence
       LIMIT ${q.limit}
         FOR UPDATE OF d SKIP LOCKED)
    UPDATE webhook_deliveries d
       SET attempt = d.attempt + 1,
           next_attempt_at = ${q.leaseUntil},
           first_attempt_at = coalesce(d.first_attempt_at, ${q.now}),
           last_attempt_at = ${q.now},
           status_code = NULL,
           error = NULL
      FROM due, webhook_endpoints e, webhook_endpoint_state s, events ev
     WHERE d.business_id = due.business_id AND d.id = due.id
       AND e.business_id = d.business_id AND e.id = d.endpoint_id
       AND s.business_id = d.business_id AND s.endpoint_id = d.endpoint_id
       AND ev.business_id = d.business_id AND ev.sequence = d.event_sequence
    RETURNING d.business_id, d.id, d.endpoint_id, d.attempt, d.first_attempt_at, d.ordering_key, e.url, s.secret,
              ev.id AS event_id, ev.sequence AS event_sequence, ev.type AS event_type,
              ev.created_at AS event_created_at, ev.data AS event_data`.execute(trx);
  return rows;
}

type AttemptKey = Pick<ClaimedDelivery, 'business_id' | 'id' | 'attempt'>;

/**
 * Records an attempt's outcome, only while the delivery is still at that attempt and pending (a
 * later claim, after the lease or a retry by hand, owns it otherwise). true when recorded.
 */
export async function recordAttempt(
  trx: Transaction<DB>,
  key: AttemptKey,
  outcome: {
    status: WebhookDeliveryStatus;
    status_code: number | null;
    error: string | null;
    next_attempt_at: Date | null;
    delivered_at: Date | null;
  },
): Promise<boolean> {
  const r = await trx
    .updateTable('webhook_deliveries')
    .set(outcome)
    .where('business_id', '=', key.business_id)
    .where('id', '=', key.id)
    .where('attempt', '=', key.attempt)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

type Follower = Pick<ClaimedDelivery, 'business_id' | 'endpoint_id' | 'ordering_key' | 'event_sequence'>;

/**
 * After a failed attempt that will be retried at `until`: the later pending deliveries of the same
 * endpoint and key cannot go before this one, so they are not due before `until` either. Without
 * this, every claim would look at each of them again (a long backlog behind a failing receiver
 * would be read every second); their own retry times, when later, stay.
 */
export async function holdFollowers(trx: Transaction<DB>, d: Follower, until: Date): Promise<void> {
  await followersOf(trx, d).set({ next_attempt_at: until }).where('next_attempt_at', '<', until).execute();
}

/** The pending deliveries of the same endpoint and key after `d`, to update. */
const followersOf = (trx: Transaction<DB>, d: Follower) =>
  trx
    .updateTable('webhook_deliveries')
    .where('business_id', '=', d.business_id)
    .where('endpoint_id', '=', d.endpoint_id)
    .where('ordering_key', '=', d.ordering_key)
    .where('event_sequence', '>', d.event_sequence)
    .where('status', '=', 'pending');

/**
 * After a delivery: the later ones held behind it (pending, never attempted, due later) are due
 * `now`, so they follow at once instead of at the held time.
 */
export async function releaseFollowers(trx: Transaction<DB>, d: Follower, now: Date): Promise<void> {
  await followersOf(trx, d)
    .set({ next_attempt_at: now })
    .where('attempt', '=', 0)
    .where('next_attempt_at', '>', now)
    .execute();
}

/**
 * Deletes up to `limit` deliveries delivered before `before` (every business): what the job's sweep
 * removes. Pending and failed ones stay. Returns how many it deleted.
 */
export async function deleteDeliveredBefore(db: Executor, before: Date, limit: number): Promise<number> {
  const r = await sql`
    DELETE FROM webhook_deliveries
     WHERE (business_id, id) IN (
             SELECT business_id, id FROM webhook_deliveries
              WHERE status = 'delivered' AND delivered_at < ${before}
              LIMIT ${limit})`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/** Pending deliveries, of every business: the backlog gauge. */
export function countPending(db: Executor): Promise<number> {
  return db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

// ---- deliveries, as the API lists them

export async function listDeliveries(
  db: Executor,
  businessId: string,
  endpointId: string,
  q: { status?: WebhookDeliveryStatus; limit: number; offset: number },
): Promise<{ rows: WebhookDelivery[]; total: number }> {
  let base = db
    .selectFrom('webhook_deliveries')
    .where('business_id', '=', businessId)
    .where('endpoint_id', '=', endpointId);
  if (q.status) base = base.where('status', '=', q.status);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('event_sequence', 'desc').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Due now, with a new 3-day window from its next attempt, whatever its status (a retry by hand). */
export function retryDelivery(
  trx: Transaction<DB>,
  businessId: string,
  endpointId: string,
  id: string,
  now: Date,
): Promise<WebhookDelivery | undefined> {
  return trx
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, first_attempt_at: null, delivered_at: null })
    .where('business_id', '=', businessId)
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
