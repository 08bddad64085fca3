// The records of the contract (docs/api.md, "Records") and the scalar
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
/** An instant in a request (src/domain/instants.ts): RFC 3339 with an offset, Z or ±hh:mm. */
export const INSTANT_FORMAT = 'instant';
/** A date in a request: YYYY-MM-DD, a real calendar day from 0001-01-01 to 9999-12-31. */
export const DateInput = (description = 'YYYY-MM-DD') => Type.String({ format: DATE_FORMAT, description });
/** An instant in a request: RFC 3339 date-time with an offset (2026-01-15T13:02:00Z, 2026-01-15T10:02:00-03:00). */
export const InstantInput = (description: string, example: string) =>
  Type.String({ format: INSTANT_FORMAT, maxLength: 40, description, examples: [example] });
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
    notifications_opt_out: Type.Boolean({
      description: 'true: the client asked not to be reminded; no reminder is e-mailed to them (default false)',
    }),
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
    amortization: OneOf(['flat', 'french'], { description: "the plan's interest method when the credit was granted" }),
    vat_rate: Type.Number({ description: 'VAT on interest and punitory, a fraction (0.21 = 21 %)' }),
    collector_id: Nullable(Uuid),
    application_id: Nullable(Uuid),
    // the cash handed over: amount, less an origination fee (and its VAT) deducted from it
    disbursed: Money,
  },
  { $id: 'Credit', title: 'Credit' },
);

/** An installment's delinquency as of the business's today: computed when it is read, never stored. */
export const Delinquency = Type.Object({ overdue: Type.Boolean(), days_late: Type.Integer() });

/**
 * What is owed as of the business's today, computed when it is read (an installment's, or a
 * credit's summed over its installments): punitory_posted (in the ledger), punitory_accrued (since
 * the last posting, not in the ledger yet), charges (collection charges posted), waived (punitory
 * and charges waived), paid (amount, punitory and charges), outstanding = amount + punitory_posted
 * + punitory_accrued + charges − waived − paid, negative when the client has paid more than owed
 * (a credit in their favour). The figures equal posting punitory every day, to the cent.
 */
export const Balance = Type.Object(
  {
    punitory_posted: Money,
    punitory_accrued: Money,
    charges: Type.Number({ description: 'collection charges posted, VAT included' }),
    waived: Type.Number({ description: 'punitory and charges waived (no longer owed)' }),
    paid: Money,
    outstanding: Money,
  },
  {
    description:
      'as of today: outstanding = amount + punitory_posted + punitory_accrued + charges − waived − paid ' +
      '(negative: in the client’s favour); punitory_accrued is the punitory since the last posting, not in the ledger yet',
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
    principal: Money,
    interest: Money,
    vat: Money,
    ...Balance.properties,
    insurance: Money,
    fees: Money,
  },
  { $id: 'Installment', title: 'Installment' },
);

/** A credit's balance as of today: its installments' parts and figures summed. */
export const CreditBalance = Type.Object(
  { principal: Money, interest: Money, vat: Money, ...Balance.properties, insurance: Money, fees: Money },
  {
    description:
      'as of today: outstanding = principal + interest + insurance + fees + vat + punitory_posted + ' +
      'punitory_accrued + charges − waived − paid (vat: of the interest, the insurance and the fees) ' +
      '(paid counts payments and early-payoff rebates)',
  },
);

/** The disclosed cost (docs/domain.md, "Interest methods, VAT and disclosed cost"): fractions to 6 decimals. */
export const Cost = Type.Object(
  {
    tna: Type.Number({ description: 'nominal annual rate' }),
    tea: Type.Number({ description: 'effective annual rate: (1 + tna/12)^12 − 1' }),
    cft_tea: Nullable(
      Type.Number({
        description:
          'total financial cost as an effective annual rate: VAT included, actual days over 365 (null when no rate ' +
          'equates them: what falls due on the start date already repays more than was lent)',
      }),
    ),
  },
  { $id: 'Cost', title: 'Cost' },
);

