// The records of the contract (contract-1.0.0.md, "Resources and their fields") and the scalar
// types of every input, declared once as JSON Schema (TypeBox): validation, response
// serialisation, the OpenAPI document and the CSV exports all come from these.
import { Type, type Static, type TSchema } from 'typebox';

/** The JSON Schema keywords the code reads off a schema (TypeBox 1.x types them on the kinds only). */
export interface JsonSchema {
  $id?: string;
  type?: string;
  format?: string;
  anyOf?: JsonSchema[];
  default?: unknown;
}

/** A reference to a shared schema (registered once with addSchema), typed as the schema itself. */
export const ref = <T extends TSchema>(t: T) => Type.Unsafe<Static<T>>({ $ref: `${(t as JsonSchema).$id}#` });

/** One of the strings given (an anyOf of constants in the document), typed as their union. */
export const OneOf = <const V extends string>(values: readonly V[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<V>(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      options,
    ),
  );

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
/** A CUIT/CUIL (src/domain/cuit.ts): 11 digits, or NN-NNNNNNNN-N, with its mod-11 check digit. */
export const CUIT_FORMAT = 'cuit';
export const MAX_MONEY = 999_999_999_999.99;
/** A date in a request: YYYY-MM-DD, a real calendar day from 0001-01-01 to 9999-12-31. */
export const DateInput = (description = 'YYYY-MM-DD') => Type.String({ format: DATE_FORMAT, description });
/** An amount in a request: a JSON number with at most 2 decimals. */
export const MoneyInput = (description = 'at most 2 decimals') =>
  Type.Number({ format: MONEY_FORMAT, maximum: MAX_MONEY, description });
/** A rate or percentage in a request: >= 0 with at most 6 decimals. */
export const RateInput = (description: string) =>
  Type.Number({ format: RATE_FORMAT, minimum: 0, maximum: 999_999, description });

// The input limits of the writable fields live on the records, so request bodies derive from them
// (src/http/routes); responses are serialised, never validated, so the limits do not change them.
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Text = Type.String({ maxLength: 200 });

export const Client = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    first_name: Nullable(Text),
    last_name: Nullable(Text),
    dni: Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: '\\S',
      description: 'national identity document number; unique within the business',
    }),
    sex: Nullable(Type.Union([Type.Literal('m'), Type.Literal('f'), Type.Literal('o')])),
    street: Nullable(Text),
    street_number: Nullable(Text),
    floor: Nullable(Text),
    apartment: Nullable(Text),
    city: Nullable(Text),
    state: Nullable(Text),
    country: Nullable(Text),
    zip_code: Nullable(Text),
    phone: Nullable(Text),
    alt_phone: Nullable(Text),
    email: Nullable(Type.String({ format: 'email', maxLength: 254 })),
    created_at: DateTime,
    updated_at: DateTime,
    // extensions
    cuit: Nullable(
      Type.String({
        format: CUIT_FORMAT,
        maxLength: 13,
        description:
          'CUIT/CUIL: 11 digits, the last the mod-11 check digit; unique within the business; answered without dashes, ' +
          'and a request may also write it 20-12345678-6; null when unknown',
      }),
    ),
  },
  { $id: 'Client', title: 'Client' },
);

export const CreditStatus = OneOf(['active', 'refinanced', 'closed', 'written_off', 'inactive']);

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

/** An installment's delinquency as of the business's today: computed when it is read, never stored. */
export const Delinquency = Type.Object({ overdue: Type.Boolean(), days_late: Type.Integer() });

/**
 * What is owed as of the business's today, computed when it is read (an installment's, or a
 * credit's summed over its installments): punitory_posted (in the ledger), punitory_accrued (since
 * the last posting, not in the ledger yet), paid (amount and punitory), outstanding = amount +
 * punitory_posted + punitory_accrued − paid, negative when the client has paid more than owed (a
 * credit in their favour). The figures equal posting punitory every day, to the cent.
 */
export const Balance = Type.Object(
  { punitory_posted: Money, punitory_accrued: Money, paid: Money, outstanding: Money },
  {
    description:
      'as of today: outstanding = amount + punitory_posted + punitory_accrued − paid (negative: in the client’s favour); ' +
      'punitory_accrued is the punitory since the last posting, not in the ledger yet',
  },
);

export const Installment = Type.Object(
  {
    id: Uuid,
    credit_id: Uuid,
    number: Type.Integer(),
    amount: Money,
    due_date: CalendarDate,
    status: Type.Union([Type.Literal('pending'), Type.Literal('partial'), Type.Literal('paid')]),
    ...Delinquency.properties,
    created_at: DateTime,
    updated_at: DateTime,
    // extensions
    ...Balance.properties,
  },
  { $id: 'Installment', title: 'Installment' },
);

/** An item of the collections worklist (an extension): the installment, its client and its credit's number. */
export const WorklistItem = Type.Object({
  ...Installment.properties,
  client_id: Uuid,
  credit_sequential_id: Type.Integer({ description: "the credit's per-business number" }),
});

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

const DAYS = 36_500; // a century: anything longer is a typo
const Days = (description: string) => Type.Integer({ minimum: 0, maximum: DAYS, description });

// The defaults (DOMAIN.md) are the columns' defaults: they apply to the fields a new plan omits.
export const CreditConfig = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    name: Name,
    is_active: Type.Boolean({ description: 'default true' }),
    installments_count: Type.Integer({ minimum: 1, maximum: 12, description: 'default 1' }),
    days_until_first_payment: Days('default 30'),
    cut_type: CutType,
    daily_punitory_rate: RateInput('fraction a day: 0.005 = 0.5 % a day; default 0'),
    interest_rate: RateInput('flat fraction over the whole credit: 0.35 = 35 %; default 0'),
    payment_day: Type.Integer({
      minimum: 1,
      maximum: 28,
      description: 'day of month for cut_type monthly; default 10',
    }),
    grace_days: Days('tolerance before punitory applies; default 0'),
    punitory_mode: PunitoryMode,
    max_punitory_days: Days('0 = no limit; default 0'),
    punitory_cap_pct: RateInput('percentage of the installment amount: 50 = 50 %; 0 = no limit; default 0'),
    write_off_days: Days('days late that write a credit off in the daily run; 0 = never; default 0'),
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
    name: Name,
    // the contract types these string, not nullable: an unknown address or phone is ""
    address: Text,
    phone: Text,
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

/** A holiday of the business (an extension): not a business day, like Saturdays and Sundays. */
export const Holiday = Type.Object(
  {
    date: CalendarDate,
    name: Name,
    created_at: DateTime,
  },
  { $id: 'Holiday', title: 'Holiday' },
);
