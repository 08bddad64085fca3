// Sign-in attempts per subject (a hashed email or client address) in a fixed window (migration 015).
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
    .values({ subject_hash: subjectHash, failures: 1, window_started_at: now })
    .onConflict((oc) =>
      oc.column('subject_hash').doUpdateSet({
        failures: sql`CASE WHEN login_failures.window_started_at <= ${windowStart} THEN 1 ELSE login_failures.failures + 1 END`,
        window_started_at: sql`CASE WHEN login_failures.window_started_at <= ${windowStart} THEN ${now}::timestamptz ELSE login_failures.window_started_at END`,
      }),
    )
    .returning(['failures', 'window_started_at'])
    .executeTakeFirstOrThrow();
  return { failures: r.failures, windowStartedAt: new Date(r.window_started_at) };
}

/** Takes back one attempt (it succeeded). */
export async function uncountAttempt(db: Executor, subjectHash: string): Promise<void> {
  await db
    .updateTable('login_failures')
    .set({ failures: sql`greatest(failures - 1, 0)` })
    .where('subject_hash', '=', subjectHash)
    .execute();
}

/** Forgets the subject's attempts (its account signed in). */
export async function clearAttempts(db: Executor, subjectHash: string): Promise<void> {
  await db.deleteFrom('login_failures').where('subject_hash', '=', subjectHash).execute();
}

/** Windows that ended before `before`; returns how many were deleted. */
export async function deleteOldAttempts(db: Executor, before: Date): Promise<number> {
  const r = await db.deleteFrom('login_failures').where('window_started_at', '<=', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