export const PAYMENT_METHODS = ['cash', 'transfer', 'debit', 'card', 'collection_network', 'other'] as const;

/** How a payment was made and the reference its channel gave it (docs/payments.md). */
export const PaymentChannelFields = {
  method: OneOf([...PAYMENT_METHODS]),
  channel: Nullable(Type.String({ maxLength: 40, description: "e.g. the collection network's or bank's name" })),
  external_reference: Nullable(
    Type.String({
      maxLength: 100,
      description: "the channel's reference: with the channel, it identifies one payment of the business",
    }),
  ),
};

/** One payment request (the group of its ledger slices). */
/** A payment's amount: money (written as money is: a CSV gets the 2-decimal text), of either sign. */
export const PaymentAmount = Type.Number({
  description:
    'decimal amount, at most 2 decimals: the cash received (> 0); for a payoff close, minus the refund handed back (<= 0)',
});

export const Payment = Type.Object(
  {
    id: Uuid,
    credit_id: Uuid,
    amount: PaymentAmount,
    paid_on: CalendarDate,
    branch_id: Nullable(Uuid),
    created_by: Type.String(),
    created_at: DateTime,
    reversed_at: Nullable(DateTime),
    reversal_reason: Nullable(Type.String()),
    ...PaymentChannelFields,
    kind: OneOf(['payment', 'payoff_close'], {
      description:
        'payment: cash the client paid; payoff_close: the credit closed with no payment because what was paid exceeded the payoff (POST /api/credits/{id}/payoff), its amount minus the refund',
    }),
  },
  { $id: 'Payment', title: 'Payment' },
);

export const PromiseStatus = OneOf(['pending', 'kept', 'broken', 'cancelled']);

/** A promise to pay on a credit (collections, docs/collections.md). */
export const PromiseToPay = Type.Object(
  {
    id: Uuid,
    credit_id: Uuid,
    amount: Money,
    promised_for: CalendarDate,
    status: PromiseStatus,
    note: Nullable(Type.String({ maxLength: 2000 })),
    created_by: Type.String(),
    created_at: DateTime,
  },
  { $id: 'Promise', title: 'Promise' },
);

/** Punitory or charges of one installment taken off what is owed (docs/domain.md "Fees and charges"). */
export const Waiver = Type.Object(
  {
    id: Uuid,
    credit_id: Uuid,
    installment_id: Uuid,
    installment_number: Type.Integer({ description: 'the number of that installment in the schedule' }),
    kind: OneOf(['punitory', 'charge'], { description: 'what was waived: punitory or collection charges' }),
    amount: Money,
    reason: Type.String({ maxLength: 2000 }),
    created_by: Type.String(),
    created_at: DateTime,
  },
  { $id: 'Waiver', title: 'Waiver' },
);

export const NoteChannel = OneOf(['call', 'visit', 'whatsapp', 'email', 'sms', 'other']);

/** A contact with a client and its outcome (collections, docs/collections.md). */
export const Note = Type.Object(
  {
    id: Uuid,
    client_id: Uuid,
    credit_id: Nullable(Uuid),
    channel: NoteChannel,
    outcome: Type.String({ minLength: 1, maxLength: 2000 }),
    created_by: Type.String(),
    created_at: DateTime,
  },
  { $id: 'Note', title: 'Note' },
);

/** An import of payments from a CSV file (docs/payments.md, "Importing payments"). */
export const PaymentImport = Type.Object(
  {
    id: Uuid,
    status: OneOf(['running', 'done', 'failed'], {
      description: 'running until every line is decided; failed: the file could not be processed',
    }),
    lines: Type.Integer({ description: "the file's lines, its header aside" }),
    accepted: Type.Integer({ description: 'lines that made a payment' }),
    rejected: Type.Integer({ description: 'lines refused, each with its code and message' }),
    duplicates: Type.Integer({ description: "lines whose channel's reference was already paid" }),
    created_by: Type.String(),
    created_at: DateTime,
    finished_at: Nullable(DateTime),
  },
  { $id: 'PaymentImport', title: 'PaymentImport' },
);

