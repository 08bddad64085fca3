// Sign-in attempts per subject (a hashed account, client address, or pair of both) in a fixed
// window (migrations 015 and 020; src/services/sessions.ts says how each is used).
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';

/**
 * Counts one attempt for the subject and answers the count in the current window and when the
 * window started. A window older than `windowMs` starts again at 1. One statement: concurrent
 * attempts each get their own count.
 */
export async function countAttempt(
  db: Executor,
  subjectHash: string,
  now: Date,
  windowMs: number,
): Promise<{ failures: number; windowStartedAt: Date }> {
  const windowStart = new Date(now.getTime() - windowMs);
  const r = await db
    .insertInto('login_failures')
    .values({ subject_hash: subjectHash, failures: 1, window_started_at: now, last_attempt_at: now })
    .onConflict((oc) =>
      oc.column('subject_hash').doUpdateSet({
        failures: sql`CASE WHEN login_failures.window_started_at <= ${windowStart} THEN 1 ELSE login_failures.failures + 1 END`,
        window_started_at: sql`CASE WHEN login_failures.window_started_at <= ${windowStart} THEN ${now}::timestamptz ELSE login_failures.window_started_at END`,
        last_attempt_at: now,
      }),
    )
    .returning(['failures', 'window_started_at'])
    .executeTakeFirstOrThrow();
  return { failures: r.failures, windowStartedAt: new Date(r.window_started_at) };
}

/** The subject's failures in the current window (0 when it has none or its window has ended). */
export async function failuresOf(db: Executor, subjectHash: string, now: Date, windowMs: number): Promise<number> {
  const r = await db
    .selectFrom('login_failures')
    .select('failures')
    .where('subject_hash', '=', subjectHash)
    .where('window_started_at', '>', new Date(now.getTime() - windowMs))
    .executeTakeFirst();
  return r?.failures ?? 0;
}

/**
 * Counts an attempt for the subject unless its previous attempt, in the current window and not
 * taken back, is younger than `delayMs`: then nothing is written and the answer is when the next
 * attempt may come. One statement, so attempts sent at once are let through one at a time.
 */
export async function gateAttempt(
  db: Executor,
  subjectHash: string,
  now: Date,
  windowMs: number,
  delayMs: number,
): Promise<{ allowed: true } | { allowed: false; retryAt: Date }> {
  const windowStart = new Date(now.getTime() - windowMs);
  const since = new Date(now.getTime() - delayMs);
  const r = await sql<{ failures: number }>`
    INSERT INTO login_failures AS f (subject_hash, failures, window_started_at, last_attempt_at)
    VALUES (${subjectHash}, 1, ${now}, ${now})
    ON CONFLICT (subject_hash) DO UPDATE SET
      failures = CASE WHEN f.window_started_at <= ${windowStart} THEN 1 ELSE f.failures + 1 END,
      window_started_at = CASE WHEN f.window_started_at <= ${windowStart} THEN ${now}::timestamptz ELSE f.window_started_at END,
      last_attempt_at = ${now}
    WHERE ${delayMs <= 0 ? sql`true` : sql`f.window_started_at <= ${windowStart} OR f.failures = 0 OR f.last_attempt_at <= ${since}`}
    RETURNING failures`.execute(db);
  if (r.rows.length > 0) return { allowed: true };
  const last = await db
    .selectFrom('login_failures')
    .select('last_attempt_at')
    .where('subject_hash', '=', subjectHash)
    .executeTakeFirst();
  const from = last ? new Date(last.last_attempt_at).getTime() : now.getTime();
  return { allowed: false, retryAt: new Date(from + delayMs) };
}

/** Takes back one attempt (it succeeded). */
export async function uncountAttempt(db: Executor, subjectHash: string): Promise<void> {
  await db
    .updateTable('login_failures')
    .set({ failures: sql`greatest(failures - 1, 0)` })
    .where('subject_hash', '=', subjectHash)
    .execute();
}

/** Forgets the subjects' attempts (their account signed in). */
export async function clearAttempts(db: Executor, subjectHashes: string[]): Promise<void> {
  if (subjectHashes.length === 0) return;
  await db.deleteFrom('login_failures').where('subject_hash', 'in', subjectHashes).execute();
}

/** Windows that ended before `before`; returns how many were deleted. */
export async function deleteOldAttempts(db: Executor, before: Date): Promise<number> {
  const r = await db.deleteFrom('login_failures').where('window_started_at', '<=', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
