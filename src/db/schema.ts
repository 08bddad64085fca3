// Row types of the tables (src/db/migrations), as Kysely sees them. numeric and date columns
// arrive as strings (see the type parsers in connection.ts): money never passes through a float.
import type { Role } from '../domain/access.ts';
import type { PlanFee } from '../domain/fees.ts';
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Numeric = ColumnType<string, string | number, string | number>;
type DateStr = ColumnType<string, string, string>;

export interface BusinessesTable {
  id: Generated<string>;
  name: string;
  timezone: Generated<string>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** unique, [a-z0-9] words joined by hyphens; the database makes one from the name when none is given (migration 016) */
  slug: Generated<string>;
}

export interface BusinessSequencesTable {
  business_id: string;
  last_credit_seq: Generated<number>;
}

export interface ApiKeysTable {
  business_id: string;
  id: Generated<string>;
  name: string | null;
  scope: 'read' | 'full';
  prefix: string;
  key_hash: string;
  created_at: CreatedAt;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface BranchesTable {
  business_id: string;
  id: Generated<string>;
  name: string;
  address: string | null;
  phone: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  deleted_at: Date | null;
}

export interface ClientsTable {
  business_id: string;
  id: Generated<string>;
  first_name: string | null;
  last_name: string | null;
  dni: string;
  sex: 'm' | 'f' | 'o' | null;
  street: string | null;
  street_number: string | null;
  floor: string | null;
  apartment: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  zip_code: string | null;
  phone: string | null;
  alt_phone: string | null;
  email: string | null;
  /** migration 044: no reminders for this client */
  notifications_opt_out: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** 11 digits, no dashes (migration 009) */
  cuit: string | null;
}

/**
 * What the client search reads (migration 051): one row a client, written by the database's
 * triggers on clients (never by the app): created_at, dni and cuit as the client's, and folded, the
 * text "first last first" chr(1) email, lowercased and without Spanish accents.
 */
export interface ClientSearchTable {
  business_id: string;
  client_id: string;
  created_at: Date;
  dni: string;
  cuit: string | null;
  folded: string;
}

export type CutType = 'fixed' | 'monthly';
export type PunitoryMode = 'simple_outstanding' | 'compound' | 'full_amount';

export type Amortization = 'flat' | 'french';
export type BusinessDayRule = 'none' | 'next';

export interface CreditConfigsTable {
  business_id: string;
  id: Generated<string>;
  name: string;
  is_active: Generated<boolean>;
  installments_count: Generated<number>;
  days_until_first_payment: Generated<number>;
  cut_type: Generated<CutType>;
  daily_punitory_rate: ColumnType<string, string | number | undefined, string | number>;
  interest_rate: ColumnType<string, string | number | undefined, string | number>;
  payment_day: Generated<number>;
  grace_days: Generated<number>;
  punitory_mode: Generated<PunitoryMode>;
  max_punitory_days: Generated<number>;
  punitory_cap_pct: ColumnType<string, string | number | undefined, string | number>;
  write_off_days: Generated<number>;
  amortization: Generated<Amortization>;
  vat_rate: ColumnType<string, string | number | undefined, string | number>;
  business_day_rule: Generated<BusinessDayRule>;
  /** JSON: written as text (JSON.stringify), read as the array */
  fees: ColumnType<PlanFee[], string | undefined, string>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** the credit policy (migration 037): {max_central_bank_situation?, max_total_debt?, require_tax_active?} */
  policy: ColumnType<CreditPolicy, string | undefined, string>;
}

export interface CreditPolicy {
  max_central_bank_situation?: number;
  max_total_debt?: number;
  require_tax_active?: boolean;
}

export type CreditStatus = 'active' | 'refinanced' | 'closed' | 'written_off' | 'inactive';

export interface CreditsTable {
  business_id: string;
  id: Generated<string>;
  client_id: string;
  credit_config_id: string;
  amount: Numeric;
  total: Numeric;
  status: Generated<CreditStatus>;
  refinanced_from_id: string | null;
  created_by: string;
  origin_transaction_reference: string | null;
  branch_id: string | null;
  sequential_id: number;
  start_date: DateStr;
  installments_count: number;
  days_until_first_payment: number;
  cut_type: CutType;
  payment_day: number;
  interest_rate: Numeric;
  daily_punitory_rate: Numeric;
  grace_days: number;
  punitory_mode: PunitoryMode;
  max_punitory_days: number;
  punitory_cap_pct: Numeric;
  write_off_days: number;
  amortization: Generated<Amortization>;
  vat_rate: ColumnType<string, string | number | undefined, string | number>;
  business_day_rule: Generated<BusinessDayRule>;
  /** the plan's fees when the credit was granted */
  fees: ColumnType<PlanFee[], PlanFee[] | undefined, never>;
  /** the origination fee with its VAT, and whether it was added to the principal */
  origination_fee: ColumnType<string, string | undefined, never>;
  origination_financed: ColumnType<boolean, boolean | undefined, never>;
  /** generated: the cash handed over */
  disbursed: ColumnType<string, never, never>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  written_off_at: Date | null;
  write_off_reason: string | null;
  /** the user who collects the credit (migration 039) */
  collector_id: Generated<string | null>;
  /** the application disbursed into this credit (migration 037) */
  application_id: ColumnType<string | null, string | null | undefined, never>;
  /**
   * the disclosed cost as granted (migration 045), rates as numeric text: null tna = not stored (a
   * credit granted before it, until the backfill), computed on read; cft_tea is also null when no rate solves it
   */
  tna: ColumnType<string | null, string | null | undefined, string | null>;
  tea: ColumnType<string | null, string | null | undefined, string | null>;
  cft_tea: ColumnType<string | null, string | null | undefined, string | null>;
}

/** How far punitory has been posted on a credit (migration 002; not audited: derived from the ledger). */
export interface CreditAccrualsTable {
  business_id: string;
  credit_id: string;
  posted_through: DateStr;
}

/**
 * An installment's ledger entries summed, kept by the ledger's keep_balances trigger (migration
 * 052; written by the database only, read by the portfolio summary as of today).
 */
export interface InstallmentBalancesTable {
  business_id: string;
  credit_id: string;
  installment_id: string;
  balance: Numeric;
  punitory_posted: Numeric;
  charges_posted: Numeric;
  principal_paid: Numeric;
  last_paid_on: DateStr | null;
  /** the installment's, copied when its first entry is written (migration 058) */
  due_date: DateStr;
  amount: Numeric;
  /** follows the installment's (a trigger on its update) */
  tolerance_days: number;
  /** its payment entries in date order: dates, what each paid of the amount, of the punitory (with VAT) */
  paid_on: Generated<DateStr[]>;
  paid_principal: Generated<Numeric[]>;
  paid_punitory: Generated<Numeric[]>;
}

/** A credit's kept outstanding and the due date of its oldest open installment (migration 052). */
export interface CreditBalancesTable {
  business_id: string;
  credit_id: string;
  outstanding: Numeric;
  open_from: DateStr | null;
  /** bumped by every change of the credit: its kept figures are valid while fig_ver = ver (migration 062) */
  ver: Generated<number>;
  fig_on: DateStr | null;
  fig_ver: number | null;
  fig_added: Numeric | null;
  fig_overdue: Numeric | null;
  fig_days_late: number | null;
}

export type InstallmentStatus = 'pending' | 'partial' | 'paid';

export interface InstallmentsTable {
  business_id: string;
  id: Generated<string>;
  credit_id: string;
  number: number;
  amount: Numeric;
  due_date: DateStr;
  status: Generated<InstallmentStatus>;
  paid_date: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** the parts of amount (migration 008): principal + interest + vat = amount */
  principal: Numeric;
  interest: Numeric;
  vat: Numeric;
  /**
   * migration 046: the insurance and the admin fee, each with its VAT (inside vat):
   * principal + interest + insurance + fees + vat = amount
   */
  insurance: ColumnType<string, string | number | undefined, never>;
  insurance_vat: ColumnType<string, string | number | undefined, never>;
  fees: ColumnType<string, string | number | undefined, never>;
  fees_vat: ColumnType<string, string | number | undefined, never>;
  /** days from a due date that is not a business day to the next business day */
  tolerance_days: ColumnType<number, number | undefined, number>;
}

export type LedgerType = 'installment' | 'punitory' | 'payment' | 'charge' | 'waiver';
/** Why an entry exists (migrations 008, 047). */
export type LedgerOrigin =
  | 'schedule'
  | 'payment'
  | 'accrual'
  | 'reversal'
  | 'rebate'
  | 'refinance'
  | 'correction'
  | 'fee'
  | 'waiver';

export interface LedgerTable {
  business_id: string;
  id: Generated<string>;
  credit_id: string;
  installment_id: string;
  type: LedgerType;
  amount: Numeric;
  punitory_part: ColumnType<string, string | number | undefined, never>;
  vat_part: ColumnType<string, string | number | undefined, never>;
  interest_part: ColumnType<string, string | number | undefined, never>;
  /** what a payment slice paid of charges; a charge waiver's amount (migration 047) */
  charge_part: ColumnType<string, string | number | undefined, never>;
  /** migration 046: what a slice paid of the fees and of the insurance, their VAT included */
  fees_part: ColumnType<string, string | number | undefined, never>;
  insurance_part: ColumnType<string, string | number | undefined, never>;
  origin: LedgerOrigin;
  effective_date: DateStr;
  payment_id: string | null;
  branch_id: string | null;
  created_by: string;
  created_at: CreatedAt;
}

/** One payment request: the group of its ledger slices (migration 008). */
export interface PaymentsTable {
  business_id: string;
  id: Generated<string>;
  credit_id: string;
  amount: Numeric;
  paid_on: DateStr;
  branch_id: string | null;
  created_by: string;
  created_at: CreatedAt;
  reversed_at: Date | null;
  reversal_reason: string | null;
  reversed_by: string | null;
  /** migration 033 */
  method: Generated<PaymentMethod>;
  channel: string | null;
  external_reference: string | null;
}

export type PaymentMethod = 'cash' | 'transfer' | 'debit' | 'card' | 'collection_network' | 'other';
export type PaymentImportStatus = 'running' | 'done' | 'failed';
export type PaymentImportLineStatus = 'pending' | 'accepted' | 'rejected' | 'duplicate';

/** A CSV file of payments paid in the background (migration 034). */
export interface PaymentImportsTable {
  business_id: string;
  id: Generated<string>;
  status: Generated<PaymentImportStatus>;
  lines: number;
  accepted: Generated<number>;
  rejected: Generated<number>;
  duplicates: Generated<number>;
  created_by: string;
  branch_id: string | null;
  created_at: CreatedAt;
  finished_at: Date | null;
  lease_until: Date | null;
  /** the group of identical imports this one belongs to (migration 056); null until decided */
  same_file_as: string | null;
}

/** One line of an import as given, and its outcome (migration 034). */
export interface PaymentImportLinesTable {
  business_id: string;
  import_id: string;
  line: number;
  credit: string;
  amount: string;
  paid_on: string;
  method: string;
  channel: string;
  external_reference: string;
  status: Generated<PaymentImportLineStatus>;
  code: string | null;
  message: string | null;
  payment_id: string | null;
}

export interface UploadSessionsTable {
  business_id: string;
  id: Generated<string>;
  client_id: string;
  token_hash: string;
  created_by: string;
  created_at: CreatedAt;
  expires_at: Date | string;
  revoked_at: Date | null;
  last_used_at: Date | null;
  upload_count: Generated<number>;
  max_uploads: Generated<number>;
}

export interface ClientFilesTable {
  business_id: string;
  id: Generated<string>;
  client_id: string;
  file_name: string;
  file_type: string;
  file_size: ColumnType<number, number, number>;
  storage_key: string;
  upload_session_id: string | null;
  created_by: string;
  created_at: CreatedAt;
}

export interface IdempotencyKeysTable {
  business_id: string;
  /** who sent the key: api_key:<id>, or user:<id> with |<operator email> while impersonated (migration 021) */
  caller: string;
  /** SHA-256 of the Idempotency-Key, hex */
  key_digest: string;
  request_hash: string;
  status_code: number;
  /** the answer in the clear: rows stored before migration 018 only */
  response: unknown | null;
  /** the answer sealed under the Idempotency-Key (src/services/idempotency.ts) */
  sealed: Uint8Array | null;
  created_at: CreatedAt;
}

export interface AuditLogTable {
  business_id: string;
  id: Generated<string>;
  table_name: string;
  action: 'INSERT' | 'UPDATE' | 'DELETE';
  record_id: string;
  old_data: Record<string, unknown> | null;
  new_data: Record<string, unknown> | null;
  branch_id: string | null;
  actor: string;
  impersonated_by: string | null;
  changed_at: CreatedAt;
}

/** A business's holiday (migration 010); id only names the row in the audit log. */
export interface HolidaysTable {
  business_id: string;
  date: DateStr;
  name: string;
  id: Generated<string>;
  created_at: CreatedAt;
}

export type LeadStatus = 'new' | 'converted';

/** Someone who asked for a credit through the business's public form (migration 016). */
export interface LeadsTable {
  business_id: string;
  id: Generated<string>;
  first_name: string;
  last_name: string;
  dni: string;
  phone: string | null;
  email: string | null;
  amount_requested: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  message: string | null;
  status: Generated<LeadStatus>;
  converted_client_id: string | null;
  converted_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export type PromiseStatus = 'pending' | 'kept' | 'broken' | 'cancelled';

/** A promise to pay on a credit (migration 039); status 'pending' until decided for good. */
export interface PromisesTable {
  business_id: string;
  id: Generated<string>;
  credit_id: string;
  amount: Numeric;
  promised_for: DateStr;
  status: Generated<PromiseStatus>;
  note: string | null;
  created_by: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
  cancelled_at: Date | null;
  broken_at: Date | null;
}

export type NoteChannel = 'call' | 'visit' | 'whatsapp' | 'email' | 'sms' | 'other';

/** A contact with a client and its outcome (migration 039). */
export interface ClientNotesTable {
  business_id: string;
  id: Generated<string>;
  client_id: string;
  credit_id: string | null;
  channel: NoteChannel;
  outcome: string;
  created_by: string;
  created_at: CreatedAt;
}

/** How many rows audit_log has per business, table and action: the sum over shards (migration 006). */
export interface AuditLogCountsTable {
  business_id: string;
  table_name: string;
  action: 'INSERT' | 'UPDATE' | 'DELETE';
  shard: number;
  n: ColumnType<number, number, number>;
}

/** Per business: the last event sequence given; its row lock is the sequencer's (migrations 012, 025). */
export interface EventCountersTable {
  business_id: string;
  last_sequence: ColumnType<number, number | undefined, number>;
}

/** Committed events waiting for a sequencer pass to number them (migration 025). */
export interface EventOutboxTable {
  business_id: string;
  pos: Generated<number>;
  id: Generated<string>;
  type: string;
  ordering_key: string;
  data: ColumnType<Record<string, unknown>, string, never>;
  created_at: CreatedAt;
}

/** How far the daily run announced overdue installments, per business (migration 025). */
export interface OverdueAnnouncementsTable {
  business_id: string;
  through: DateStr | null;
}

/** One business event (migration 012): append-only, sequence dense per business. */
export interface EventsTable {
  business_id: string;
  sequence: number;
  id: Generated<string>;
  type: string;
  ordering_key: string;
  data: ColumnType<Record<string, unknown>, string, never>;
  created_at: CreatedAt;
}

/** A client verification against a registry (migration 017): written once. */
export interface VerificationsTable {
  business_id: string;
  id: Generated<string>;
  client_id: string;
  source: 'central_bank' | 'tax_authority';
  cuit: string;
  status: 'found' | 'not_found';
  summary: ColumnType<unknown, string | null, never>;
  raw: ColumnType<unknown, string, never>;
  created_by: string;
  created_at: CreatedAt;
}

/** An ARCA login ticket (migration 017): credentials, never answered nor audited. */
export interface ArcaTicketsTable {
  wsaa_url: string;
  cert_sha256: string;
  service: string;
  cuit: string;
  token: string;
  sign: string;
  expires_at: Timestamp;
  created_at: CreatedAt;
}

/** A webhook endpoint of a business (migration 013): audited; its secret and cursor live apart. */
export interface WebhookEndpointsTable {
  business_id: string;
  id: Generated<string>;
  url: string;
  events: string[];
  description: string | null;
  enabled: Generated<boolean>;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** An endpoint's signing secret and dispatch cursor (migration 013): never audited. */
export interface WebhookEndpointStateTable {
  business_id: string;
  endpoint_id: string;
  secret: string;
  last_sequence: ColumnType<number, number, number>;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event to one endpoint (migration 013). */
export interface WebhookDeliveriesTable {
  business_id: string;
  id: Generated<string>;
  endpoint_id: string;
  event_sequence: number;
  event_id: string;
  event_type: string;
  ordering_key: string;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  attempt: ColumnType<number, number | undefined, number>;
  status_code: number | null;
  error: string | null;
  created_at: ColumnType<Date, Date | string, never>;
  first_attempt_at: Date | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
}

/** A person of a business who signs in (migration 015); password_hash never leaves src/db. */
export interface UsersTable {
  business_id: string;
  id: Generated<string>;
  email: string;
  name: string | null;
  role: Role;
  branch_id: string | null;
  password_hash: string | null;
  password_set_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  disabled_at: Date | null;
  last_login_at: Date | null;
}

/** An operator of the platform: no business (migration 015). */
export interface OperatorsTable {
  id: Generated<string>;
  email: string;
  name: string | null;
  password_hash: string | null;
  password_set_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  disabled_at: Date | null;
  last_login_at: Date | null;
}

/** A server-side session: a user's, an operator's own, or an impersonation (both set). */
export interface SessionsTable {
  id: Generated<string>;
  token_hash: string;
  csrf_hash: string;
  business_id: string | null;
  user_id: string | null;
  operator_id: string | null;
  created_at: Date | string;
  last_seen_at: Date | string;
  expires_at: Date | string;
  /** the impersonation this session runs (an operator acting as its user), else null (migration 020) */
  impersonation_id: string | null;
}

/** An operator acting as a user of a business, from start to stop (migration 020; audited). */
export interface ImpersonationsTable {
  business_id: string;
  id: Generated<string>;
  operator_id: string;
  operator_email: string;
  user_id: string;
  started_at: Date | string;
  ended_at: Date | string | null;
}

/** A one-time set-password link of a user or an operator. */
export interface PasswordTokensTable {
  id: Generated<string>;
  token_hash: string;
  business_id: string | null;
  user_id: string | null;
  operator_id: string | null;
  created_at: Date | string;
  expires_at: Date | string;
  used_at: Date | string | null;
}

/** Sign-in attempts counted per hashed subject (an email or an address) in a fixed window. */
export interface LoginFailuresTable {
  subject_hash: string;
  failures: number;
  window_started_at: Date | string;
  /** the subject's latest attempt: a progressive delay counts from it (migration 020) */
  last_attempt_at: Generated<Date | string>;
}

/** A business's settings (migration 036); a business without a row has the defaults. */
export interface BusinessSettingsTable {
  business_id: string;
  id: Generated<string>;
  approval_required: boolean;
  employee_limit: ColumnType<string | null, string | number | null, string | number | null>;
  reminders_enabled: boolean;
  before_due_days: number[];
  overdue_days: number[];
  locale: string;
  updated_at: Timestamp;
}

export type ApplicationStatus = 'submitted' | 'approved' | 'rejected' | 'withdrawn' | 'disbursed';
export interface ApplicationCheck {
  rule: string;
  outcome: 'pass' | 'fail' | 'unknown';
  detail: string;
}
export interface ApplicationGuarantor {
  client_id: string;
  role: 'guarantor' | 'co_borrower';
}

/** A credit application (migration 037). */
export interface ApplicationsTable {
  business_id: string;
  id: Generated<string>;
  client_id: string;
  credit_config_id: string;
  amount: Numeric;
  branch_id: string | null;
  start_date: DateStr | null;
  guarantors: ColumnType<ApplicationGuarantor[], string, string>;
  note: string | null;
  status: Generated<ApplicationStatus>;
  checks: ColumnType<ApplicationCheck[], string, string>;
  submitted_by: string;
  decided_by: string | null;
  decision_note: string | null;
  credit_id: string | null;
  disbursement_method: string | null;
  disbursement_reference: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  decided_at: Date | null;
  disbursed_at: Date | null;
}

/** A guarantor or co-borrower of a credit (migration 038). */
export interface CreditGuarantorsTable {
  business_id: string;
  id: Generated<string>;
  credit_id: string;
  client_id: string;
  role: 'guarantor' | 'co_borrower';
  created_by: string;
  created_at: CreatedAt;
}

/** Why and by whom punitory or charges were waived: one row per waiver ledger entry, same id (migration 047). */
export interface WaiversTable {
  business_id: string;
  id: string;
  credit_id: string;
  installment_id: string;
  kind: 'punitory' | 'charge';
  amount: Numeric;
  reason: string;
  created_by: string;
  created_at: CreatedAt;
}

export interface DB {
  waivers: WaiversTable;
  business_settings: BusinessSettingsTable;
  applications: ApplicationsTable;
  credit_guarantors: CreditGuarantorsTable;
  businesses: BusinessesTable;
  business_sequences: BusinessSequencesTable;
  api_keys: ApiKeysTable;
  branches: BranchesTable;
  clients: ClientsTable;
  client_search: ClientSearchTable;
  credit_configs: CreditConfigsTable;
  credits: CreditsTable;
  credit_accruals: CreditAccrualsTable;
  installment_balances: InstallmentBalancesTable;
  credit_balances: CreditBalancesTable;
  installments: InstallmentsTable;
  ledger: LedgerTable;
  payments: PaymentsTable;
  payment_imports: PaymentImportsTable;
  payment_import_lines: PaymentImportLinesTable;
  upload_sessions: UploadSessionsTable;
  client_files: ClientFilesTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_log: AuditLogTable;
  audit_log_counts: AuditLogCountsTable;
  holidays: HolidaysTable;
  leads: LeadsTable;
  promises: PromisesTable;
  client_notes: ClientNotesTable;
  event_counters: EventCountersTable;
  event_outbox: EventOutboxTable;
  overdue_announcements: OverdueAnnouncementsTable;
  events: EventsTable;
  verifications: VerificationsTable;
  arca_tickets: ArcaTicketsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_endpoint_state: WebhookEndpointStateTable;
  webhook_deliveries: WebhookDeliveriesTable;
  users: UsersTable;
  operators: OperatorsTable;
  sessions: SessionsTable;
  password_tokens: PasswordTokensTable;
  login_failures: LoginFailuresTable;
  impersonations: ImpersonationsTable;
  notifications: NotificationsTable;
}

export type NotificationKind = 'password_link' | 'reminder_before_due' | 'reminder_overdue';
export type NotificationStatus = 'queued' | 'sent' | 'failed' | 'not_configured';

/** Migration 044: an e-mail to a client or a user, and what became of it. */
export interface NotificationsTable {
  business_id: string;
  id: Generated<string>;
  client_id: string | null;
  user_id: string | null;
  credit_id: string | null;
  installment_id: string | null;
  kind: NotificationKind;
  offset_days: number | null;
  channel: Generated<'email'>;
  to: string;
  subject: string;
  body: string | null;
  status: NotificationStatus;
  attempts: Generated<number>;
  error: string | null;
  next_attempt_at: Date | null;
  lease_until: Date | null;
  created_at: CreatedAt;
  sent_at: Date | null;
}

export type Business = Selectable<BusinessesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type Branch = Selectable<BranchesTable>;
export type Client = Selectable<ClientsTable>;
export type NewClient = Insertable<ClientsTable>;
export type ClientUpdate = Updateable<ClientsTable>;
export type CreditConfig = Selectable<CreditConfigsTable>;
export type Credit = Selectable<CreditsTable>;
export type BusinessSettingsRow = Selectable<BusinessSettingsTable>;
export type ApplicationRow = Selectable<ApplicationsTable>;
export type GuarantorRow = Selectable<CreditGuarantorsTable>;
export type Installment = Selectable<InstallmentsTable>;
export type LedgerEntry = Selectable<LedgerTable>;
export type Payment = Selectable<PaymentsTable>;
export type PaymentImport = Selectable<PaymentImportsTable>;
export type PaymentImportLine = Selectable<PaymentImportLinesTable>;
export type UploadSession = Selectable<UploadSessionsTable>;
export type ClientFile = Selectable<ClientFilesTable>;
export type AuditLogEntry = Selectable<AuditLogTable>;
export type Holiday = Selectable<HolidaysTable>;
export type PromiseRow = Selectable<PromisesTable>;
export type WaiverRow = Selectable<WaiversTable>;
export type ClientNote = Selectable<ClientNotesTable>;
export type Lead = Selectable<LeadsTable>;
export type EventRow = Selectable<EventsTable>;
export type VerificationRow = Selectable<VerificationsTable>;
export type WebhookEndpoint = Selectable<WebhookEndpointsTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type UserRow = Selectable<UsersTable>;
export type NotificationRow = Selectable<NotificationsTable>;
export type OperatorRow = Selectable<OperatorsTable>;
export type SessionRow = Selectable<SessionsTable>;