/** One line of an import and its outcome. */
export const PaymentImportLine = Type.Object(
  {
    line: Type.Integer({ description: "the line's number in the file, the header being line 1" }),
    credit: Type.String({ description: 'the credit as the line names it (sequential id or uuid)' }),
    amount: Type.Union([Money, Type.Null()], { description: 'null when the line does not hold a valid amount' }),
    status: OneOf(['pending', 'accepted', 'rejected', 'duplicate']),
    code: Type.Union([Type.String(), Type.Null()], {
      description: 'why the line was rejected: the code the API would answer',
    }),
    message: Nullable(Type.String()),
    payment_id: Type.Union([Uuid, Type.Null()], {
      description: 'accepted: the payment made; duplicate: the payment that already holds the reference',
    }),
  },
  { $id: 'PaymentImportLine', title: 'PaymentImportLine' },
);

/** An item of the collections worklist (an extension): the installment, its client and its credit's number. */
export const WorklistItem = Type.Object({
  ...Installment.properties,
  client_id: Uuid,
  credit_sequential_id: Type.Integer({ description: "the credit's per-business number" }),
  client_name: Type.String({ description: "the client's first and last name" }),
  collector_id: Nullable(Uuid),
  latest_promise: Nullable(PromiseToPay),
  last_note: Nullable(Note),
});

