// The records of the contract (contract-1.0.0.md, "Resources and their fields") and the scalar
// types of every input, declared once as JSON Schema (TypeBox): validation, response
// serialisation, the OpenAPI document and the CSV exports all come from these.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** A reference to a shared schema (registered once with addSchema), typed as the schema itself. */
export const ref = <T extends TSchema>(t: T) => Type.Unsafe<Static<T>>({ $ref: `${t.$id}#` });

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** Checked by isUuid (src/domain/uuid.ts; the validator registers it). */
export const UUID_FORMAT = 'uuid';
export const Uuid = Type.String({ format: UUID_FORMAT });
// Rows carry Date objects; the serializer writes them as RFC 3339.
export const DateTime = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time' });
export const CalendarDate = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
export const Money = Type.Number({ description: 'decimal amount, at most 2 decimals' });

// Input formats, checked by the validator (src/http/plugins/validation.ts registers them) and
// shown in the OpenAPI document: a calendar date is 0001-01-01..9999-12-31 and real; money has at
// most 2 decimals; a rate or percentage at most 6.
export const DATE_FORMAT = 'date';
export const MONEY_FORMAT = 'money';
export const RATE_FORMAT = 'rate';
export const MAX_MONEY = 999_999_999_999.99;
/** A date in a request: YYYY-MM-DD, a real calendar day from 0001-01-01 to 9999-12-31. */
export const DateInput = (description = 'YYYY-MM-DD') => Type.String({ format: DATE_FORMAT, description });
/** An amount in a request: a JSON number with at most 2 decimals. */
export const MoneyInput = (description = 'at most 2 decimals') =>
  Type.Number({ format: MONEY_FORMAT, maximum: MAX_MONEY, description });
/** A rate or percentage in a request: >= 0 with at most 6 decimals. */
export const RateInput = (description: string) => Type.Number({ format: RATE_FORMAT, minimum: 0, maximum: 999_999, description });

export const Client = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    dni: Type.String(),
    sex: Nullable(Type.Union([Type.Literal('m'), Type.Literal('f'), Type.Literal('o')])),
    street: Nullable(Type.String()),
    street_number: Nullable(Type.String()),
    floor: Nullable(Type.String()),
    apartment: Nullable(Type.String()),
    city: Nullable(Type.String()),
    state: Nullable(Type.String()),
    country: Nullable(Type.String()),
    zip_code: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    alt_phone: Nullable(Type.String()),
    email: Nullable(Type.String({ format: 'email' })),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Client', title: 'Client' },
);

export const CreditStatus = Type.Union(
  ['active', 'refinanced', 'closed', 'written_off', 'inactive'].map((s) => Type.Literal(s)),
);

export const Credit = Type.Object(
  {
    id: Uuid,
    client_id: Uuid,
    credit_config_id: Uuid,
    amount: Money,
    status: CreditStatus,
    refinanced_from_id: Nullable(Uuid),
    created_by: Type.String(),
    origin_transaction_reference: Nullable(Type.String()),
    branch_id: Nullable(Uuid),
    sequential_id: Type.Integer(),
    created_at: DateTime,
    updated_at: DateTime,
    written_off_at: Nullable(DateTime),
    write_off_reason: Nullable(Type.String()),
    // extensions
    total: Money,
    start_date: CalendarDate,
  },
  { $id: 'Credit', title: 'Credit' },
);

export const Installment = Type.Object(
  {
    id: Uuid,
    credit_id: Uuid,
    number: Type.Integer(),
    amount: Money,
    due_date: CalendarDate,
    status: Type.Union([Type.Literal('pending'), Type.Literal('partial'), Type.Literal('paid')]),
    overdue: Type.Boolean(),
    days_late: Type.Integer(),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Installment', title: 'Installment' },
);

export const LedgerEntry = Type.Object(
  {
    id: Uuid,
    installment_id: Uuid,
    type: Type.Union([Type.Literal('installment'), Type.Literal('punitory'), Type.Literal('payment')]),
    amount: Money,
    branch_id: Nullable(Uuid),
    created_by: Type.String(),
    created_at: DateTime,
    // extensions
    credit_id: Uuid,
    effective_date: CalendarDate,
  },
  { $id: 'LedgerEntry', title: 'LedgerEntry' },
);

export const ClientFile = Type.Object(
  {
    id: Uuid,
    client_id: Uuid,
    file_name: Type.String(),
    file_url: Type.String(),
    file_type: Type.String(),
    file_size: Type.Integer({ description: 'bytes' }),
    created_at: DateTime,
  },
  { $id: 'ClientFile', title: 'ClientFile' },
);

export const ClientDetail = Type.Object(
  {
    client: ref(Client),
    credits: Type.Array(ref(Credit)),
    installments: Type.Array(ref(Installment)),
    ledgerEntries: Type.Array(ref(LedgerEntry)),
    files: Type.Array(ref(ClientFile)),
  },
  { $id: 'ClientDetail', title: 'ClientDetail' },
);

export const CutType = Type.Union([Type.Literal('fixed'), Type.Literal('monthly')]);
export const PunitoryMode = Type.Union([
  Type.Literal('simple_outstanding'),
  Type.Literal('compound'),
  Type.Literal('full_amount'),
]);

export const CreditConfig = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    name: Type.String(),
    is_active: Type.Boolean(),
    installments_count: Type.Integer(),
    days_until_first_payment: Type.Integer(),
    cut_type: CutType,
    daily_punitory_rate: Type.Number(),
    interest_rate: Type.Number(),
    payment_day: Type.Integer(),
    grace_days: Type.Integer(),
    punitory_mode: PunitoryMode,
    max_punitory_days: Type.Integer(),
    punitory_cap_pct: Type.Number(),
    write_off_days: Type.Integer(),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'CreditConfig', title: 'CreditConfig' },
);

export const AuditLogEntry = Type.Object(
  {
    id: Uuid,
    table_name: Type.String(),
    action: Type.Union([Type.Literal('INSERT'), Type.Literal('UPDATE'), Type.Literal('DELETE')]),
    record_id: Uuid,
    old_data: Nullable(Type.Object({}, { additionalProperties: true })),
    new_data: Nullable(Type.Object({}, { additionalProperties: true })),
    business_id: Uuid,
    branch_id: Nullable(Uuid),
    changed_at: DateTime,
    impersonated_by: Nullable(Type.String()),
    actor: Type.String({ description: 'api_key:<key id>, cli, upload_link:<session id> or system:<job>' }),
  },
  { $id: 'AuditLogEntry', title: 'AuditLogEntry' },
);

export const Branch = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    name: Type.String(),
    // the contract types these string, not nullable: an unknown address or phone is ""
    address: Type.String(),
    phone: Type.String(),
    created_at: DateTime,
    updated_at: DateTime,
    deleted_at: Nullable(DateTime),
  },
  { $id: 'Branch', title: 'Branch' },
);

export const UploadSession = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    client_id: Uuid,
    created_by: Type.String(),
    created_at: DateTime,
    expires_at: DateTime,
    revoked_at: Nullable(DateTime),
    last_used_at: Nullable(DateTime),
    upload_count: Type.Integer(),
    max_uploads: Type.Integer(),
  },
  { $id: 'UploadSession', title: 'UploadSession' },
);

