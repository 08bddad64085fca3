// The fetch every request of the client goes through: an Idempotency-Key on each POST, and retries.
// - Every POST without an Idempotency-Key header gets a random one (a UUID) before its first
//   attempt, and every retry of that call sends the same key: the server answers a repeat with the
//   first answer (Idempotent-Replayed: true) instead of writing twice (docs/api.md#idempotency-keys).
//   A call names its own key with the header (headers: { 'Idempotency-Key': 'erp-pay-1' }).
// - 429 (rate limited: nothing was done) is retried for every method; 5xx (not 501) and a failed
//   connection only for a request that is safe to repeat: GET, HEAD, OPTIONS, PUT, DELETE, and a
//   POST under /api/ carrying its key (outside /api, a POST's key is not honoured).
// - The pause before retry n (1, 2, …) is Retry-After when the answer has one (seconds or an HTTP
//   date; above maxRetryAfterMs the answer is returned instead of waiting), otherwise
//   minDelayMs × 2^(n-1), at most maxDelayMs, times a random factor in [0.5, 1).

export interface RetryOptions {
  /** retries after the first attempt (0: none); 3 by default */
  retries?: number;
  /** the first pause when the answer has no Retry-After; 200 ms by default */
  minDelayMs?: number;
  /** the longest computed pause; 5 s by default */
  maxDelayMs?: number;
  /** the longest Retry-After waited for; a longer one returns the answer; 60 s by default */
  maxRetryAfterMs?: number;
  /** called before each pause: the attempt that failed (1, 2, …), its status or error, and the pause */
  onRetry?: (info: {
    attempt: number;
    method: string;
    url: string;
    status?: number;
    error?: unknown;
    delayMs: number;
  }) => void;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** The pause a Retry-After asks for, in ms (null: none or unreadable). */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Whether the request may be sent again after a 5xx or a failed connection. */
function repeatable(request: Request): boolean {
  if (SAFE.has(request.method)) return true;
  return (
    request.method === 'POST' &&
    request.headers.has('idempotency-key') &&
    new URL(request.url).pathname.includes('/api/')
  );
}

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });

/** A fetch that adds the POST's Idempotency-Key and retries over `fetchImpl`. */
export function retryingFetch(
  fetchImpl: typeof globalThis.fetch,
  options: RetryOptions | false = {},
  idempotencyKeys = true,
): (input: Request, init?: RequestInit) => Promise<Response> {
  const o = options || { retries: 0 };
  const retries = o.retries ?? 3;
  const minDelay = o.minDelayMs ?? 200;
  const maxDelay = o.maxDelayMs ?? 5000;
  const maxRetryAfter = o.maxRetryAfterMs ?? 60_000;
  const onRetry = o.onRetry;
  return async (input, init) => {
    let base = input;
    if (idempotencyKeys && base.method === 'POST' && !base.headers.has('idempotency-key')) {
      const headers = new Headers(base.headers);
      headers.set('idempotency-key', crypto.randomUUID());
      base = new Request(base, { headers });
    }
    const backoff = (n: number) => Math.min(maxDelay, minDelay * 2 ** (n - 1)) * (0.5 + Math.random() / 2);
    for (let attempt = 1; ; attempt++) {
      const last = attempt > retries;
      let response: Response;
      try {
        response = await fetchImpl(last ? base : base.clone(), init);
      } catch (error) {
        if (last || base.signal?.aborted || !repeatable(base)) throw error;
        const delayMs = backoff(attempt);
        onRetry?.({ attempt, method: base.method, url: base.url, error, delayMs });
        await sleep(delayMs, base.signal);
        continue;
      }
      const status = response.status;
      const retryable = status === 429 || (status >= 500 && status !== 501 && repeatable(base));
      if (last || !retryable) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== null && asked > maxRetryAfter) return response;
      const delayMs = asked ?? backoff(attempt);
      await response.body?.cancel().catch(() => {});
      onRetry?.({ attempt, method: base.method, url: base.url, status, delayMs });
      await sleep(delayMs, base.signal);
    }
  };
}
