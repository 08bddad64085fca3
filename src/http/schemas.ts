// HTTP-only schema pieces: references to the shared records (src/domain/records.ts), the Error
// body, pages, path parameters and the error responses of a route.
import { Type, type Static, type TSchema } from 'typebox';
import { ERROR_CODES } from '../domain/errors.ts';
import {
  AuditLogEntry,
  Branch,
  Client,
  ClientDetail,
  ClientFile,
  Credit,
  Guarantor,
  Guarantee,
  Settings,
  Application,
  CreditConfig,
  Cost,
  Event,
  Holiday,
  ApiKey,
  Business,
  User,
  Installment,
  Lead,
  PromiseToPay,
  Note,
  InstantInput,
  LedgerEntry,
  Payment,
  PaymentImport,
  PaymentImportLine,
  Receipt,
  Statement,
  UploadSession,
  Verification,
  Notification,
  Waiver,
  UUID_FORMAT,
  WebhookDelivery,
  WebhookEndpoint,
  Uuid,
  OneOf,
  ref,
} from '../domain/records.ts';

export * from '../domain/records.ts';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'what went wrong, in a sentence a person can act on' }),
    // an open enum (docs/versioning.md): a minor version may add a code within a documented
    // status, so a client treats an unknown one as its status's general case
    code: Type.Unsafe<(typeof ERROR_CODES)[number]>({
      anyOf: [
        { type: 'string', enum: [...ERROR_CODES] },
        { type: 'string', pattern: '^[a-z][a-z0-9_]*$', description: 'a code added after this document' },
      ],
      description:
        "stable machine code; the HTTP status goes with it. The list is open: a later 1.x may add codes, which a client treats as its status's general case",
    }),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
    request_id: Type.Optional(
      Type.String({ description: "the response's X-Request-Id: quote it when reporting a problem" }),
    ),
  },
  { $id: 'Error', title: 'Error' },
);

/** Shared schemas registered once with app.addSchema, referenced by $ref everywhere. */
export const SHARED_SCHEMAS = [
  ErrorBody,
  Client,
  Credit,
  Installment,
  LedgerEntry,
  ClientFile,
  Guarantor,
  Guarantee,
  ClientDetail,
  CreditConfig,
  AuditLogEntry,
  Branch,
  UploadSession,
  Payment,
  PaymentImport,
  PaymentImportLine,
  Cost,
  Statement,
  Receipt,
  Holiday,
  Lead,
  PromiseToPay,
  Note,
  Verification,
  Event,
  WebhookEndpoint,
  WebhookDelivery,
  Business,
  User,
  ApiKey,
  Notification,
  Settings,
  Application,
  Waiver,
];

export const Page = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    total: Type.Integer({ description: 'number of matching records' }),
    limit: Type.Integer(),
    offset: Type.Integer(),
  });

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
};

/** updated_since of the client and credit lists (docs/api.md, "Sync with updated_since"). */
export const UpdatedSinceQuery = {
  updated_since: Type.Optional(
    InstantInput(
      'RFC 3339 date-time with an offset: only the records whose updated_at is at or after it, oldest change first ' +
        '(updated_at, then id); write + as %2B in a URL',
      '2026-01-15T13:02:00Z',
    ),
  ),
};

export const IdParams = Type.Object({ id: Uuid });

/** A uuid path parameter with its example (the OpenAPI document shows it; "Try it out" fills it in). */
export const UuidParam = (example: string) => Type.String({ format: UUID_FORMAT, examples: [example] });
/** The path parameters of /{id} with the example id of the resource. */
export const idParams = (example: string) => Type.Object({ id: UuidParam(example) });

/**
 * What each error status means, with the codes it carries and an example body: the description and
 * example of that response in the OpenAPI document (annotations only: the serializer ignores them).
 */
