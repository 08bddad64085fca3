// One call to a registry over HTTP (Node's fetch), under the verification's deadline: the answer
// is read whole, up to MAX_ANSWER_BYTES, or the call fails with 502 upstream_error naming the
// registry and what went wrong. Nothing here logs: a failure is the caller's error answer.
import { AppError } from '../domain/errors.ts';

/** The largest answer read from a registry (its answers are a few kilobytes). */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** The longest Retry-After passed on (a registry asking for more is told as this). */
const MAX_RETRY_AFTER_S = 24 * 3600;

/** The deadline of one verification: every call it makes shares it. */
export interface Deadline {
  signal: AbortSignal;
  /** what the deadline was, for the error message */
  ms: number;
}

export const deadline = (ms: number): Deadline => ({ signal: AbortSignal.timeout(ms), ms });

export interface RegistryAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** 502 upstream_error; Retry-After (seconds) when the registry asked for one. */
export function upstreamError(message: string, retryAfter?: string | null): AppError {
  return new AppError('upstream_error', message, undefined, retryAfter ? { 'retry-after': retryAfter } : undefined);
}

/**
 * A Retry-After header as whole seconds from now: its delay-seconds, or the seconds until its
 * HTTP date; null when absent or unreadable.
 */
export function retryAfterSeconds(header: string | null, now: Date): string | null {
  const v = header?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return String(Math.min(Number(v), MAX_RETRY_AFTER_S));
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return String(Math.min(Math.max(0, Math.ceil((at - now.getTime()) / 1000)), MAX_RETRY_AFTER_S));
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** The reason a fetch failed, in a few words (the cause's code: ECONNREFUSED, ENOTFOUND, …). */
function reason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message ?? 'unknown error';
}

async function readCapped(res: Response, what: string): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => {});
      throw upstreamError(
        `${what} sent an answer larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB; nothing was stored`,
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Sends the request and reads the whole answer before the deadline. `what` names the registry in
 * error messages ("the central bank registry").
 */
export async function call(what: string, url: string, init: RequestInit, d: Deadline): Promise<RegistryAnswer> {
  const timedOut = () =>
    upstreamError(`${what} did not answer within ${seconds(d.ms)}; nothing was stored, retry later`);
  if (d.signal.aborted) throw timedOut();
  try {
    const res = await fetch(url, { ...init, signal: d.signal, redirect: 'error' });
    return { status: res.status, headers: res.headers, text: await readCapped(res, what) };
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (d.signal.aborted) throw timedOut();
    throw upstreamError(`${what} could not be reached (${reason(err)}); nothing was stored, retry later`);
  }
}