export const LedgerEntry = Type.Object(
  {
    id: Uuid,
    installment_id: Uuid,
    type: Type.Union([
      Type.Literal('installment'),
      Type.Literal('punitory'),
      Type.Literal('payment'),
      Type.Literal('charge'),
      Type.Literal('waiver'),
    ]),
    amount: Money,
    branch_id: Nullable(Uuid),
    created_by: Type.String(),
    created_at: DateTime,
    // extensions
    credit_id: Uuid,
    effective_date: CalendarDate,
    origin: OneOf(
      ['schedule', 'payment', 'accrual', 'reversal', 'rebate', 'refinance', 'correction', 'fee', 'waiver'],
      {
        description:
          'why it exists: schedule (an installment), accrual (punitory posted), payment (cash), reversal (cancels a ' +
          'reversed payment), correction (a payment allocated again, or punitory recomputed), rebate (interest not owed ' +
          'at an early payoff), refinance (the settlement of a refinanced credit; no cash), fee (a collection charge ' +
          'posted; a correction takes one back when a payment recorded later shows the installment was paid in time), waiver (punitory or charges waived: negative, no cash)',
      },
    ),
    payment_id: Nullable(Uuid),
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

export const GuarantorRole = OneOf(['guarantor', 'co_borrower'], {
  description: 'guarantor: answers for the credit if the borrower does not; co_borrower: owes it with the borrower',
});

/** A client who backs a credit (docs/applications.md "Guarantors"). */
export const Guarantor = Type.Object(
  {
    id: Uuid,
    credit_id: Uuid,
    client_id: Uuid,
    role: GuarantorRole,
    created_at: DateTime,
  },
  { $id: 'Guarantor', title: 'Guarantor' },
);

/** A credit a client backs, as the client read shows it: its status and what it owes as of today. */
export const Guarantee = Type.Object(
  {
    id: Uuid,
    credit_id: Uuid,
    borrower_id: Uuid,
    role: GuarantorRole,
    status: CreditStatus,
    outstanding: Type.Number({ description: "the credit's outstanding as of today, as its own read shows it" }),
    created_at: DateTime,
  },
  { $id: 'Guarantee', title: 'Guarantee' },
);

export const ClientDetail = Type.Object(
  {
    client: ref(Client),
    credits: Type.Array(ref(Credit)),
    installments: Type.Array(ref(Installment)),
    ledgerEntries: Type.Array(ref(LedgerEntry)),
    files: Type.Array(ref(ClientFile)),
    // extensions
    guarantees: Type.Array(ref(Guarantee), {
      description: 'the credits the client backs as a guarantor or co-borrower',
    }),
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

/** A plan's fee (docs/domain.md, "Fees and charges"): at most one of each type. */
export const PlanFee = Type.Object(
  {
    type: OneOf(['origination', 'insurance', 'admin', 'collection'], {
      description:
        'origination: charged once, when the credit is granted (rate or amount); insurance: life insurance, rate a ' +
        'month × the principal outstanding at the start of each period, added to each installment; admin: a fixed ' +
        'amount added to each installment; collection: a fixed amount charged once on an installment after_days late',
    }),
    rate: Type.Optional(
      RateInput('origination: a fraction of the amount lent (0.03 = 3 %), or amount; insurance: a fraction a month'),
    ),
    amount: Type.Optional(
      Type.Number({
        format: MONEY_FORMAT,
        minimum: 0,
        maximum: MAX_MONEY,
        description:
          'origination: a fixed amount, or rate; admin: per installment; collection: per late installment (>= 0, ' +
          'at most 2 decimals)',
      }),
    ),
    vat: Type.Boolean({ description: "VAT at the plan's vat_rate on the fee" }),
    financed: Type.Optional(
      Type.Boolean({
        description:
          'origination only. true: added (with its VAT) to the principal the schedule is built on; false ' +
          "(default, answered when omitted): deducted from the cash handed over (the credit's disbursed)",
      }),
    ),
    after_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: DAYS, description: 'collection only: days late that charge it' }),
    ),
  },
  { additionalProperties: false },
);

// The defaults (docs/domain.md, "Credit plans") are the columns' defaults: they apply to the fields a new plan omits.
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
    // extensions
    amortization: OneOf(['flat', 'french'], {
      description:
        'flat (interest_rate is a flat fraction over the whole credit) or french (declining balance, equal ' +
        'installments; interest_rate is the nominal annual rate); default flat',
    }),
    vat_rate: RateInput('VAT on interest and punitory, a fraction: 0.21 = 21 %; default 0'),
    business_day_rule: OneOf(['none', 'next'], {
      description: 'next: a due date on a weekend or holiday moves to the next business day; default none',
    }),
    policy: Type.Object(
      {
        max_central_bank_situation: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: 5,
            description: 'the worst central bank situation accepted (1 normal … 5)',
          }),
        ),
        max_total_debt: Type.Optional(
          MoneyInput('the most the client may owe every entity together, in pesos, per the central bank'),
        ),
        require_tax_active: Type.Optional(
          Type.Boolean({
            description: "true: the client's CUIT must be active (ACTIVO) in the tax authority's register",
          }),
        ),
      },
      {
        additionalProperties: false,
        description:
          'the credit policy: each rule given becomes one check of an application submitted on the plan; default {} (no rule)',
      },
    ),
    fees: Type.Array(PlanFee, {
      maxItems: 4,
      description: 'fees charged on its credits, at most one of each type; default none',
    }),
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
    impersonated_by: Nullable(
      Type.String({ description: "the operator's email when an operator made the change acting as a user" }),
    ),
    actor: Type.String({
      description:
        'api_key:<key id>, user:<user id>, cli, upload_link:<session id>, lead (the public lead form) or system:<job>',
    }),
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

// ---------------------------------------------------------------- statement and receipt (documents a client takes home)

/** Who issues a statement or receipt: the business. */
const DocumentBusiness = Type.Object({ id: Uuid, name: Type.String() });

/** The client a statement or receipt is for. */
const DocumentClient = Type.Object({
  id: Uuid,
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  dni: Type.String(),
  cuit: Nullable(Type.String({ description: 'CUIT/CUIL, 11 digits without dashes; null when the client has none' })),
});

/** The credit a statement or receipt is about. */
const DocumentCredit = Type.Object({
  id: Uuid,
  sequential_id: Type.Integer({ description: "the credit's number within the business" }),
  status: CreditStatus,
  amount: Money,
  total: Money,
  start_date: CalendarDate,
  branch_id: Nullable(Uuid),
  branch_name: Nullable(Type.String({ description: "the branch's name (also when it was deleted since)" })),
});

/** An installment's parts (amount = principal + interest + vat): null where the credit does not record them. */
const InstallmentParts = {
  principal: Nullable(Money),
  interest: Nullable(Money),
  vat: Nullable(Money),
};

