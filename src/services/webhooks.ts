// Webhooks (docs/webhooks.md): the endpoints a business manages,
// and the delivery of its events to them, at least once and in order per credit, by any number of
// processes at once.
//
// Delivery is two steps, each safe in several processes (src/db/repositories/webhooks.ts):
// - dispatch(): for each enabled endpoint behind its business's events, lock its cursor (SKIP
//   LOCKED), read the events after it, insert a delivery per event it subscribes to and move the
//   cursor, in one transaction;
// - deliverDue(): claim due deliveries (SKIP LOCKED; an earlier delivery of the same endpoint and
//   ordering key not yet delivered holds a later one back), commit a lease, POST each outside any
//   transaction, then record the outcome: delivered, a retry after a backoff, or after 3 days failed
//   with the endpoint disabled. A sender that dies mid-call leaves its lease to run out: the
//   delivery is claimed again.
// The job (src/jobs/webhooks.ts) runs both every second; tests call them with their own `now`.
import { createHmac, randomBytes } from 'node:crypto';
import { withActor } from '../db/connection.ts';
import type {
  WebhookDelivery as DeliveryRow,
  WebhookDeliveryStatus,
  WebhookEndpoint as EndpointRow,
} from '../db/schema.ts';
import {
  type ClaimedDelivery,
  claimDue,
  countEndpoints,
  countPending,
  deleteDeliveredBefore,
  deleteEndpoint,
  disableEndpoint,
  holdFollowers,
  releaseFollowers,
  endpointsBehind,
  getEndpoint,
  insertDeliveries,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  lockCursor,
  lockEndpoint,
  recordAttempt,
  reopenDeliveries,
  retryDelivery,
  setCursor,
  updateEndpoint,
} from '../db/repositories/webhooks.ts';
import { eventsAfter, lastSequence, sequenceEvents } from '../db/repositories/events.ts';
import { AppError, invalid, notFound, unprocessable } from '../domain/errors.ts';
import { WebhookDelivery, WebhookEndpoint } from '../domain/records.ts';
import { cleanText } from '../domain/text.ts';
import { nextAttemptAfterFailure, normalizeEventTypes, subscribes, ALL_EVENTS } from '../domain/webhooks.ts';
import type { Config } from '../config.ts';
import type { Metrics } from '../metrics.ts';
import type { ActorContext, Clock, Database } from './context.ts';
import { EVENT_TYPES, numberPendingEvents, presentEvent } from './events.ts';
import { recordBuilder } from './present.ts';
import {
  checkTargetUrl,
  postToTarget,
  REFUSED_TARGET,
  TargetRefused,
  type Resolver,
  type TargetRules,
} from './webhookTargets.ts';

/** The audit actor of what the delivery job changes (an endpoint it disables). */
export const WEBHOOK_ACTOR = 'system:webhooks';
/** Endpoints a business may have. */
export const MAX_ENDPOINTS = 20;
export const USER_AGENT = 'lending-webhooks/1';

const endpointRecord = recordBuilder(WebhookEndpoint);
const deliveryRecord = recordBuilder(WebhookDelivery);
export const presentEndpoint = (row: EndpointRow) => endpointRecord(row);
export const presentDelivery = (row: DeliveryRow) => deliveryRecord(row, { sequence: Number(row.event_sequence) });

/** A secret a receiver checks signatures with: whsec_ and 32 random bytes. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/** `Lending-Signature`'s v1: hex HMAC-SHA256 of "<t>.<body>" keyed with the whole secret (whsec_ included). */
export function signature(secret: string, t: number, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
}

const KNOWN_TYPES = new Set<string>([...EVENT_TYPES, ALL_EVENTS]);

function checkEvents(types: readonly string[]): string[] {
  if (types.length === 0) throw invalid('/events', `name at least one event type, or "*" for all`);
  types.forEach((t, i) => {
    if (!KNOWN_TYPES.has(t))
      throw invalid(`/events/${i}`, `unknown event type ${t}: one of ${EVENT_TYPES.join(', ')}, or "*"`);
  });
  return normalizeEventTypes(types);
}

