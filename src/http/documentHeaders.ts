// What the OpenAPI document adds to the routes' own schemas: the response headers the server
// sends (declared once under components.headers and referenced where they are sent) and the
// `webhooks` section, one entry per event type with its payload. test/http/openapi-headers.test.ts
// sends real requests and fails on any header a response carries that its operation does not
// declare, and on an event type without its webhook.
import type { RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import { EVENT_OBJECTS, EVENT_TYPES } from '../services/events.ts';

type Response = { $ref?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> };
type Operation = {
  operationId?: string;
  parameters?: unknown[];
  responses?: Record<string, Response>;
  'x-rate-limited'?: boolean;
};
export type OpenApiDocument = {
  paths?: Record<string, Record<string, Operation>>;
  components?: {
    responses?: Record<string, unknown>;
    headers?: Record<string, unknown>;
    parameters?: Record<string, unknown>;
    schemas?: Record<string, unknown>;
  };
  webhooks?: Record<string, unknown>;
};

const integer = { type: 'integer', minimum: 0 };
const text = { type: 'string' };

/** Every response header the service sends besides HTTP's own framing (Content-Type, Content-Length, Date, Connection). */
export const RESPONSE_HEADERS: Record<string, { description: string; schema: object }> = {
  'X-Request-Id': {
    description:
      "The request's id: the caller's own X-Request-Id when it is a plain token (letters, digits, `.`, `_`, `-`, at most 128), else a new uuid. The same value is an Error body's `request_id` and every log line of the request.",
    schema: text,
  },
  'X-Content-Type-Options': { description: 'Always `nosniff`.', schema: { type: 'string', const: 'nosniff' } },
  'X-RateLimit-Limit': { description: 'Requests a minute this key or user may make (`RATE_LIMIT`).', schema: integer },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: integer },
  'X-RateLimit-Reset': {
    description: 'Seconds until the current minute ends and the count starts again.',
    schema: integer,
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: integer },
  'Idempotent-Replayed': {
    description:
      '`true` when this answer is the stored answer of an earlier request with the same Idempotency-Key: nothing was written this time.',
    schema: { type: 'string', const: 'true' },
  },
  'Consistency-Token': {
    description:
      "Only when the service reads from a replica (DATABASE_READ_URL): the write's position in the primary's log. Send it back as the Consistency-Token request header and a list, report or feed read on any process of the service waits for this write on the replica, or reads the primary.",
    schema: text,
  },
  'Set-Cookie': {
    description:
      'The session cookie (HttpOnly) and the csrf cookie a browser sends back as X-CSRF-Token; `__Host-` prefixed and Secure over https. Sign-out sets both expired.',
    schema: text,
  },
  'Content-Disposition': {
    description: 'The file name to save or show the document under (`attachment` or `inline`).',
    schema: text,
  },
  'Cache-Control': {
    description: 'Personal data: `private, no-store` (or `no-store`): no shared cache keeps it.',
    schema: text,
  },
  Vary: { description: 'The answer depends on the Accept header (JSON or PDF).', schema: text },
  'Content-Security-Policy': {
    description: "A client's file is served sandboxed: `default-src 'none'; sandbox`.",
    schema: text,
  },
};

const SAFE = new Set(['get', 'head', 'options']);

/**
 * An onRoute hook of a rate limit's scope: its routes' answers carry the X-RateLimit headers, so
 * the document says so (`x-rate-limited` on the operation; only while the limit is on).
 */
export function markRateLimited(route: RouteOptions): void {
  const schema = route.schema as Record<string, unknown> | undefined;
  if (schema && !schema.hide) route.schema = { ...schema, 'x-rate-limited': true } as RouteOptions['schema'];
}