export const StatementInstallment = Type.Object({
  id: Uuid,
  number: Type.Integer(),
  due_date: CalendarDate,
  amount: Money,
  ...InstallmentParts,
  status: Type.Union([Type.Literal('pending'), Type.Literal('partial'), Type.Literal('paid')]),
  ...Delinquency.properties,
  ...Balance.properties,
  insurance: Money,
  fees: Money,
});

/** A payment as a statement and a receipt show it: the slices of one payment request, summed. */
export const StatementPayment = Type.Object({
  id: Uuid,
  paid_on: CalendarDate,
  amount: Money,
  branch_id: Nullable(Uuid),
  branch_name: Nullable(Type.String()),
  origin: OneOf(['payment', 'refinance'], {
    description:
      'payment: money the client paid; refinance: the balance settled when the credit was refinanced (moved to the new credit, no cash)',
  }),
  created_by: Type.String(),
  created_at: DateTime,
  reversed_at: Nullable(DateTime),
  reversal_reason: Nullable(Type.String()),
  ...PaymentChannelFields,
});

export const Statement = Type.Object(
  {
    as_of: CalendarDate,
    business: DocumentBusiness,
    client: DocumentClient,
    credit: DocumentCredit,
    installments: Type.Array(StatementInstallment),
    payments: Type.Array(StatementPayment, { description: 'oldest first; reversed ones stay, with reversed_at' }),
    balance: CreditBalance,
  },
  {
    $id: 'Statement',
    title: 'Statement',
    description:
      "A credit's statement as of the business's today: its schedule, what was paid and when, and what is owed (punitory accrued included); the same figures as the credit read",
  },
);

/** How a payment was applied to one installment (one ledger slice). */
export const ReceiptSlice = Type.Object(
  {
    installment_id: Uuid,
    number: Type.Integer(),
    due_date: CalendarDate,
    amount: Money,
    punitory: Money,
    ...InstallmentParts,
    outstanding_after: Money,
    insurance: Money,
    fees: Money,
    charges: Money,
  },
  {
    description:
      "amount = charges + punitory + what went to the installment's amount (principal + interest + vat + insurance + fees; " +
      "here vat is the interest's, insurance and fees carry their own VAT); outstanding_after: what the installment still owed right after",
  },
);

export const Receipt = Type.Object(
  {
    as_of: CalendarDate,
    business: DocumentBusiness,
    client: DocumentClient,
    credit: DocumentCredit,
    payment: StatementPayment,
    applied: Type.Array(ReceiptSlice, {
      description: 'per installment, in the order applied: punitory first, then the installment amount',
    }),
    balance_after: Type.Object(CreditBalance.properties, {
      description:
        "the credit's balance right after the payment was recorded (entries recorded up to it), as of its date",
    }),
  },
  {
    $id: 'Receipt',
    title: 'Receipt',
    description: 'The receipt of one payment: its amount and date, how it was applied, and the balance after it',
  },
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

// ---------------------------------------------------------------- leads (docs/leads.md)

/**
 * A business's slug, its name in public addresses (/public/{business_slug}/leads): lowercase ASCII
 * letters and digits in words joined by single hyphens, at most 63 characters. The database makes
 * one from the name when a business is created without one (migration 016).
 */
export const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';
export const SLUG_MAX = 63;
export const Slug = Type.String({
  minLength: 1,
  maxLength: SLUG_MAX,
  pattern: SLUG_PATTERN,
  description: 'lowercase letters and digits in words joined by single hyphens, at most 63 characters',
});

export const LeadStatus = OneOf(['new', 'converted'], {
  description: 'new: not handled yet; converted: a client was created from it (converted_client_id)',
});

const LeadName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });

