// The service's error vocabulary: every stable code with its HTTP status, the one error class,
// and the helpers the domain and the services throw. The HTTP layer only renders these
// (src/http/errors.ts); the OpenAPI Error.code enum is generated from ERROR_STATUS.

export const ERROR_STATUS = {
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  not_acceptable: 406,
  request_timeout: 408,
  conflict: 409,
  // with approval.required, an employee grants credits only through applications (docs/applications.md)
  approval_required: 409,
  // a payment whose channel and external_reference the business already paid (docs/payments.md)
  duplicate_payment: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  // a valid request that breaks a business rule; the rule's own name is DomainError.rule
  unprocessable: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  // a registry a verification asks (docs/verification.md) failed, timed out or could not be reached
  upstream_error: 502,
  unavailable: 503,
  // a verification source the server has no credentials for (ARCA_CERT, ARCA_KEY, ARCA_CUIT unset)
  not_configured: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ErrorDetail {
  path: string;
  message: string;
}

/** The rules of the domain that refuse a valid request (src/domain), each answered 422 `unprocessable`. */
export type DomainRule =
  | 'unprocessable'
  | 'invalid_amount'
  | 'invalid_interest_rate'
  | 'invalid_installments_count'
  | 'invalid_days_until_first_payment'
  | 'invalid_cut_type'
  | 'invalid_payment_day'
  | 'invalid_start_date'
  | 'amount_too_small'
  | 'schedule_out_of_range';

/** A refusal with a stable code; its status comes from ERROR_STATUS. */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;
  /** for the server's log only, never the answer: what exactly was refused, where telling the caller would inform an attacker */
  readonly logDetail?: string;
  constructor(
    code: ErrorCode,
    message: string,
    details?: ErrorDetail[],
    headers?: Record<string, string>,
    logDetail?: string,
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
    this.headers = headers;
    this.logDetail = logDetail;
  }
}

/**
 * A pure rule of the domain refused its input: 422 `unprocessable`, as API.md's conventions give
 * every broken business rule; which rule is `rule` (for the code and its tests), the answer's
 * message says it to the caller.
 */
export class DomainError extends AppError {
  readonly rule: DomainRule;
  constructor(rule: DomainRule, message: string) {
    super('unprocessable', message);
    this.name = 'DomainError';
    this.rule = rule;
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `${what} not found`);
export const conflict = (msg: string) => new AppError('conflict', msg);
export const gone = (msg: string) => new AppError('gone', msg);
export const unprocessable = (msg: string, details?: ErrorDetail[]) => new AppError('unprocessable', msg, details);
export const invalid = (path: string, message: string) =>
  new AppError('validation_failed', `${path.replace(/^\//, '') || 'request'}: ${message}`, [{ path, message }]);