const urlRules = (config: Pick<Config, 'webhookAllowPrivate'>, resolve?: Resolver): TargetRules => ({
  allowPrivate: config.webhookAllowPrivate,
  ...(resolve ? { resolve } : {}),
});

/**
 * The URL as stored, or the refusal: 400 for the URL itself, 422 for where it leads. Where it
 * leads is answered in one sentence, the same for a name that resolves to an internal address,
 * one that does not resolve and an internal literal: otherwise the answer would map the network
 * the server sees. The detail goes to the server's log.
 */
async function checkUrl(raw: string, rules: TargetRules): Promise<string> {
  try {
    return await checkTargetUrl(raw.trim(), rules);
  } catch (err) {
    if (!(err instanceof TargetRefused)) throw err;
    if (err.kind === 'url') throw invalid('/url', err.message);
    throw new AppError(
      'unprocessable',
      `url: ${REFUSED_TARGET}`,
      [{ path: '/url', message: REFUSED_TARGET }],
      undefined,
      `webhook url refused: ${err.message}`,
    );
  }
}

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | null;
}
export interface EndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

/** Trimmed; blank is none. */
const describe = (d: string | null | undefined): string | null => cleanText({ d: d ?? null }).d;

/**
 * Creates an endpoint that receives the business's events from now on. The secret is in this
 * answer only (and in an Idempotency-Key's replay of it).
 */
export async function createEndpoint(
  db: Database,
  ctx: ActorContext,
  input: EndpointInput,
  config: Pick<Config, 'webhookAllowPrivate'>,
  resolve?: Resolver,
) {
  const events = checkEvents(input.events);
  const url = await checkUrl(input.url, urlRules(config, resolve));
  const description = describe(input.description);
  const secret = newSecret();
  return withActor(db.kysely, ctx, async (trx) => {
    if ((await countEndpoints(trx, ctx.businessId)) >= MAX_ENDPOINTS)
      throw unprocessable(`a business has at most ${MAX_ENDPOINTS} webhook endpoints: delete one first`);
    // only later events: the cursor starts at the business's last one, once what committed
    // before has its number (the pass's lock, held to the commit, lets no other pass number more)
    await sequenceEvents(trx, ctx.businessId);
    const from = await lastSequence(trx, ctx.businessId);
    const row = await insertEndpoint(trx, ctx.businessId, { url, events, description }, { secret, lastSequence: from });
    return { endpoint: presentEndpoint(row), secret };
  });
}

export async function listWebhookEndpoints(db: Database, ctx: ActorContext) {
  return (await listEndpoints(db.kysely, ctx.businessId)).map(presentEndpoint);
}

export async function getWebhookEndpoint(db: Database, ctx: ActorContext, id: string) {
  const row = await getEndpoint(db.kysely, ctx.businessId, id);
  if (!row) throw notFound('webhook endpoint');
  return presentEndpoint(row);
}

/**
 * Changes url, events, description or enabled. Enabling a disabled endpoint clears disabled_at and
 * disabled_reason and makes everything it has not delivered due now, with a new 3-day window; the
 * events of the time it was disabled follow, in order.
 */