const ERROR_RESPONSES: Record<number, { description: string; example: Static<typeof ErrorBody> }> = {
  400: {
    description:
      'validation_failed: malformed JSON, a wrong JSON type, an unknown body field, a value out of range or a bad parameter; details names each field',
    example: {
      error: 'invalid body: foo is not a known field',
      code: 'validation_failed',
      details: [{ path: '/foo', message: 'is not a known field' }],
    },
  },
  401: {
    description:
      'unauthorized: the API key is missing, malformed, unknown or revoked, or the session has ended (signed out, expired or replaced)',
    example: {
      error: 'an API key is required: send Authorization: Bearer <key> or X-API-Key: <key>',
      code: 'unauthorized',
    },
  },
  403: {
    description:
      "forbidden: the key has scope read and the method writes (or reads the users, for admins); or the user's role does not allow the operation; or a write under a session without X-CSRF-Token equal to the csrf cookie; or an API key on an operation for signed-in admins only (/api/keys)",
    example: { error: 'this key has scope read: POST needs a key with scope full', code: 'forbidden' },
  },
  404: {
    description:
      'not_found: no such resource, or it belongs to another business, or a path id is not a uuid (also a path that names nothing)',
    example: { error: 'client not found', code: 'not_found' },
  },
  406: {
    description:
      'not_acceptable: the Accept header accepts none of the types this operation answers in (application/json, application/pdf)',
    example: {
      error: 'this resource is available as application/json or application/pdf; the Accept header allows neither',
      code: 'not_acceptable',
    },
  },
  408: {
    description: 'request_timeout: the request did not arrive in time',
    example: { error: 'the request did not arrive in time: the request is closed', code: 'request_timeout' },
  },
  409: {
    description:
      'conflict: a duplicate, a state that forbids the operation (e.g. paying a closed credit), or an Idempotency-Key already used for another request',
    example: { error: 'a client with dni 30123456 already exists', code: 'conflict' },
  },
  410: {
    description: 'gone: the upload link expired, was revoked or has received all the files it accepts',
    example: {
      error: 'this upload link has expired, was revoked or has received all the files it accepts',
      code: 'gone',
    },
  },
  413: {
    description: 'payload_too_large: the body or the file is larger than the limit',
    example: { error: 'the request body is too large', code: 'payload_too_large' },
  },
  415: {
    description: 'unsupported_media_type: a content type this operation does not read',
    example: { error: 'this content type is not accepted here', code: 'unsupported_media_type' },
  },
  422: {
    description: 'unprocessable: a valid request that breaks a business rule (the message says which)',
    example: {
      error: 'amount 90000.00 is more than the outstanding balance 75800.00 as of 2026-03-20',
      code: 'unprocessable',
      details: [{ path: '/amount', message: 'at most 75800.00' }],
    },
  },
  429: {
    description: 'rate_limited: too many requests; the Retry-After header says in how many seconds to retry',
    example: { error: 'too many requests: at most 6000 a minute per key; retry in 12 s', code: 'rate_limited' },
  },
  431: {
    description: 'headers_too_large: the request headers are too large',
    example: { error: 'the request headers are too large', code: 'headers_too_large' },
  },
  500: {
    description: 'internal: an unexpected error; it is logged, and the body never carries its details',
    example: { error: 'internal error; it has been logged', code: 'internal' },
  },
  502: {
    description:
      'upstream_error: the registry a verification asks failed, answered in an unexpected format or not within the timeout; nothing was stored (Retry-After when the registry asked for it)',
    example: {
      error: 'the central bank registry did not answer within 10 s; nothing was stored, retry later',
      code: 'upstream_error',
    },
  },
  503: {
    description:
      'unavailable: the database does not answer, or the server has too many connections open; retry shortly (Retry-After). not_configured: a verification source this server has no credentials for',
    example: {
      error: 'the server has too many connections open (from your address, or in all); retry shortly',
      code: 'unavailable',
    },
  },
};

/** The Error response of a status, described and with an example (the common ones and the routes' own alike). */
export function errorResponse(status: number, example?: Static<typeof ErrorBody>) {
  const r = ERROR_RESPONSES[status];
  if (!r) throw new Error(`no description of the error status ${status}`);
  return documented(ref(ErrorBody), r.description, example ?? r.example);
}

/**
 * A route's own error responses (409, 410, 422: what its rules answer), so the OpenAPI document
 * lists them; the answers every route of its kind gives are added by plugins/declaredErrors.ts.
 */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, errorResponse(s)]));

/**
 * A schema with the description and the example(s) the OpenAPI document shows for it: a response's
 * description, or a request body's example. Annotations only: validation and serialisation ignore
 * them; test/http/openapi.test.ts validates each example against the schema.
 */
export function documented<T extends TSchema>(schema: T, description: string | undefined, ...examples: Static<T>[]): T {
  return { ...schema, ...(description === undefined ? {} : { description }), examples } as T;
}

/** A request body (or parameter) schema with its example(s). */
export const example = <T extends TSchema>(schema: T, ...examples: Static<T>[]): T =>
  documented(schema, undefined, ...examples);

/** Read-only fields a client may send back in a body (a record read with GET, PUT back whole): ignored. */
export const ReadOnlyFields = {
  id: Type.Optional(Type.Unknown()),
  business_id: Type.Optional(Type.Unknown()),
  created_at: Type.Optional(Type.Unknown()),
  updated_at: Type.Optional(Type.Unknown()),
};
export const READ_ONLY_KEYS = Object.keys(ReadOnlyFields) as (keyof typeof ReadOnlyFields)[];
