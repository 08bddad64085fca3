// What a request's log lines say about it, and what they never say. The URL can carry secrets:
// the token of a public upload link is its path, a key may be sent (and refused) as ?api_key=,
// and a search's q is a dni or a name. So a line names the method, the route pattern and the
// path with the token (and a file name) masked, and the query string's keys with the values of
// only a few known harmless parameters (paging, dates, filters by id or state) kept: every other
// value (q, search, dni, cuit, name, email, phone, anything unknown) is [redacted]. Headers that
// carry keys are redacted wherever a plugin logs them (multipart at trace level).
import type { FastifyRequest, FastifyServerOptions } from 'fastify';

// route parameters that are secrets or personal data
const MASKED_PARAMS = new Set(['token', 'filename']);

// query parameters whose values say nothing about a person; kept only when they look like what
// they should (a number, a date, an id, a word)
const PLAIN_QUERY = new Set([
  'limit',
  'offset',
  'cursor',
  'from',
  'to',
  'as_of',
  'status',
  'state',
  'table',
  'table_name',
  'action',
  'scope',
  'sort',
  'order',
  'branch_id',
  'client_id',
  'credit_id',
  'business_id',
]);
const PLAIN_VALUE = /^[A-Za-z0-9._:+-]{0,64}$/;

/** The path as logged: from the route pattern, masked parameters replaced by [name]; no route matched: the upload token masked. */
export function loggedPath(req: FastifyRequest): string {
  const route = req.routeOptions?.url;
  const params = (req.params ?? {}) as Record<string, string>;
  const path = route
    ? route.replace(/:(\w+)|\*/g, (m, name?: string) => {
        const key = name ?? '*';
        return MASKED_PARAMS.has(key) ? `[${key}]` : encodeURI(params[key] ?? m);
      })
    : req.url.split('?')[0]!.replace(/^\/upload\/[^/]+/, '/upload/[token]');
  const q = req.url.indexOf('?');
  if (q < 0) return path;
  const pairs = [...new URLSearchParams(req.url.slice(q + 1))].map(
    ([k, v]) =>
      `${encodeURIComponent(k)}=${PLAIN_QUERY.has(k) && PLAIN_VALUE.test(v) ? encodeURIComponent(v) : '[redacted]'}`,
  );
  return pairs.length ? `${path}?${pairs.join('&')}` : path;
}

/** Fastify's logger option with the request serializer and redaction above; false stays false. */
export function safeLogger(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false;
  return {
    ...(logger === true ? {} : logger),
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        url: loggedPath(req),
        route: req.routeOptions?.url,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
    redact: { paths: ['*.headers.authorization', '*.headers["x-api-key"]', '*.headers.cookie'], censor: '[redacted]' },
  };
}