/** The headers of one operation's response with this status, besides the ones every response carries. */
function headersFor(path: string, method: string, status: string, op: Operation): string[] {
  const out = ['X-Request-Id', 'X-Content-Type-Options'];
  const code = Number(status);
  if (op['x-rate-limited']) out.push('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
  if (code === 429 || code === 503) out.push('Retry-After');
  const ok = code >= 200 && code < 300;
  if (ok && path.startsWith('/api/') && !SAFE.has(method)) out.push('Idempotent-Replayed', 'Consistency-Token');
  if (ok) out.push(...(OPERATION_HEADERS[op.operationId ?? ''] ?? []));
  return out;
}

/** Headers only some operations send with their success answer. */
const OPERATION_HEADERS: Record<string, string[]> = {
  signIn: ['Set-Cookie'],
  setPassword: ['Set-Cookie'],
  signOut: ['Set-Cookie'],
  downloadClientFile: ['Content-Disposition', 'Cache-Control', 'Content-Security-Policy'],
  exportDataset: ['Content-Disposition', 'Cache-Control'],
  getCreditStatement: ['Content-Disposition', 'Cache-Control', 'Vary'],
  getPaymentReceipt: ['Content-Disposition', 'Cache-Control', 'Vary'],
};

/** The request header of read-your-writes across the service's processes, taken by every read under /api. */
const CONSISTENCY_PARAMETER = {
  name: 'Consistency-Token',
  in: 'header',
  required: false,
  description:
    "The Consistency-Token of a write's answer: this read, if it would come from a replica, waits until the replica has that write, or reads the primary. Without a replica it changes nothing. Not a token: 400 validation_failed.",
  schema: { type: 'string', pattern: '^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$', examples: ['16/B374D848'] },
};

/** Declares, on every response of every operation, the headers it is sent with (and, on the reads under /api, the Consistency-Token they take). */
export function declareResponseHeaders(doc: OpenApiDocument): OpenApiDocument {
  doc.components = {
    ...doc.components,
    headers: Object.fromEntries(Object.entries(RESPONSE_HEADERS).map(([name, h]) => [name, h])),
    parameters: { ...doc.components?.parameters, ConsistencyToken: CONSISTENCY_PARAMETER },
  };
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    for (const [method, op] of Object.entries(item)) {
      if (path.startsWith('/api/') && method === 'get')
        op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/ConsistencyToken' }];
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (response.$ref) continue;
        const names = headersFor(path, method, status, op);
        response.headers = {
          ...response.headers,
          ...Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }])),
        };
      }
    }
  return doc;
}

/**
 * The `webhooks` section: for each event type, the POST a webhook endpoint receives (the Event
 * record with that type and its object), its headers, and what the receiver answers.
 */
export function webhooksSection(doc: OpenApiDocument): OpenApiDocument {
  const schemas = doc.components?.schemas ?? {};
  const objectSchema = (s: TSchema) => {
    const id = (s as { $id?: string }).$id;
    if (id && schemas[id]) return { $ref: `#/components/schemas/${id}` };
    const { $id: _drop, ...inline } = s as TSchema & { $id?: string };
    return inline;
  };
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  });
  doc.webhooks = Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on_${type.replace(/\./g, '_')}`,
          summary: EVENT_OBJECTS[type].summary,
          description:
            'Sent to every enabled endpoint subscribed to this type (or to all types), at least once and in order per credit; retried with backoff for 3 days until the endpoint answers 2xx. Check `Lending-Signature` before trusting the body (docs/webhooks.md).',
          tags: ['webhooks'],
          parameters: [
            header('Lending-Event-Id', "the event's id: the same on every retry, to drop a repeated delivery"),
            header('Lending-Event-Type', 'the event type, as in the body'),
            header(
              'Lending-Signature',
              '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint secret>`',
            ),
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  allOf: [
                    { $ref: '#/components/schemas/Event' },
                    {
                      type: 'object',
                      properties: {
                        type: { type: 'string', const: type },
                        data: {
                          type: 'object',
                          properties: { object: objectSchema(EVENT_OBJECTS[type].object) },
                        },
                      },
                    },
                  ],
                },
              },
            },
          },
          responses: {
            '2XX': { description: 'Received: the delivery is done.' },
            default: { description: 'Anything else (or no answer within WEBHOOK_TIMEOUT_MS) is retried.' },
          },
        },
      },
    ]),
  );
  return doc;
}