export async function editEndpoint(
  db: Database,
  ctx: ActorContext,
  id: string,
  patch: EndpointPatch,
  config: Pick<Config, 'webhookAllowPrivate'>,
  resolve?: Resolver,
) {
  const events = patch.events === undefined ? undefined : checkEvents(patch.events);
  const url = patch.url === undefined ? undefined : await checkUrl(patch.url, urlRules(config, resolve));
  return withActor(db.kysely, ctx, async (trx) => {
    const current = await lockEndpoint(trx, ctx.businessId, id);
    if (!current) throw notFound('webhook endpoint');
    const set: Parameters<typeof updateEndpoint>[3] = {};
    if (url !== undefined && url !== current.url) set.url = url;
    if (events !== undefined && events.join('\n') !== current.events.join('\n')) set.events = events;
    if (patch.description !== undefined) {
      const d = describe(patch.description);
      if (d !== current.description) set.description = d;
    }
    if (patch.enabled === true && !current.enabled) {
      Object.assign(set, { enabled: true, disabled_at: null, disabled_reason: null });
      await reopenDeliveries(trx, ctx.businessId, id, ctx.now);
    } else if (patch.enabled === false && current.enabled) {
      Object.assign(set, { enabled: false, disabled_at: ctx.now, disabled_reason: `disabled by ${ctx.actor}` });
    }
    if (Object.keys(set).length === 0) return presentEndpoint(current);
    return presentEndpoint((await updateEndpoint(trx, ctx.businessId, id, set))!);
  });
}

/** Deletes the endpoint with its deliveries; answers it as it was. */
export async function removeEndpoint(db: Database, ctx: ActorContext, id: string) {
  const row = await withActor(db.kysely, ctx, (trx) => deleteEndpoint(trx, ctx.businessId, id));
  if (!row) throw notFound('webhook endpoint');
  return presentEndpoint(row);
}

/** An endpoint's deliveries, newest event first. */
export async function listEndpointDeliveries(
  db: Database,
  ctx: ActorContext,
  endpointId: string,
  q: { status?: WebhookDeliveryStatus; limit: number; offset: number },
) {
  if (!(await getEndpoint(db.kysely, ctx.businessId, endpointId))) throw notFound('webhook endpoint');
  const { rows, total } = await listDeliveries(db.kysely, ctx.businessId, endpointId, q);
  return { items: rows.map(presentDelivery), total, limit: q.limit, offset: q.offset };
}

/**
 * Makes a delivery due now, whatever its status (a delivered one is sent again), with a new 3-day
 * window. On a disabled endpoint it is queued all the same: it goes when the endpoint is enabled.
 */
export async function retryEndpointDelivery(db: Database, ctx: ActorContext, endpointId: string, deliveryId: string) {
  return withActor(db.kysely, ctx, async (trx) => {
    const endpoint = await lockEndpoint(trx, ctx.businessId, endpointId);
    if (!endpoint) throw notFound('webhook endpoint');
    const row = await retryDelivery(trx, ctx.businessId, endpointId, deliveryId, ctx.now);
    if (!row) throw notFound('delivery');
    return presentDelivery(row);
  });
}

// ---- delivery