/** Someone who asked the business for a credit through its public form. */
export const Lead = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    first_name: LeadName,
    last_name: LeadName,
    dni: Client.properties.dni,
    phone: Nullable(
      Type.String({
        maxLength: 40,
        pattern: '^[0-9+()./ -]*[0-9][0-9+()./ -]*$',
        description: 'digits, spaces and + ( ) . / -; at most 40 characters',
      }),
    ),
    email: Nullable(Type.String({ format: 'email', maxLength: 254 })),
    amount_requested: Nullable(Money),
    message: Nullable(Type.String({ maxLength: 2000 })),
    status: LeadStatus,
    converted_client_id: Nullable(Uuid),
    converted_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Lead', title: 'Lead' },
);

/** A business event (docs/events.md, "The event"): the feed's items and a webhook delivery's body. */
export const Event = Type.Object(
  {
    id: Uuid,
    sequence: Type.Integer({ description: 'dense per business, in commit order: the feed cursor' }),
    type: Type.String({ description: 'client.created, credit.status_changed, payment.created, …' }),
    created_at: DateTime,
    data: Type.Object(
      {
        object: Type.Object({}, { additionalProperties: true, description: 'the resource as its own read returns it' }),
        previous_status: Type.Optional(Type.String({ description: 'credit.status_changed only' })),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'Event', title: 'Event' },
);

// ---------------------------------------------------------------- notifications (docs/notifications.md)

export const NotificationKind = OneOf(['password_link', 'reminder_before_due', 'reminder_overdue']);
export const NotificationStatus = OneOf(['queued', 'sent', 'failed', 'not_configured']);

/** An e-mail the service sent (or tried to) to a client or a user. */
export const Notification = Type.Object(
  {
    id: Uuid,
    client_id: Nullable(Uuid),
    user_id: Nullable(Uuid),
    credit_id: Nullable(Uuid),
    installment_id: Nullable(Uuid),
    kind: NotificationKind,
    offset_days: Nullable(
      Type.Integer({ description: 'the reminder rule: days before the due date, or days late; null for others' }),
    ),
    channel: Type.Literal('email'),
    to: Type.String({ description: 'the address it was sent to' }),
    subject: Type.String(),
    status: NotificationStatus,
    attempts: Type.Integer({ description: 'delivery attempts made so far' }),
    error: Nullable(Type.String({ description: "the last attempt's failure, as the mail server gave it" })),
    created_at: DateTime,
    sent_at: Nullable(DateTime),
  },
  { $id: 'Notification', title: 'Notification' },
);

// ---------------------------------------------------------------- verifications (docs/verification.md)

const Situation = Type.Integer({
  description: "the central bank's debtor situation: 1 normal … 5 irrecoverable (6: by technical disposition)",
});

/** What the central bank's debtor registry says, in pesos (the registry reports thousands). */
export const CentralBankSummary = Type.Object(
  {
    name: Nullable(Type.String({ description: "the registry's name for the CUIT" })),
    period: Nullable(Type.String({ description: 'YYYY-MM: the latest month the entities reported' })),
    worst_situation: Nullable(Situation),
    total_debt: Type.Number({ description: 'pesos owed to every entity in that period' }),
    entities: Type.Array(
      Type.Object({
        name: Type.String(),
        situation: Situation,
        debt: Type.Number({ description: 'pesos' }),
        days_overdue: Nullable(Type.Integer()),
        refinanced: Type.Boolean(),
        mandatory_recategorization: Type.Boolean(),
        legal_situation: Type.Boolean({ description: 'in bankruptcy, a creditors’ arrangement or similar' }),
        technically_irrecoverable: Type.Boolean(),
        under_review: Type.Boolean(),
        in_court: Type.Boolean(),
      }),
    ),
    history: Type.Array(
      Type.Object({ period: Type.String(), worst_situation: Nullable(Situation), total_debt: Type.Number() }),
      { description: 'every month the registry keeps, newest first' },
    ),
    rejected_checks: Type.Integer({ description: 'bounced checks on file' }),
    rejected_checks_unpaid: Type.Integer({ description: 'of them, the checks without a payment date' }),
    rejected_checks_amount: Type.Number({ description: 'pesos, the checks’ face value' }),
  },
  { title: 'CentralBankSummary' },
);

/** What the tax authority's register (ARCA padrón A13) says. */
export const TaxAuthoritySummary = Type.Object(
  {
    name: Nullable(Type.String({ description: 'the company name, or the person’s surname and names' })),
    kind: OneOf(['person', 'company']),
    status: Nullable(Type.String({ description: 'the CUIT’s state as ARCA writes it: ACTIVO, INACTIVO, …' })),
    address: Nullable(
      Type.Object(
        {
          street: Nullable(Type.String()),
          city: Nullable(Type.String()),
          province: Nullable(Type.String()),
          postal_code: Nullable(Type.String()),
        },
        { description: 'the fiscal address' },
      ),
    ),
    activities: Type.Array(
      Type.Object({ id: Type.String(), description: Nullable(Type.String()), period: Nullable(Type.String()) }),
    ),
  },
  { title: 'TaxAuthoritySummary' },
);

export const VerificationSource = OneOf(['central_bank', 'tax_authority'], {
  description: "central_bank: the central bank's debtor registry; tax_authority: ARCA's taxpayer register",
});

export const Verification = Type.Object(
  {
    id: Uuid,
    client_id: Uuid,
    source: VerificationSource,
    cuit: Type.String({ description: 'the CUIT asked about: the client’s when it was asked, 11 digits' }),
    status: OneOf(['found', 'not_found'], { description: 'not_found: the registry has nothing on this CUIT' }),
    summary: Nullable(Type.Union([CentralBankSummary, TaxAuthoritySummary], { description: 'null when not found' })),
    raw: Type.Unknown({ description: "the registry's answers as received, keyed by the call that gave each" }),
    created_by: Type.String({ description: 'the actor who asked: api_key:<id>, user:<id>, cli, …' }),
    created_at: DateTime,
  },
  { $id: 'Verification', title: 'Verification' },
);

/** A webhook endpoint (docs/webhooks.md, "Endpoints"); its secret is shown only when it is created. */
export const WebhookEndpoint = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    url: Type.String({
      description: 'where deliveries are POSTed: https:// and public addresses (unless WEBHOOK_ALLOW_PRIVATE=true)',
    }),
    events: Type.Array(Type.String(), { description: 'the event types delivered, or ["*"] for all' }),
    description: Nullable(Type.String()),
    enabled: Type.Boolean({
      description: 'false: nothing is sent; events are kept and delivered once it is enabled again',
    }),
    disabled_at: Nullable(DateTime),
    disabled_reason: Nullable(
      Type.String({ description: 'why it was disabled: the delivery that failed for 3 days, or who disabled it' }),
    ),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'WebhookEndpoint', title: 'WebhookEndpoint' },
);

