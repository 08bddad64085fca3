// Idempotency keys on every write of the API (docs/api.md, Idempotency keys): a retry with the
// same key and the same request gets the first answer again, and nothing is written twice; the
// same key with a different request is a 409. The answer is stored in the write's own
// transaction (the use case's beforeCommit, src/db/connection.ts), so a crash can never leave a
// write without its key or a key without its write. Refusals (4xx) are not stored: they changed
// nothing, a retry is judged afresh. A key is kept ttlHours (IDEMPOTENCY_TTL_HOURS): older, it
// counts as absent and may name another request; the sweep (src/jobs/idempotencySweep.ts)
// deletes it. The HTTP side (what a request is, the header, the replay): src/http/idempotency.ts.
//
// A key belongs to the caller that sent it (an API key, or a user, with the operator acting as
// them if any: IdempotencyScope), not to the whole business: another admin or key sending the same
// key and body gets a write of its own, never the first caller's answer.
//
// The key itself is never stored: a row holds its SHA-256, and the answer sealed with AES-256-GCM
// under a key derived from the Idempotency-Key (HKDF, salted with the business id and the caller). So a retry can
// be answered on every POST, those whose answer carries a secret shown once included (a new API
// key, a set-password link, an upload link's token), and the table gives none of those secrets to
// whoever reads it without the Idempotency-Key. A guessable key (erp-pay-1) is only as strong as
// it is hard to guess: docs/api.md asks for a random one where the answer holds a secret.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import {
  deleteExpiredIdempotencyKeys,
  findIdempotencyKey,
  saveIdempotencyKey,
} from '../db/repositories/idempotencyKeys.ts';
import { conflict } from '../domain/errors.ts';

/** The answer a write gives: what a retry with the same key gets back. */
export interface Answer {
  status: number;
  /** the body as sent: the JSON text the route's response schema wrote */
  body: string;
}

/** Key order of JSON objects does not make two requests different. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** What is stored of a request to tell it from another under the same key. */
export function requestHash(request: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(request)))
    .digest('hex');
}

/** What a row is found by: the key's SHA-256 (hex). */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whose keys: the business, and the caller within it (api_key:<id>, user:<id>[|operator email]). */
export interface IdempotencyScope {
  businessId: string;
  caller: string;
}

/** The AES-256 key an answer is sealed with: derived from the Idempotency-Key, per business and caller. */
function sealingKey(scope: IdempotencyScope, key: string): Buffer {
  return Buffer.from(
    hkdfSync('sha256', key, `${scope.businessId}\n${scope.caller}`, 'lending idempotency answer v2', 32),
  );
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The answer's body (its JSON text) encrypted and authenticated: iv, tag, ciphertext. */
export function seal(scope: IdempotencyScope, key: string, body: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(scope, key), iv);
  const text = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), text]);
}

/** The JSON text seal() sealed; throws when the bytes were not sealed under this key, business and caller. */
export function unseal(scope: IdempotencyScope, key: string, sealed: Uint8Array): string {
  const bytes = Buffer.from(sealed);
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(scope, key), bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  return text.toString('utf8');
}

/**
 * The answer stored under a live key, undefined when there is none; a key stored for another
 * request is a 409.
 */
export async function storedAnswer(
  db: Kysely<DB>,
  scope: IdempotencyScope,
  key: string,
  hash: string,
  ttlHours: number,
): Promise<Answer | undefined> {
  const stored = await findIdempotencyKey(db, scope.businessId, scope.caller, keyDigest(key), ttlHours);
  if (!stored) return undefined;
  if (stored.request_hash !== hash) throw conflict('this Idempotency-Key was already used for a different request');
  // a row stored before migration 018 holds its answer in the clear
  const body = stored.sealed ? unseal(scope, key, stored.sealed) : JSON.stringify(stored.response);
  return { status: stored.status_code, body };
}

/** Thrown inside the write's transaction when its key is alive already: the write rolls back. */
export class KeyTaken extends Error {
  constructor() {
    super('the Idempotency-Key was stored by another request first');
  }
}

/**
 * Stores the answer of a write in the write's transaction; throws KeyTaken (which rolls the
 * write back) when another request holds the key: its answer is then the one to give.
 */
export async function storeAnswer(
  trx: Transaction<DB>,
  scope: IdempotencyScope,
  key: string,
  hash: string,
  answer: Answer,
  ttlHours: number,
): Promise<void> {
  const saved = await saveIdempotencyKey(
    trx,
    scope.businessId,
    scope.caller,
    {
      keyDigest: keyDigest(key),
      requestHash: hash,
      statusCode: answer.status,
      sealed: seal(scope, key, answer.body),
    },
    ttlHours,
  );
  if (!saved) throw new KeyTaken();
}

/** Keys a sweep deletes in one statement (a short one: other writers wait on none of them). */
export const SWEEP_BATCH = 1000;

/**
 * Deletes the expired keys of every business, a batch a statement; answers how many. Safe in
 * several processes at once: each skips the rows another is deleting.
 */
export async function sweepIdempotencyKeys(
  db: Kysely<DB>,
  ttlHours: number,
  batch: number = SWEEP_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteExpiredIdempotencyKeys(db, ttlHours, batch);
    total += n;
    if (n < batch) return total;
  }
}
