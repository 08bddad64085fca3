// The one error renderer: maps what Fastify, the router and PostgreSQL throw onto the error
// vocabulary (src/domain/errors.ts) and renders the Error body. Nothing else writes an error
// response; plugins/errors.ts wires it into every place one can arise.
import type { FastifyError } from 'fastify';
import { AppError, notFound, type ErrorCode, type ErrorDetail } from '../domain/errors.ts';

// Fastify's own errors, by code, mapped onto ours.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_failed',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'validation_failed',
  FST_ERR_CTP_INVALID_JSON_BODY: 'validation_failed',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupported_media_type',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_PARTS_LIMIT: 'payload_too_large',
  FST_FILES_LIMIT: 'payload_too_large',
  FST_FIELDS_LIMIT: 'payload_too_large',
  FST_PROTO_VIOLATION: 'validation_failed',
  // a path segment too long for the router or not valid percent-encoding names no resource
  FST_ERR_MAX_PARAM_LENGTH: 'not_found',
  FST_ERR_BAD_URL: 'not_found',
};

// PostgreSQL errors that bad input can still reach (a race past our checks): never a 500.
const PG_CODES: Record<string, ErrorCode> = {
  '23505': 'conflict', // unique_violation
  '23503': 'unprocessable', // foreign_key_violation
  '23514': 'unprocessable', // check_violation
  // numeric_value_out_of_range: every input is range-checked before it reaches SQL, so what
  // overflows is a figure computed from the book, never the caller's validation error
  '22003': 'unprocessable',
  '22P02': 'validation_failed', // invalid_text_representation
  '22007': 'validation_failed', // invalid_datetime_format
  '22008': 'validation_failed', // datetime_field_overflow
  '22021': 'validation_failed', // character_not_in_repertoire: a NUL (\u0000) in text
  '22P05': 'validation_failed', // untranslatable_character: \u0000 in jsonb
  '40001': 'conflict', // serialization_failure
  '40P01': 'conflict', // deadlock_detected
};

// what each input format asks for, in words (src/domain/records.ts)
const FORMAT_MESSAGES: Record<string, string> = {
  date: 'must be a calendar date YYYY-MM-DD from 0001-01-01 to 9999-12-31',
  instant:
    'must be an RFC 3339 date-time with an offset, such as 2026-01-15T13:02:00Z or 2026-01-15T10:02:00-03:00 (in a URL, + is written %2B)',
  money: 'must have at most 2 decimals',
  rate: 'must have at most 6 decimals',
  cuit: 'must be a CUIT/CUIL: 11 digits (or written 20-12345678-6) ending in the right mod-11 check digit',
};

/**
 * A value outside a list (a union of constants, as OneOf builds) fails each constant and then the
 * union: one detail per path instead, naming the values it may take ("or null" when nullable).
 */
function oneOfDetails(errors: NonNullable<FastifyError['validation']>) {
  const allowed = new Map<string, string[]>();
  for (const v of errors)
    if (v.keyword === 'const') {
      const list = allowed.get(v.instancePath) ?? [];
      list.push(String((v.params as { allowedValue?: unknown }).allowedValue));
      allowed.set(v.instancePath, list);
    }
  const rest = errors.filter((v) => !allowed.has(v.instancePath));
  const nullable = new Set(
    errors
      .filter((v) => v.keyword === 'type' && (v.params as { type?: unknown }).type === 'null')
      .map((v) => v.instancePath),
  );
  const listed = [...allowed].map(([path, values]) => ({
    path: path || '/',
    message: `must be one of: ${values.join(', ')}${nullable.has(path) ? ', or null' : ''}`,
  }));
  return { rest, listed };
}

function validationDetails(err: FastifyError): ErrorDetail[] {
  const { rest, listed } = oneOfDetails(err.validation ?? []);
  return [...listed, ...rest.map(detailOf)];
}

function detailOf(v: NonNullable<FastifyError['validation']>[number]): ErrorDetail {
  let path = v.instancePath || '';
  const params = v.params as Record<string, unknown>;
  if (v.keyword === 'required' && params.missingProperty) path += `/${String(params.missingProperty)}`;
  if (v.keyword === 'additionalProperties' && params.additionalProperty) {
    path += `/${String(params.additionalProperty)}`;
    return { path, message: 'is not a known field' };
  }
  if (v.keyword === 'format') {
    const format = String(params.format);
    const message = FORMAT_MESSAGES[format];
    if (message) return { path: path || '/', message };
  }
  return { path: path || '/', message: v.message ?? 'is invalid' };
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as FastifyError & { code?: string; validationContext?: string };
  if (e?.validation) {
    // a malformed id in the path names no resource of this business
    if (e.validationContext === 'params') return notFound();
    const details = validationDetails(e);
    const where = e.validationContext === 'querystring' ? 'query parameter' : 'body';
    const first = details[0];
    const msg = first
      ? `invalid ${where}: ${first.path.replace(/^\//, '') || where} ${first.message}`
      : `invalid ${where}`;
    return new AppError('validation_failed', msg, details);
  }
  if (e?.code && FASTIFY_CODES[e.code]) {
    const code = FASTIFY_CODES[e.code]!;
    if (code === 'not_found') return notFound();
    const msg =
      code === 'payload_too_large'
        ? 'the request body is too large'
        : code === 'unsupported_media_type'
          ? 'this content type is not accepted here'
          : e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
            ? 'the body is not valid JSON'
            : 'the request is malformed';
    return new AppError(code, msg);
  }
  if (e?.code && PG_CODES[e.code]) {
    const code = PG_CODES[e.code]!;
    if (e.code === '22021' || e.code === '22P05')
      return new AppError(code, 'text may not contain the NUL character (\\u0000)');
    if (e.code === '22003')
      return new AppError(code, 'an amount this operation computes is beyond what can be stored (999,999,999,999.99)');
    const msg =
      code === 'conflict'
        ? 'the request conflicts with the current state; retry or check for a duplicate'
        : code === 'validation_failed'
          ? 'a value is out of range or malformed'
          : 'the request breaks a rule of the data (a reference or a limit)';
    return new AppError(code, msg);
  }
  // fastify's body-less SyntaxError and similar client faults carry a 4xx statusCode
  const status = (e as { statusCode?: number })?.statusCode;
  if (status && status >= 400 && status < 500) {
    if (status === 413) return new AppError('payload_too_large', 'the request body is too large');
    if (status === 415) return new AppError('unsupported_media_type', 'this content type is not accepted here');
    if (status === 404) return notFound();
    return new AppError('validation_failed', 'the request is malformed');
  }
  return new AppError('internal', 'internal error; it has been logged');
}

/** The Error body; requestId is the response's X-Request-Id, quoted so a reported failure can be found in the logs. */
export function errorBody(err: AppError, requestId?: string) {
  // validation errors always carry details (API.md, conventions): a refusal of the whole body
  // (malformed JSON, a malformed request or multipart upload) points at its root, "/"
  const details = err.details ?? (err.code === 'validation_failed' ? [{ path: '/', message: err.message }] : undefined);
  return {
    error: err.message,
    code: err.code,
    ...(details ? { details } : {}),
    ...(requestId ? { request_id: requestId } : {}),
  };
}
