// HTTP-only schema pieces: references to the shared records (src/domain/records.ts), the Error
// body, pages, path parameters and the error responses of a route.
import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES } from '../domain/errors.ts';
import {
  AuditLogEntry,
  Branch,
  Client,
  ClientDetail,
  ClientFile,
  Credit,
  CreditConfig,
  Installment,
  LedgerEntry,
  UploadSession,
  Uuid,
  ref,
} from '../domain/records.ts';

export * from '../domain/records.ts';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'what went wrong, in a sentence a person can act on' }),
    code: Type.Union(
      ERROR_CODES.map((c) => Type.Literal(c)),
      { description: 'stable machine code; the HTTP status goes with it (src/domain/errors.ts)' },
    ),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
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
  ClientDetail,
  CreditConfig,
  AuditLogEntry,
  Branch,
  UploadSession,
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

export const IdParams = Type.Object({ id: Uuid });

/**
 * A route's own error responses (409, 410, 422: what its rules answer), so the OpenAPI document
 * lists them; the answers every route of its kind gives are added by plugins/declaredErrors.ts.
 */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, ref(ErrorBody)]));

/** Read-only fields a client may send back in a body (a record read with GET, PUT back whole): ignored. */
export const ReadOnlyFields = {
  id: Type.Optional(Type.Unknown()),
  business_id: Type.Optional(Type.Unknown()),
  created_at: Type.Optional(Type.Unknown()),
  updated_at: Type.Optional(Type.Unknown()),
};
export const READ_ONLY_KEYS = Object.keys(ReadOnlyFields) as (keyof typeof ReadOnlyFields)[];