export interface WebhookLog {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What dispatch() and deliverDue() work with: the job's, or a test's. */
export interface WebhookDeps {
  db: Database;
  config: Pick<Config, 'webhookAllowPrivate' | 'webhookTimeoutMs'>;
  /** where now comes from when the call does not give one */
  clock?: Clock;
  log?: WebhookLog;
  metrics?: Pick<Metrics, 'webhookAttempt'> | null;
  /** the host resolver (default: the system's) */
  resolve?: Resolver;
  /** the jitter's draw in [0, 1) (default Math.random) */
  random?: () => number;
}

export interface Scope {
  /** `now` for the whole call (tests); otherwise the clock is read as the call goes */
  now?: Date;
  /** one business only (tests share a database) */
  businessId?: string;
}

/** Events read per dispatch transaction. */
const DISPATCH_PAGE = 500;

/**
 * Turns the events each enabled endpoint has not seen into its deliveries. Safe in several
 * processes at once: an endpoint being dispatched by another is skipped. Returns the deliveries
 * created.
 */
export async function dispatch(deps: WebhookDeps, scope: Scope = {}): Promise<number> {
  const now = () => scope.now ?? deps.clock?.() ?? new Date();
  let created = 0;
  // committed events get their numbers first (a business another process is numbering is left to it)
  await numberPendingEvents(deps.db.kysely, { businessId: scope.businessId });
  for (const ep of await endpointsBehind(deps.db.kysely, scope)) {
    for (;;) {
      const page = await deps.db.kysely.transaction().execute(async (trx) => {
        const cursor = await lockCursor(trx, ep.business_id, ep.endpoint_id);
        if (!cursor?.enabled) return null;
        const events = await eventsAfter(trx, ep.business_id, {
          after: Number(cursor.last_sequence),
          limit: DISPATCH_PAGE,
        });
        if (events.length === 0) return null;
        const rows = events
          .filter((e) => subscribes(cursor.events, e.type))
          .map((e) => ({
            endpoint_id: ep.endpoint_id,
            event_sequence: Number(e.sequence),
            event_id: e.id,
            event_type: e.type,
            ordering_key: e.ordering_key,
          }));
        await insertDeliveries(trx, ep.business_id, rows, now());
        await setCursor(trx, ep.business_id, ep.endpoint_id, Number(events[events.length - 1]!.sequence));
        return { created: rows.length, more: events.length === DISPATCH_PAGE };
      });
      if (!page) break;
      created += page.created;
      if (!page.more) break;
    }
  }
  return created;
}

/** Attempts in flight at once, per deliverDue call. */
const CONCURRENCY = 16;
/** the least lease of an attempt: the receiver's timeout plus this margin, at least 30 s */
const LEASE_MARGIN_MS = 20_000;
const MIN_LEASE_MS = 30_000;

export const leaseMs = (timeoutMs: number) => Math.max(MIN_LEASE_MS, timeoutMs + LEASE_MARGIN_MS);

export interface DeliveryPass {
  /** attempts made (HTTP calls) */
  attempted: number;
  delivered: number;
  /** failed attempts to be retried */
  retrying: number;
  /** deliveries that failed for good, their endpoints disabled */
  failed: number;
}

/**
 * Sends every delivery due (at `scope.now`, or the clock's now), CONCURRENCY at a time, until none
 * is due: a delivery held back behind an earlier one of its credit goes once that one is delivered,
 * in the same call. Safe in several processes at once. `stop` ends the call early (the job's
 * shutdown); attempts under way finish.
 */
export async function deliverDue(
  deps: WebhookDeps,
  scope: Scope & { stop?: () => boolean } = {},
): Promise<DeliveryPass> {
  const now = () => scope.now ?? deps.clock?.() ?? new Date();
  const lease = leaseMs(deps.config.webhookTimeoutMs);
  const pass: DeliveryPass = { attempted: 0, delivered: 0, retrying: 0, failed: 0 };
  const inFlight = new Set<Promise<void>>();
  /** attempts ended so far: one that ends while a claim runs may have released a later delivery */
  let ended = 0;
  for (;;) {
    const endedBefore = ended;
    let claimed: ClaimedDelivery[] = [];
    const free = CONCURRENCY - inFlight.size;
    if (free > 0 && !scope.stop?.()) {
      const at = now();
      claimed = await deps.db.kysely.transaction().execute((trx) =>
        claimDue(trx, {
          now: at,
          leaseUntil: new Date(at.getTime() + lease),
          limit: free,
          businessId: scope.businessId,
        }),
      );
    }
    for (const d of claimed) {
      const p: Promise<void> = attempt(deps, d, now, pass)
        .catch((err: unknown) => deps.log?.error({ err, delivery_id: d.id }, 'webhook attempt could not be recorded'))
        .finally(() => {
          inFlight.delete(p);
          ended++;
        });
      inFlight.add(p);
    }
    if (inFlight.size === 0) {
      if (claimed.length === 0 && ended === endedBefore) break;
      continue;
    }
    // all slots taken, or nothing more due for now: wait for an attempt to end (its outcome may
    // release the next delivery of its credit)
    if (claimed.length === 0 || inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
  }
  return pass;
}

/** The event as GET /api/events answers it: the body of every delivery of it. */
function eventBody(d: ClaimedDelivery): string {
  return JSON.stringify(
    presentEvent({
      id: d.event_id,
      sequence: d.event_sequence,
      type: d.event_type,
      created_at: d.event_created_at,
      data: d.event_data,
      ordering_key: '',
    }),
  );
}

/** One attempt: POST the signed event, then record what happened (only if this attempt still owns the delivery). */
async function attempt(deps: WebhookDeps, d: ClaimedDelivery, now: () => Date, pass: DeliveryPass): Promise<void> {
  const body = eventBody(d);
  const t = Math.floor(now().getTime() / 1000);
  const result = await postToTarget(
    d.url,
    body,
    {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'lending-event-id': d.event_id,
      'lending-event-type': d.event_type,
      'lending-signature': `t=${t},v1=${signature(d.secret, t, body)}`,
    },
    { allowPrivate: deps.config.webhookAllowPrivate, timeoutMs: deps.config.webhookTimeoutMs, resolve: deps.resolve },
  );
  const at = now();
  pass.attempted++;
  const db = deps.db.kysely;
  if (result.error === null) {
    await withActor(db, { actor: WEBHOOK_ACTOR }, async (trx) => {
      const recorded = await recordAttempt(trx, d, {
        status: 'delivered',
        status_code: result.status,
        error: null,
        next_attempt_at: null,
        delivered_at: at,
      });
      if (recorded) await releaseFollowers(trx, d, at);
    });
    pass.delivered++;
    deps.metrics?.webhookAttempt('delivered', result.ms);
    return;
  }
  const next = nextAttemptAfterFailure(d.first_attempt_at, at, d.attempt, (deps.random ?? Math.random)());
  const failure = { status_code: result.status, error: result.error, delivered_at: null };
  if (next) {
    await withActor(db, { actor: WEBHOOK_ACTOR }, async (trx) => {
      if (await recordAttempt(trx, d, { ...failure, status: 'pending', next_attempt_at: next }))
        await holdFollowers(trx, d, next);
    });
    pass.retrying++;
    deps.metrics?.webhookAttempt('failed_attempt', result.ms);
    deps.log?.debug(
      {
        endpoint_id: d.endpoint_id,
        delivery_id: d.id,
        attempt: d.attempt,
        error: result.error,
        ...(result.detail ? { detail: result.detail } : {}),
        next_attempt_at: next,
      },
      'webhook attempt failed',
    );
    return;
  }
  // 3 days of failures: the delivery fails and the endpoint is disabled (the job's actor is audited)
  const reason = `delivery ${d.id} of event ${d.event_sequence} (${d.event_type}) failed for 3 days, ${d.attempt} attempts; the last: ${result.error}`;
  const disabled = await withActor(db, { actor: WEBHOOK_ACTOR }, async (trx) => {
    if (!(await recordAttempt(trx, d, { ...failure, status: 'failed', next_attempt_at: null }))) return false;
    return (await disableEndpoint(trx, d.business_id, d.endpoint_id, at, reason.slice(0, 500))) !== undefined;
  });
  pass.failed++;
  deps.metrics?.webhookAttempt('disabled', result.ms);
  if (disabled)
    deps.log?.warn(
      { endpoint_id: d.endpoint_id, delivery_id: d.id },
      'webhook endpoint disabled: a delivery failed for 3 days',
    );
}

/** How long a delivered delivery stays listed before the job's sweep deletes it. */
export const DELIVERED_KEPT_DAYS = 30;
const SWEEP_BATCH = 5_000;

/**
 * Deletes the deliveries delivered more than DELIVERED_KEPT_DAYS before `now`, every business, in
 * batches; pending and failed ones are kept. Returns how many it deleted.
 */
export async function sweepDeliveries(db: Database, now: Date): Promise<number> {
  const before = new Date(now.getTime() - DELIVERED_KEPT_DAYS * 24 * 60 * 60 * 1000);
  let deleted = 0;
  for (;;) {
    const n = await deleteDeliveredBefore(db.kysely, before, SWEEP_BATCH);
    deleted += n;
    if (n < SWEEP_BATCH) return deleted;
  }
}

/** Pending deliveries of every business (the backlog gauge). */
export const pendingDeliveries = (db: Database) => countPending(db.kysely);