/** One event sent to one endpoint, with its last attempt (docs/webhooks.md). */
export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    endpoint_id: Uuid,
    event_id: Uuid,
    event_type: Type.String(),
    sequence: Type.Integer({ description: "the event's sequence" }),
    status: OneOf(['pending', 'delivered', 'failed'], {
      description:
        'pending: not yet answered 2xx (waiting its turn, backing off or in flight); failed: 3 days of failed attempts',
    }),
    attempt: Type.Integer({ description: 'attempts started so far' }),
    status_code: Nullable(Type.Integer({ description: "the last attempt's HTTP status; null without an answer" })),
    error: Nullable(Type.String({ description: 'what went wrong in the last attempt, in a line' })),
    created_at: DateTime,
    last_attempt_at: Nullable(DateTime),
    next_attempt_at: Nullable(DateTime),
    delivered_at: Nullable(DateTime),
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery' },
);

/** A business (tenant), as its users and the platform's operators see it. */
export const Business = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    timezone: Type.String({ description: 'IANA time zone: the business’s "today"' }),
    created_at: DateTime,
    updated_at: DateTime,
    slug: Type.String({
      description: 'its name in public addresses: the lead form is POST /public/{slug}/leads (docs/leads.md)',
    }),
  },
  { $id: 'Business', title: 'Business' },
);

export const UserRole = OneOf(['admin', 'employee', 'viewer'], {
  description:
    'viewer reads; employee also writes clients, credits, payments, files and upload links; admin also plans, branches, holidays, users, API keys and webhooks',
});

