// The rules of webhook delivery that need no I/O (docs/webhooks.md): which events an endpoint
// receives, and when a failed delivery is tried again.

/** Every event type, in an endpoint's `events`. */
export const ALL_EVENTS = '*';

/** An endpoint's event types as stored: "*" alone when it is given, otherwise each type once, in the order given. */
export function normalizeEventTypes(types: readonly string[]): string[] {
  if (types.includes(ALL_EVENTS)) return [ALL_EVENTS];
  return [...new Set(types)];
}

/** Whether an endpoint with these event types receives an event of this type. */
export function subscribes(types: readonly string[], type: string): boolean {
  return types.includes(ALL_EVENTS) || types.includes(type);
}

/** A delivery is tried for this long from its first attempt; then it fails and its endpoint is disabled. */
export const RETRY_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;
/** the pause after the first failed attempt; each next one doubles */
export const FIRST_RETRY_MS = 30 * 1000;
/** the longest pause between two attempts (before jitter) */
export const MAX_RETRY_MS = 6 * 60 * 60 * 1000;
/** each pause is multiplied by a factor drawn from [1 - JITTER, 1 + JITTER) */
export const JITTER = 0.2;

/**
 * The pause after the n-th failed attempt (n >= 1): 30 s × 2^(n-1), at most 6 h, times a jitter
 * factor from `random` in [0, 1) so endpoints that failed together do not retry together.
 */
export function retryDelayMs(failedAttempts: number, random: number): number {
  const base = Math.min(FIRST_RETRY_MS * 2 ** Math.min(Math.max(failedAttempts - 1, 0), 30), MAX_RETRY_MS);
  return Math.round(base * (1 - JITTER + 2 * JITTER * random));
}

/**
 * When a delivery whose attempt number `failedAttempts` just failed at `now` is tried again: after
 * its pause, but never later than 3 days after its first attempt (one last try then). null: the
 * 3 days are over, the delivery has failed.
 */
export function nextAttemptAfterFailure(
  firstAttemptAt: Date,
  now: Date,
  failedAttempts: number,
  random: number,
): Date | null {
  const deadline = firstAttemptAt.getTime() + RETRY_WINDOW_MS;
  if (now.getTime() >= deadline) return null;
  return new Date(Math.min(now.getTime() + retryDelayMs(failedAttempts, random), deadline));
}
