// Where a webhook may be sent (docs/webhooks.md, "The URL rule": https:// and public addresses only) and
// the sending itself. The rule is checked when an endpoint is created or changed, and again at
// every delivery against a fresh resolution of its host, whose checked address is the one the
// request connects to: a name that later resolves to an internal address (DNS rebinding) reaches
// nothing. WEBHOOK_ALLOW_PRIVATE=true lifts the rule (http:// and any address), for tests and
// private networks.
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A host's addresses, as the system resolver gives them. */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

const RESOLVE_TIMEOUT_MS = 5_000;

/** The system resolver (getaddrinfo, as connecting would use), bounded in time. */
export const systemResolver: Resolver = (host) => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    dnsLookup(host, { all: true, verbatim: true }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from DNS within ${RESOLVE_TIMEOUT_MS} ms`)),
        RESOLVE_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
};

/**
 * Whether an address is public: globally routable unicast. Loopback, private (RFC 1918, unique
 * local), link-local, carrier-grade NAT, multicast, broadcast, unspecified, reserved and
 * documentation ranges, and the IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4,
 * Teredo) are not; an IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** What a refused address is told, whatever the host resolved to or whether it resolved at all. */
export const REFUSED_TARGET = 'must be an https:// URL whose host resolves, only to public addresses';

/** Why a URL or an address is refused; `kind` says whether the URL itself or where it leads is wrong. */
export class TargetRefused extends Error {
  readonly kind: 'url' | 'address';
  constructor(kind: 'url' | 'address', message: string) {
    super(message);
    this.name = 'TargetRefused';
    this.kind = kind;
  }
}

export interface TargetRules {
  allowPrivate: boolean;
  resolve?: Resolver;
}

export const MAX_URL_LENGTH = 2048;

/** The URL parsed, with its scheme and form checked (not its address). */
export function parseTargetUrl(raw: string, allowPrivate: boolean): URL {
  if (raw.length > MAX_URL_LENGTH) throw new TargetRefused('url', `is longer than ${MAX_URL_LENGTH} characters`);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TargetRefused('url', 'is not an absolute URL (e.g. https://erp.example.com/hooks/lending)');
  }
  if (u.protocol !== 'https:' && !(allowPrivate && u.protocol === 'http:'))
    throw new TargetRefused(
      'url',
      allowPrivate
        ? 'must be an http:// or https:// URL'
        : 'must be an https:// URL (http:// only with WEBHOOK_ALLOW_PRIVATE=true)',
    );
  if (u.username || u.password) throw new TargetRefused('url', 'must not carry a user name or password');
  if (!u.hostname) throw new TargetRefused('url', 'has no host');
  return u;
}

/** The host of a URL as an address or a name (an IPv6 literal without its brackets). */
const hostOf = (u: URL) => u.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Where a request to the URL connects: the address it resolves to, every address it resolves to
 * checked. null when the host is an address literal (already checked) or the rule is lifted.
 */
export async function resolveTarget(u: URL, rules: TargetRules): Promise<{ address: string; family: number } | null> {
  if (rules.allowPrivate) return null;
  const host = hostOf(u);
  if (isIP(host)) {
    if (!isPublicAddress(host)) throw new TargetRefused('address', `${host} is not a public address`);
    return null;
  }
  let found: { address: string; family: number }[];
  try {
    found = await (rules.resolve ?? systemResolver)(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TargetRefused(
      'address',
      code === 'ENOTFOUND' || code === 'ENODATA'
        ? `${host} does not resolve`
        : `${host} could not be resolved (${code ?? (err as Error).message})`,
    );
  }
  if (found.length === 0) throw new TargetRefused('address', `${host} does not resolve`);
  const internal = found.find((a) => !isPublicAddress(a.address));
  if (internal)
    throw new TargetRefused('address', `${host} resolves to ${internal.address}, which is not a public address`);
  return found[0]!;
}

/** Checks a URL as an endpoint is created or changed; returns it as it will be stored. */
export async function checkTargetUrl(raw: string, rules: TargetRules): Promise<string> {
  const u = parseTargetUrl(raw, rules.allowPrivate);
  await resolveTarget(u, rules);
  return u.href;
}

/** How much of a response body is read (for the error text of a failed attempt). */
const BODY_BYTES = 4096;
/** How much of it the error text keeps. */
const ERROR_CHARS = 300;

export interface PostResult {
  /** the HTTP status, when an answer arrived */
  status: number | null;
  /** a short text of what went wrong; null for a 2xx */
  error: string | null;
  /** for the server's log only: why the target was refused (error says only that it was) */
  detail?: string;
  ms: number;
}

/** One line of text from a received body: control characters replaced, at most ERROR_CHARS. */
function oneLine(text: string): string {
  return text
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
    .slice(0, ERROR_CHARS);
}

/**
 * POSTs a body to a URL under the rule: the host is resolved and checked first, and the request
 * connects to that checked address (TLS still verifies the certificate against the host name).
 * Success is a 2xx within timeoutMs; redirects are not followed; at most a few KB of the answer
 * are read. Never throws: the outcome says what happened.
 */
export async function postToTarget(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: TargetRules & { timeoutMs: number },
): Promise<PostResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null): PostResult => ({
    status,
    error: error === null ? null : oneLine(error),
    ms: performance.now() - started,
  });
  let u: URL;
  let pinned: { address: string; family: number } | null;
  try {
    u = parseTargetUrl(url, opts.allowPrivate);
    pinned = await resolveTarget(u, opts);
  } catch (err) {
    if (!(err instanceof TargetRefused)) return done(null, String(err));
    // the same words whatever the host resolved to: the business reads them in its deliveries
    return { ...done(null, `refused: the URL ${REFUSED_TARGET}`), detail: err.message };
  }
  const lookup: LookupFunction | undefined = pinned
    ? (_host, options, cb) => {
        if ((options as { all?: boolean }).all)
          (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned!]);
        else cb(null, pinned!.address, pinned!.family);
      }
    : undefined;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    let res: IncomingMessage | null = null;
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const answered = () => {
      const status = res!.statusCode ?? 0;
      if (status >= 200 && status < 300) return finish(done(status, null));
      const text = Buffer.concat(chunks).toString('utf8');
      const what =
        status >= 300 && status < 400
          ? `HTTP ${status} (redirects are not followed)`
          : `HTTP ${status}${text.trim() ? `: ${text}` : ''}`;
      finish(done(status, what));
    };
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      u,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        // a connection of its own, closed after the answer: nothing pooled outlives the check of its address
        agent: false,
        ...(lookup ? { lookup } : {}),
      },
      (r) => {
        res = r;
        // a 2xx is the answer: its body is not read
        if ((r.statusCode ?? 0) >= 200 && (r.statusCode ?? 0) < 300) return answered();
        r.on('data', (c: Buffer) => {
          if (received < BODY_BYTES) chunks.push(c.subarray(0, BODY_BYTES - received));
          received += c.length;
          if (received >= BODY_BYTES) answered();
        });
        r.on('end', answered);
        r.on('error', answered);
        r.on('aborted', answered);
      },
    );
    const timer = setTimeout(() => {
      if (res) answered();
      else finish(done(null, `no answer within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (res) answered();
      else finish(done(null, err.code ? `${err.code}: ${err.message}` : err.message));
    });
    req.end(body);
  });
}
