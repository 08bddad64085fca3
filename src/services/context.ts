// What every use case receives from its caller (an HTTP request, a CLI command, a job): the
// database handle, and who acts for which business, when. The HTTP layer knows the handle only
// through this module, never src/db.
import { todayIn, type Clock } from '../domain/index.ts';
import type { Kysely } from 'kysely';
import type { BeforeCommit, Database } from '../db/connection.ts';
import type { DB } from '../db/schema.ts';
import { isLsn } from '../db/replica.ts';

export type { Database } from '../db/connection.ts';
export type { Clock } from '../domain/index.ts';

/** Who acts, for which business, in which time zone, and when (its "today"). */
export interface ActorContext {
  businessId: string;
  /** the audit actor: api_key:<id>, user:<id>, cli, upload_link:<id>, system:<job> */
  actor: string;
  /** the operator's email while an operator acts as this user (impersonation), else null */
  impersonatedBy: string | null;
  /** IANA time zone of the business */
  timezone: string;
  /** the instant the request or command happens (read once from the caller's clock) */
  now: Date;
  /** the business's calendar date at `now`: what is overdue, the default dates */
  today: string;
  /**
   * The branch of the signed-in user acting, if they have one: a credit they grant or a payment
   * they take without a branch_id is recorded at it (docs/users.md). Keys and the CLI have none.
   */
  branchId?: string | null;
  /**
   * Added by the caller to the transaction of the use case's write (src/db/connection.ts,
   * withActor): the HTTP layer stores an Idempotency-Key's answer with it. A use case that writes
   * passes its whole context to withActor, in one transaction, and returns that transaction's
   * result as it is: the hook sees exactly what the caller will answer from.
   */
  beforeCommit?: BeforeCommit;
  /**
   * The consistency token the caller sent (a write's answer carried it, maybe from another
   * process): its reads off a replica wait for that write (docs/deployment.md#read-replicas).
   */
  readAfter?: string | null;
}

/** The one place a caller's clock becomes a business's now and today. */
export function actorContext(
  business: { businessId: string; timezone: string },
  actor: string,
  clock: Clock,
  impersonatedBy: string | null = null,
): ActorContext {
  const now = clock();
  return {
    businessId: business.businessId,
    actor,
    impersonatedBy,
    timezone: business.timezone,
    now,
    today: todayIn(business.timezone, now),
  };
}

/**
 * The read handle of a caller's lists, reports, exports, audit list and feed: the replica of
 * DATABASE_READ_URL when it is within READ_MAX_LAG_MS and has replayed this caller's last write,
 * else the primary (docs/deployment.md#read-replicas); ctx null (the command line): no write to wait for. Everything else reads `db.kysely`, the
 * primary: a read that leads to a write, a hot read, a check before a change.
 */
export function readsOf(db: Database, ctx: Pick<ActorContext, 'actor' | 'readAfter'> | null): Promise<Kysely<DB>> {
  return db.reads(ctx?.actor ?? null, ctx?.readAfter ?? null);
}

/** Whether a text is a consistency token: a WAL position as PostgreSQL writes it ('16/B374D848'). */
export function isConsistencyToken(text: string): boolean {
  return isLsn(text);
}

/**
 * Called once a caller's write has committed (the HTTP layer does it for every write request
 * before its answer leaves): its next reads through readsOf see it. Returns the write's
 * consistency token with a replica (the answer carries it), else null.
 */
export function noteWrite(db: Database, ctx: Pick<ActorContext, 'actor'>): Promise<string | null> {
  return db.wrote(ctx.actor);
}

/** A response document already serialized as JSON (built by the database): sent as it is. */
export type JsonText = string & { readonly __json: unique symbol };