/** A person of a business who signs in (docs/users.md); the password is never shown, only whether and when one was set. */
export const User = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    email: Type.String({ description: 'lower-case; unique within the business', maxLength: 254 }),
    name: Nullable(Type.String({ maxLength: 200 })),
    role: UserRole,
    branch_id: Nullable(Uuid),
    created_at: DateTime,
    updated_at: DateTime,
    disabled_at: Nullable(DateTime),
    last_login_at: Nullable(DateTime),
    password_set_at: Nullable(DateTime),
  },
  { $id: 'User', title: 'User' },
);

/** An API key as shown after its creation: never the secret or its hash. */
export const ApiKey = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    name: Nullable(Type.String()),
    scope: OneOf(['read', 'full'], { description: 'read: GET only; full: every /api operation but /api/keys' }),
    prefix: Type.String({ description: 'the first characters of the secret, to tell keys apart' }),
    created_at: DateTime,
    last_used_at: Nullable(DateTime),
    revoked_at: Nullable(DateTime),
  },
  { $id: 'ApiKey', title: 'ApiKey' },
);

// ---------------------------------------------------------------- settings and applications (docs/applications.md)

/** At most 10 offsets, each 0..365 days, no repeats. */
const DayOffsets = (description: string) =>
  Type.Array(Type.Integer({ minimum: 0, maximum: 365 }), { maxItems: 10, uniqueItems: true, description });

export const Settings = Type.Object(
  {
    approval: Type.Object({
      required: Type.Boolean({ description: 'true: employees grant credits only through applications; default false' }),
      employee_limit: Nullable(
        MoneyInput('the largest amount an employee may approve; above it only admins; null (default): no limit'),
      ),
    }),
    reminders: Type.Object({
      enabled: Type.Boolean({ description: 'default false' }),
      before_due_days: DayOffsets('days before a due date a reminder is sent; default [3]'),
      overdue_days: DayOffsets('days after a due date a reminder is sent; default [1, 7]'),
    }),
    locale: OneOf(['es-AR', 'en'], { description: 'default es-AR' }),
    timezone: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'IANA time zone: the business\'s "today" (the business\'s own time zone)',
    }),
  },
  { $id: 'Settings', title: 'Settings' },
);

export const ApplicationStatus = OneOf(['submitted', 'approved', 'rejected', 'withdrawn', 'disbursed'], {
  description:
    'submitted (waiting a decision), approved, rejected, withdrawn (by its submitter before a decision), disbursed (a credit was created)',
});

export const ApplicationCheck = Type.Object({
  rule: OneOf(['max_central_bank_situation', 'max_total_debt', 'require_tax_active']),
  outcome: OneOf(['pass', 'fail', 'unknown'], {
    description: 'unknown: no verification of the client younger than VERIFICATION_TTL_HOURS to judge by',
  }),
  detail: Type.String(),
});

export const Application = Type.Object(
  {
    id: Uuid,
    client_id: Uuid,
    credit_config_id: Uuid,
    amount: Money,
    branch_id: Nullable(Uuid),
    start_date: Nullable(CalendarDate),
    guarantors: Type.Array(Type.Object({ client_id: Uuid, role: GuarantorRole })),
    note: Nullable(Type.String()),
    status: ApplicationStatus,
    checks: Type.Array(ApplicationCheck, { description: "the plan's policy judged when it was submitted" }),
    submitted_by: Type.String({ description: 'the actor who submitted it: user:<id>, api_key:<id>, …' }),
    decided_by: Nullable(Type.String()),
    decision_note: Nullable(Type.String({ description: "the approver's note, or the reason it was rejected" })),
    credit_id: Nullable(Uuid),
    disbursement_method: Nullable(Type.String()),
    disbursement_reference: Nullable(Type.String()),
    created_at: DateTime,
    decided_at: Nullable(DateTime),
    disbursed_at: Nullable(DateTime),
  },
  { $id: 'Application', title: 'Application' },
);
