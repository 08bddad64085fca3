// API keys: created for a business (the secret is returned once, only its hash is stored), listed
// without secrets, revoked at once; and the authentication of a presented key, from a cache of
// the keys this process has checked that every process empties of a key the moment its change
// commits (KeyCache below).
import {
  API_KEYS_CHANNEL,
  createApiKey,
  findActiveKey,
  hashKey,
  listApiKeys,
  revokeApiKey,
  touchApiKey,
  type ApiKeyInfo,
  type KeyLookup,
  type Scope,
} from '../db/repositories/apiKeys.ts';
import { AppError } from '../domain/errors.ts';
import { withActor, type Writer } from '../db/connection.ts';
import type { Database } from './context.ts';
import { getBusiness } from './businesses.ts';

export type { ApiKeyInfo, KeyLookup, Scope };

/** Longer than any key this service issues: refused without a lookup. */
const MAX_KEY_LENGTH = 200;

/** Who creates or revokes a key, for the audit log (migration 015 logs api_keys): the command line unless said. */
const CLI: Writer = { actor: 'cli' };

export async function createKey(
  db: Database,
  input: { businessId: string; scope: Scope; name?: string | null },
  by: Writer = CLI,
) {
  await getBusiness(db, input.businessId);
  return withActor(db.kysely, by, (trx) => createApiKey(trx, input));
}

export async function listKeys(db: Database, businessId: string): Promise<ApiKeyInfo[]> {
  await getBusiness(db, businessId);
  return listApiKeys(db.kysely, businessId);
}

/**
 * Refused from the next request on, by every process; revoking twice keeps the first time. Returns
 * once the database's announcement of it has come back to this process: it was handed to every
 * listening process at the same moment (a process that listens drops the key when it reads it).
 * With `by.businessId` (an admin over HTTP), only a key of that business: another's is 404.
 */
export async function revokeKey(
  db: Database,
  id: string,
  by: Writer & { businessId?: string } = CLI,
): Promise<ApiKeyInfo> {
  let heard: () => void = () => {};
  const back = new Promise<void>((resolve) => {
    heard = resolve;
  });
  const echo = await db.listen(API_KEYS_CHANNEL, {
    message: (payload) => {
      if (payload === `key:${id}`) heard();
    },
    live: () => {},
  });
  try {
    const { key, now } = await withActor(db.kysely, by, (trx) => revokeApiKey(trx, id, by.businessId));
    if (!key) throw new AppError('not_found', `no key ${id}`);
    if (now) {
      for (const cache of started.get(db) ?? []) cache.forget(`key:${id}`);
      // bounded: a lost listening connection must not hold the command up
      await Promise.race([back, new Promise((r) => setTimeout(r, ANNOUNCE_WAIT_MS).unref())]);
    }
    return key;
  } finally {
    await echo.close();
  }
}

const ANNOUNCE_WAIT_MS = 2_000;

/** The caches started on each database handle in this process (the server's, a test's). */
const started = new WeakMap<Database, Set<KeyCache>>();

/**
 * The keys this process has found active, by hash, so a request costs no query. Safe only while
 * the database's announcements of key changes reach it (migration 007; Database.listen): a
 * revoked, changed or deleted key is forgotten when its transaction commits. While the listening
 * connection is down (announcements could be missed) the cache is empty and unused: every request
 * looks its key up, as without a cache, until listening is back.
 *
 * A lookup that was under way when an announcement arrived may have read the key before the
 * change: the generation counter keeps its answer out of the cache.
 */
export class KeyCache {
  private readonly keys = new Map<string, { lookup: KeyLookup; usedAt: number }>();
  private generation = 0;
  private live = false;
  private listener: { close(): Promise<void> } | null = null;
  private db: Database | null = null;

  /** entries at most (a bound against many keys used once): the oldest go first */
  private readonly max: number;
  constructor(max = 10_000) {
    this.max = max;
  }

  /** Follows the database's announcements (see KeyCache). Call close() when the process stops. */
  static async start(db: Database): Promise<KeyCache> {
    const cache = new KeyCache();
    cache.listener = await db.listen(API_KEYS_CHANNEL, {
      message: (payload) => cache.forget(payload),
      live: (up) => cache.setLive(up),
    });
    cache.db = db;
    if (!started.has(db)) started.set(db, new Set());
    started.get(db)!.add(cache);
    return cache;
  }

  async close(): Promise<void> {
    this.setLive(false);
    if (this.db) started.get(this.db)?.delete(this);
    await this.listener?.close();
    this.listener = null;
  }

  /** Whether cached answers are used now (the announcements are being received). */
  get isLive(): boolean {
    return this.live;
  }

  get size(): number {
    return this.keys.size;
  }

  private setLive(up: boolean) {
    this.live = up;
    this.forget('');
  }

  /** key:<id>, business:<id>, or anything else: everything. */
  forget(what: string) {
    this.generation++;
    const [kind, id] = what.split(':');
    if ((kind === 'key' || kind === 'business') && id) {
      for (const [hash, e] of this.keys) {
        if ((kind === 'key' ? e.lookup.keyId : e.lookup.businessId) === id) this.keys.delete(hash);
      }
    } else {
      this.keys.clear();
    }
  }

  get(hash: string) {
    return this.live ? this.keys.get(hash) : undefined;
  }

  /** The generation a lookup starts at: put() refuses its answer if anything was forgotten since. */
  get stamp(): number {
    return this.generation;
  }

  put(hash: string, lookup: KeyLookup, usedAt: number, stamp: number) {
    if (!this.live || stamp !== this.generation) return;
    if (this.keys.size >= this.max) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(hash, { lookup, usedAt });
  }
}

/** last_used_at is written when it is older than this */
const TOUCH_MS = 60_000;

/**
 * The active key presented with a request, with its business; an unknown or revoked key is 401.
 * With a cache, a key already checked costs no query (and one write a minute for last_used_at).
 */
export async function authenticate(db: Database, presentedKey: string, cache?: KeyCache | null): Promise<KeyLookup> {
  if (presentedKey.length > MAX_KEY_LENGTH) throw new AppError('unauthorized', 'the API key is not valid');
  const hash = hashKey(presentedKey);
  const now = Date.now();
  let hit = cache?.get(hash);
  if (hit) {
    // Let the event loop read what has arrived first: a revocation committed before this request
    // came in has normally reached the listening connection already, but it is only applied when
    // its bytes are read (one turn of the loop).
    await new Promise<void>((resolve) => setImmediate(resolve));
    hit = cache?.get(hash);
  }
  if (hit) {
    if (now - hit.usedAt > TOUCH_MS) {
      hit.usedAt = now; // before the write: requests meanwhile do not write it again
      await touchApiKey(db.kysely, hit.lookup.businessId, hit.lookup.keyId);
    }
    return hit.lookup;
  }
  const stamp = cache?.stamp ?? 0;
  const found = await findActiveKey(db.kysely, hash);
  if (!found) throw new AppError('unauthorized', 'the API key is not valid or has been revoked');
  const { lastUsedAt, ...lookup } = found;
  let usedAt = lastUsedAt?.getTime() ?? 0;
  if (now - usedAt > TOUCH_MS) {
    await touchApiKey(db.kysely, lookup.businessId, lookup.keyId);
    usedAt = now;
  }
  cache?.put(hash, lookup, usedAt, stamp);
  return lookup;
}
