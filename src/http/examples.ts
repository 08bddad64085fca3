import type { PlanFee } from '../domain/fees.ts';
// The examples of the OpenAPI document: one small story told by every operation, so the ids agree
// from one example to the next. Business "Demo" (time zone America/Argentina/Buenos_Aires) opens
// branch Centro and plan "Monthly 3" (3 monthly installments, 20 % flat interest, 0.2 % a day of
// punitory after 3 days of grace) on 2026-01-15, registers client Ana García and grants her a
// credit of 100,000; on 2026-03-20, 10 days after the first due date, she pays 45,000: 800 of
// punitory is posted, installment 1 is paid and 4,200 goes to installment 2. Reads are as of
// 2026-03-20 (the worklist's on 2026-04-22). The values were taken from the service's own answers to those requests;
// test/http/openapi.test.ts validates every example against the schema it illustrates.
const BUSINESS = '67d44529-a9ad-4a69-8019-ebe2ac7645a8';
const KEY = 'api_key:e2cb245c-742f-4033-88e5-20b08de8cf8c';
const BRANCH = 'ff64392d-cf5a-4e5a-88dd-c757c3926e1f';
const PLAN = '0e5dd6fd-5823-49a5-a280-d455f8c471c3';
const CLIENT = '5c705512-bb76-4e74-b3db-e2af6cdd0999';
const CREDIT = '90b211a7-894f-4d93-a1de-56f2118c5b92';
const INSTALLMENTS = [
  'b37dca0c-234a-410c-8a83-c5132d4db8dc',
  'b025b530-ac75-48f9-938f-8426223892ae',
  'ada7b2a1-d59e-48e6-82ff-16745a9f26d1',
] as const;
const PAYMENT = '7c1e9a52-3f4b-4d6e-8a90-b1c2d3e4f5a6';
const FILE = '3f1c2a9e-6b7d-4e21-9c55-0d8e2f4a7b16';
const SESSION = '852d5fef-909f-427c-904b-a34e015d22e5';
const TOKEN = 'ul_RVGLmkKieZcx1D-p-26NPswim9n6XPS-152RsssxHMg';

const OPENED = '2026-01-15T13:02:03.121Z';
const PAID = '2026-03-20T15:40:05.100Z';
/** The disclosed cost of the example credit (100,000 at 20 % flat in 3 monthly installments). */
const COST = { tna: 1.164123, tea: 2.037584, cft_tea: 1.208452 };
type LedgerOrigin = 'schedule' | 'payment' | 'accrual' | 'reversal' | 'rebate' | 'refinance' | 'correction';

export const ids = {
  business: BUSINESS,
  branch: BRANCH,
  plan: PLAN,
  client: CLIENT,
  credit: CREDIT,
  payment: PAYMENT,
  installment: INSTALLMENTS[0],
  file: FILE,
  session: SESSION,
  token: TOKEN,
};

export const branch = {
  id: BRANCH,
  business_id: BUSINESS,
  name: 'Centro',
  address: 'Av. Corrientes 1234',
  phone: '+54 11 4555-0000',
  created_at: '2026-01-15T13:02:00.100Z',
  updated_at: '2026-01-15T13:02:00.100Z',
  deleted_at: null,
};

export const branchInput = { name: 'Centro', address: 'Av. Corrientes 1234', phone: '+54 11 4555-0000' };

export const planInput = {
  name: 'Monthly 3',
  installments_count: 3,
  cut_type: 'monthly' as const,
  payment_day: 10,
  interest_rate: 0.2,
  daily_punitory_rate: 0.002,
  grace_days: 3,
};

export const plan = {
  id: PLAN,
  business_id: BUSINESS,
  name: 'Monthly 3',
  is_active: true,
  installments_count: 3,
  days_until_first_payment: 30,
  cut_type: 'monthly' as const,
  daily_punitory_rate: 0.002,
  interest_rate: 0.2,
  payment_day: 10,
  grace_days: 3,
  punitory_mode: 'simple_outstanding' as const,
  max_punitory_days: 0,
  punitory_cap_pct: 0,
  write_off_days: 0,
  created_at: '2026-01-15T13:02:01.107Z',
  updated_at: '2026-01-15T13:02:01.107Z',
  amortization: 'flat' as const,
  vat_rate: 0,
  business_day_rule: 'none' as const,
  policy: { max_central_bank_situation: 2, require_tax_active: true },
  fees: [] as PlanFee[],
};

export const simulation = {
  installments: [
    {
      number: 1,
      amount: 40000,
      due_date: '2026-03-10',
      principal: 33333.33,
      interest: 6666.67,
      vat: 0,
      insurance: 0,
      fees: 0,
    },
    {
      number: 2,
      amount: 40000,
      due_date: '2026-04-10',
      principal: 33333.33,
      interest: 6666.67,
      vat: 0,
      insurance: 0,
      fees: 0,
    },
    {
      number: 3,
      amount: 40000,
      due_date: '2026-05-10',
      principal: 33333.34,
      interest: 6666.66,
      vat: 0,
      insurance: 0,
      fees: 0,
    },
  ],
  total: 120000,
  cost: { tna: 1.164123, tea: 2.037584, cft_tea: 1.208452 },
  fees: [],
  disbursed: 100000,
};

export const clientInput = {
  dni: '30123456',
  first_name: 'Ana',
  last_name: 'García',
  email: 'ana.garcia@example.com',
  phone: '+54 11 5555-1234',
  city: 'Buenos Aires',
  cuit: '27-30123456-8',
};

export const client = {
  id: CLIENT,
  business_id: BUSINESS,
  first_name: 'Ana',
  last_name: 'García',
  dni: '30123456',
  sex: null,
  street: null,
  street_number: null,
  floor: null,
  apartment: null,
  city: 'Buenos Aires',
  state: null,
  country: null,
  zip_code: null,
  phone: '+54 11 5555-1234',
  alt_phone: null,
  email: 'ana.garcia@example.com',
  created_at: '2026-01-15T13:02:02.114Z',
  updated_at: '2026-01-15T13:02:02.114Z',
  cuit: '27301234568',
  notifications_opt_out: false,
};

export const creditInput = { credit_config_id: PLAN, amount: 100000, branch_id: BRANCH, start_date: '2026-01-15' };

export const credit = {
  id: CREDIT,
  client_id: CLIENT,
  credit_config_id: PLAN,
  amount: 100000,
  status: 'active' as const,
  refinanced_from_id: null,
  created_by: KEY,
  origin_transaction_reference: null,
  branch_id: BRANCH,
  sequential_id: 1,
  created_at: OPENED,
  updated_at: OPENED,
  written_off_at: null,
  write_off_reason: null,
  total: 120000,
  start_date: '2026-01-15',
  amortization: 'flat' as const,
  vat_rate: 0,
  collector_id: null as string | null,
  application_id: null,
  disbursed: 100000,
};

const DUE = ['2026-03-10', '2026-04-10', '2026-05-10'];

/** The installments the day the credit was granted. */
const newInstallments = INSTALLMENTS.map((id, i) => ({
  id,
  credit_id: CREDIT,
  number: i + 1,
  amount: 40000,
  due_date: DUE[i]!,
  status: 'pending' as 'pending' | 'partial' | 'paid',
  overdue: false,
  days_late: 0,
  created_at: OPENED,
  updated_at: OPENED,
  principal: [33333.33, 33333.33, 33333.34][i]!,
  interest: [6666.67, 6666.67, 6666.66][i]!,
  vat: 0,
  punitory_posted: 0,
  punitory_accrued: 0,
  charges: 0,
  waived: 0,
  paid: 0,
  outstanding: 40000,
  insurance: 0,
  fees: 0,
}));

/** The installments after the payment of 2026-03-20. */
const paidInstallments = [
  {
    ...newInstallments[0]!,
    status: 'paid' as const,
    days_late: 10,
    updated_at: PAID,
    punitory_posted: 800,
    paid: 40800,
    outstanding: 0,
  },
  { ...newInstallments[1]!, status: 'partial' as const, updated_at: PAID, paid: 4200, outstanding: 35800 },
  newInstallments[2]!,
];

const scheduleEntries = INSTALLMENTS.map((installment_id, i) => ({
  id: [
    'fe38cdf5-3d31-44e7-b0b2-284a6ea606ea',
    '2f38c936-47e6-4206-8341-3c6f9ef79a47',
    'c8a4e0d1-7b52-4f3e-a1d9-5e6f70819a2b',
  ][i]!,
  installment_id,
  type: 'installment' as 'installment' | 'punitory' | 'payment',
  amount: 40000,
  branch_id: BRANCH,
  created_by: KEY,
  created_at: OPENED,
  credit_id: CREDIT,
  effective_date: '2026-01-15',
  origin: 'schedule' as LedgerOrigin,
  payment_id: null as string | null,
}));

const paymentEntries = [
  {
    id: '1b2d723c-29af-4bc0-a3de-06b76b795445',
    installment_id: INSTALLMENTS[0],
    type: 'punitory' as const,
    amount: 800,
    branch_id: BRANCH,
    created_by: KEY,
    created_at: PAID,
    credit_id: CREDIT,
    effective_date: '2026-03-20',
    origin: 'accrual' as LedgerOrigin,
    payment_id: null,
  },
  {
    id: '8e5c5842-bf3a-4d57-816d-193b7a4a33e4',
    installment_id: INSTALLMENTS[0],
    type: 'payment' as const,
    amount: 40800,
    branch_id: BRANCH,
    created_by: KEY,
    created_at: PAID,
    credit_id: CREDIT,
    effective_date: '2026-03-20',
    origin: 'payment' as LedgerOrigin,
    payment_id: PAYMENT,
  },
  {
    id: 'e685f5cb-e5ae-4b93-881e-eb411005699b',
    installment_id: INSTALLMENTS[1],
    type: 'payment' as const,
    amount: 4200,
    branch_id: BRANCH,
    created_by: KEY,
    created_at: PAID,
    credit_id: CREDIT,
    effective_date: '2026-03-20',
    origin: 'payment' as LedgerOrigin,
    payment_id: PAYMENT,
  },
];

export const ledger = [...scheduleEntries, ...paymentEntries];

/** POST /api/clients/{clientId}/credits: the credit the day it was granted. */
export const creditCreated = {
  credit,
  installments: newInstallments,
  ledgerEntries: scheduleEntries,
  balance: {
    principal: 100000,
    interest: 20000,
    vat: 0,
    punitory_posted: 0,
    punitory_accrued: 0,
    charges: 0,
    waived: 0,
    paid: 0,
    outstanding: 120000,
    insurance: 0,
    fees: 0,
  },
  cost: COST,
};

export const paymentInput = {
  amount: 45000,
  paid_on: '2026-03-20',
  method: 'transfer' as const,
  channel: 'Banco Nación',
  external_reference: 'TRF-000123',
};

const balanceAfterPayment = {
  principal: 100000,
  interest: 20000,
  vat: 0,
  punitory_posted: 800,
  punitory_accrued: 0,
  charges: 0,
  waived: 0,
  paid: 45000,
  outstanding: 75800,
  insurance: 0,
  fees: 0,
};

/** GET /api/credits/{id}/payments */
export const payments = [
  {
    id: PAYMENT,
    credit_id: CREDIT,
    amount: 45000,
    paid_on: '2026-03-20',
    branch_id: BRANCH,
    created_by: KEY,
    created_at: PAID,
    reversed_at: null as string | null,
    reversal_reason: null as string | null,
    method: 'transfer' as const,
    channel: 'Banco Nación',
    external_reference: 'TRF-000123',
    kind: 'payment' as const,
  },
];

/**
 * GET /api/credits/{id}/payoff on 2026-04-01, after the payment of 2026-03-20: installment 2's
 * interest pro rata (22 of its 31 days: 4,731.18, of which 4,200 is paid), none of installment 3's.
 */
export const payoff = {
  as_of: '2026-04-01',
  amount: 67197.85,
  refundable: 0,
  breakdown: {
    due: 0,
    punitory: 0,
    charges: 0,
    principal: 66666.67,
    interest: 531.18,
    vat: 0,
    insurance: 0,
    fees: 0,
    rebate: 8602.15,
  },
};

/**
 * GET /api/credits/{id}/waivers: on 2026-03-20, before her payment, part of installment 1's
 * punitory was waived (the branch manager agreed; she had been in hospital).
 */
export const waivers = [
  {
    id: 'c4a81f3e-5b2d-4e6a-9f17-3d8b0e2a6c45',
    credit_id: CREDIT,
    installment_id: INSTALLMENTS[0],
    installment_number: 1,
    kind: 'punitory' as const,
    amount: 300,
    reason: 'hospitalised in March; agreed with the branch manager',
    created_by: KEY,
    created_at: '2026-03-20T15:31:44.020Z',
  },
];

/** POST /api/credits/{id}/payments: only the entries the payment created. */
/** The credit after a write that pays (a payment, a payoff close). */
export const writeResult = {
  credit,
  installments: paidInstallments,
  ledgerEntries: paymentEntries,
  balance: balanceAfterPayment,
  cost: COST,
};

export const paymentResult = {
  ...writeResult,
  payment_id: PAYMENT,
  method: 'transfer' as const,
  channel: 'Banco Nación',
  external_reference: 'TRF-0001234',
};

/** GET /api/credits/{id} after the payment. */
export const creditDetail = {
  credit,
  installments: paidInstallments,
  ledgerEntries: ledger,
  balance: balanceAfterPayment,
  cost: COST,
};

export const clientFile = {
  id: FILE,
  client_id: CLIENT,
  file_name: 'dni.pdf',
  file_url: `/api/files/${CLIENT}/dni.pdf`,
  file_type: 'application/pdf',
  file_size: 182044,
  created_at: '2026-01-15T13:05:41.220Z',
};

export const clientDetail = {
  client,
  credits: [credit],
  installments: paidInstallments,
  ledgerEntries: ledger,
  files: [clientFile],
  guarantees: [],
};

export const uploadSession = {
  id: SESSION,
  business_id: BUSINESS,
  client_id: CLIENT,
  created_by: KEY,
  created_at: PAID,
  expires_at: '2026-03-22T15:40:05.100Z',
  revoked_at: null,
  last_used_at: null,
  upload_count: 0,
  max_uploads: 20,
};

export const uploadLink = {
  session: uploadSession,
  upload_url: `https://lending.example.com/upload/${TOKEN}`,
  token: TOKEN,
};

export const auditEntry = {
  id: 'abafe6e5-0945-4f5a-9335-26733a61325e',
  table_name: 'clients',
  action: 'INSERT' as const,
  record_id: CLIENT,
  old_data: null,
  new_data: { ...client, created_at: '2026-01-15T13:02:02.114+00:00', updated_at: '2026-01-15T13:02:02.114+00:00' },
  business_id: BUSINESS,
  branch_id: null,
  changed_at: '2026-01-15T13:02:02.114Z',
  impersonated_by: null,
  actor: KEY,
};

/** The collections worklist read on 2026-04-22, 12 days after installment 2 fell due. */
export const worklistItem = {
  ...paidInstallments[1]!,
  status: 'partial' as const,
  overdue: true,
  days_late: 12,
  punitory_accrued: 859.2,
  charges: 0,
  waived: 0,
  outstanding: 36659.2,
  client_id: CLIENT,
  credit_sequential_id: 1,
  client_name: 'Ana García',
  collector_id: null as string | null,
  latest_promise: null as null | typeof promise,
  last_note: null as null | typeof note,
};

const zero = { amount: 0, ratio: 0 };
export const summary = {
  as_of: '2026-03-20',
  clients: 1,
  credits: { active: 1, refinanced: 0, closed: 0, written_off: 0, inactive: 0 },
  disbursed: 100000,
  disbursed_refinanced: 0,
  outstanding: 75800,
  written_off_outstanding: 0,
  overdue: 0,
  par: { par1: zero, par30: zero, par60: zero, par90: zero },
  situations: {
    '1': { clients: 1, outstanding: 75800 },
    '2': { clients: 0, outstanding: 0 },
    '3': { clients: 0, outstanding: 0 },
    '4': { clients: 0, outstanding: 0 },
    '5': { clients: 0, outstanding: 0 },
  },
  collected: { day: 45000, month: 45000 },
  branches: [{ branch_id: BRANCH, name: 'Centro', outstanding: 75800, overdue: 0, par30: zero }],
};

export const creditsCsv =
  'id,client_id,credit_config_id,amount,status,refinanced_from_id,created_by,origin_transaction_reference,branch_id,sequential_id,created_at,updated_at,written_off_at,write_off_reason,total,start_date\r\n' +
  `${CREDIT},${CLIENT},${PLAN},100000.00,active,,${KEY},,${BRANCH},1,${OPENED},${OPENED},,,120000.00,2026-01-15\r\n`;

// The business's holidays of the story's first months (Carnival Monday and Tuesday, the Day of
// Remembrance), entered when the business opened.
export const holidayInput = { date: '2026-03-24', name: 'Día de la Memoria' };

export const holiday = { ...holidayInput, created_at: '2026-01-15T13:01:58.300Z' };

export const holidays = [
  { date: '2026-02-16', name: 'Carnaval', created_at: '2026-01-15T13:01:58.100Z' },
  { date: '2026-02-17', name: 'Carnaval', created_at: '2026-01-15T13:01:58.200Z' },
  holiday,
];

/** A page of a list. */
export const page = <T>(items: T[], total = items.length, limit = 50, offset = 0) => ({ items, total, limit, offset });

const NEW_CREDIT = '4d0f6b8e-2a19-4c7e-9f31-b5a6c7d8e9f0';
const NEW_INSTALLMENTS = [
  '6e1a2b3c-4d5e-4f60-8172-839405162738',
  '7f2b3c4d-5e6f-4071-9283-94a516273849',
  '803c4d5e-6f70-4182-a394-a5b62738495a',
] as const;
const REFINANCED_AT = '2026-03-20T16:02:44.310Z';

/** POST /api/credits/{id}/refinance: a new credit of 80,000 on the same plan settles the 75,800 owed. */
export const refinanced = {
  credit: {
    ...credit,
    id: NEW_CREDIT,
    amount: 80000,
    refinanced_from_id: CREDIT,
    sequential_id: 2,
    created_at: REFINANCED_AT,
    updated_at: REFINANCED_AT,
    total: 96000,
    start_date: '2026-03-20',
  },
  installments: NEW_INSTALLMENTS.map((id, i) => ({
    ...newInstallments[i]!,
    id,
    credit_id: NEW_CREDIT,
    amount: 32000,
    principal: [26666.67, 26666.67, 26666.66][i]!,
    interest: [5333.33, 5333.33, 5333.34][i]!,
    due_date: ['2026-05-10', '2026-06-10', '2026-07-10'][i]!,
    created_at: REFINANCED_AT,
    updated_at: REFINANCED_AT,
    outstanding: 32000,
    insurance: 0,
    fees: 0,
  })),
  ledgerEntries: NEW_INSTALLMENTS.map((installment_id, i) => ({
    ...scheduleEntries[i]!,
    id: [
      '914d5e6f-7081-4293-b4a5-b6c738495a6b',
      'a25e6f70-8192-43a4-85b6-c7d8495a6b7c',
      'b36f7081-92a3-44b5-96c7-d8e95a6b7c8d',
    ][i]!,
    installment_id,
    created_at: REFINANCED_AT,
    credit_id: NEW_CREDIT,
    effective_date: '2026-03-20',
  })),
  balance: {
    principal: 80000,
    interest: 16000,
    vat: 0,
    punitory_posted: 0,
    punitory_accrued: 0,
    charges: 0,
    waived: 0,
    paid: 0,
    outstanding: 96000,
    insurance: 0,
    fees: 0,
  },
  cost: { tna: 1.164123, tea: 2.037584, cft_tea: 1.274803 },
};

// The statement and the receipt of the story, read on 2026-03-20 after the payment: the flat split
// of the interest (6,666.67, 6,666.67 and 6,666.66, principal the rest); the receipt's 4,200 on
// installment 2 goes to its interest first.
const documentHeader = {
  business: { id: BUSINESS, name: 'Demo' },
  client: { id: CLIENT, first_name: 'Ana', last_name: 'García', dni: '30123456', cuit: null },
  credit: {
    id: CREDIT,
    sequential_id: 1,
    status: 'active' as const,
    amount: 100000,
    total: 120000,
    start_date: '2026-01-15',
    branch_id: BRANCH,
    branch_name: 'Centro',
  },
};
const PARTS = [
  { principal: 33333.33, interest: 6666.67, vat: 0 },
  { principal: 33333.33, interest: 6666.67, vat: 0 },
  { principal: 33333.34, interest: 6666.66, vat: 0 },
];
const statementPayment = {
  id: PAYMENT,
  paid_on: '2026-03-20',
  amount: 45000,
  branch_id: BRANCH,
  branch_name: 'Centro',
  origin: 'payment' as const,
  created_by: KEY,
  created_at: PAID,
  reversed_at: null,
  reversal_reason: null,
  method: 'transfer' as const,
  channel: 'Banco Nación' as string | null,
  external_reference: 'TRF-000123' as string | null,
};

/** GET /api/credits/{id}/statement on 2026-03-20. */
export const statement = {
  as_of: '2026-03-20',
  ...documentHeader,
  installments: paidInstallments.map((i, k) => ({
    id: i.id,
    number: i.number,
    due_date: i.due_date,
    amount: i.amount,
    ...PARTS[k]!,
    status: i.status,
    overdue: i.overdue,
    days_late: i.days_late,
    punitory_posted: i.punitory_posted,
    punitory_accrued: i.punitory_accrued,
    charges: 0,
    waived: 0,
    paid: i.paid,
    outstanding: i.outstanding,
    insurance: 0,
    fees: 0,
  })),
  payments: [statementPayment],
  balance: balanceAfterPayment,
};

/** GET /api/credits/{id}/payments/{paymentId}/receipt of the payment of 2026-03-20. */
export const receipt = {
  as_of: '2026-03-20',
  ...documentHeader,
  payment: statementPayment,
  applied: [
    {
      installment_id: INSTALLMENTS[0],
      number: 1,
      due_date: '2026-03-10',
      amount: 40800,
      punitory: 800,
      principal: 33333.33,
      interest: 6666.67,
      vat: 0,
      outstanding_after: 0,
      insurance: 0,
      fees: 0,
      charges: 0,
    },
    {
      installment_id: INSTALLMENTS[1],
      number: 2,
      due_date: '2026-04-10',
      amount: 4200,
      punitory: 0,
      principal: 0,
      interest: 4200,
      vat: 0,
      outstanding_after: 35800,
      insurance: 0,
      fees: 0,
      charges: 0,
    },
  ],
  balance_after: balanceAfterPayment,
};

// A lead: Carlos Pérez asks Demo for 250,000 through its public form on 2026-03-18, and an
// employee converts him into a client on 2026-03-19.
const LEAD = 'c4a1e7d2-5b3f-4c8e-9a61-7f2d0b8e3c45';
const LEAD_CLIENT = '8e2b6f14-3c7a-4d59-b0e1-29f6a4c8d713';
export const leadIds = { lead: LEAD, client: LEAD_CLIENT, slug: 'demo-creditos' };

export const leadInput = {
  first_name: 'Carlos',
  last_name: 'Pérez',
  dni: '28456789',
  phone: '+54 11 5555-4321',
  email: 'carlos.perez@example.com',
  amount_requested: 250000,
  message: 'I would like to pay it in 12 months.',
  website: '',
};

export const lead = {
  id: LEAD,
  business_id: BUSINESS,
  first_name: 'Carlos',
  last_name: 'Pérez',
  dni: '28456789',
  phone: '+54 11 5555-4321',
  email: 'carlos.perez@example.com',
  amount_requested: 250000,
  message: 'I would like to pay it in 12 months.',
  status: 'new' as const,
  converted_client_id: null,
  converted_at: null,
  created_at: '2026-03-18T21:14:07.532Z',
  updated_at: '2026-03-18T21:14:07.532Z',
};

export const leadConversionInput = { city: 'Buenos Aires' };

export const leadClient = {
  ...client,
  id: LEAD_CLIENT,
  first_name: 'Carlos',
  last_name: 'Pérez',
  dni: '28456789',
  phone: '+54 11 5555-4321',
  email: 'carlos.perez@example.com',
  city: 'Buenos Aires',
  cuit: null,
  created_at: '2026-03-19T12:30:41.210Z',
  updated_at: '2026-03-19T12:30:41.210Z',
};

export const leadConverted = {
  ...lead,
  status: 'converted' as const,
  converted_client_id: LEAD_CLIENT,
  converted_at: '2026-03-19T12:30:41.210Z',
  updated_at: '2026-03-19T12:30:41.210Z',
};

export const events = {
  items: [
    {
      id: '1b7f3c2e-8d4a-4f6b-9e21-7a5c3d9e0f12',
      sequence: 41,
      type: 'client.created',
      created_at: '2026-01-15T13:02:02.114Z',
      data: { object: client },
    },
    {
      id: '9a2e4d6f-1c3b-4e5a-8f70-2b4c6d8e0a13',
      sequence: 42,
      type: 'credit.status_changed',
      created_at: '2026-03-20T15:40:05.100Z',
      data: { object: { ...credit, status: 'closed' }, previous_status: 'active' },
    },
  ],
  next_after: 42,
};

// Webhooks: the business's ERP registers an endpoint on 2026-01-15; Ana's payment on 2026-03-20
// is delivered on the second attempt (the first got a 503).
const WEBHOOK_ENDPOINT = 'c4a1e6f2-5b3d-4e7a-9c12-8f0d2b6a4e31';
export const webhookIds = {
  endpoint: WEBHOOK_ENDPOINT,
  delivery: 'd7e2f3a4-6c5b-4d8e-a1f0-3b2c4d5e6f70',
};
export const webhookEndpointInput = {
  url: 'https://erp.example.com/hooks/lending',
  events: ['payment.created', 'payment.reversed', 'credit.status_changed'] as (
    | 'payment.created'
    | 'payment.reversed'
    | 'credit.status_changed'
  )[],
  description: 'ERP: payments and credit statuses',
};
export const webhookEndpoint = {
  id: WEBHOOK_ENDPOINT,
  business_id: BUSINESS,
  ...webhookEndpointInput,
  enabled: true,
  disabled_at: null,
  disabled_reason: null,
  created_at: '2026-01-15T13:00:30.500Z',
  updated_at: '2026-01-15T13:00:30.500Z',
};
export const webhookEndpointCreated = {
  endpoint: webhookEndpoint,
  secret: 'whsec_3q2-7wQ0yvJH5mD1nR8tXc4bLk9ZpA6sFe0GuVi2OhM',
};
export const webhookDelivery = {
  id: webhookIds.delivery,
  endpoint_id: WEBHOOK_ENDPOINT,
  event_id: '5e8f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
  event_type: 'payment.created',
  sequence: 57,
  status: 'delivered' as 'pending' | 'delivered' | 'failed',
  attempt: 2,
  status_code: 200,
  error: null,
  created_at: PAID,
  last_attempt_at: '2026-03-20T15:40:36.512Z',
  next_attempt_at: null,
  delivered_at: '2026-03-20T15:40:36.690Z',
};

// Collections (docs/collections.md): a promise Ana made on a call, the note of that call, and
// the user who collects her credit.
export const COLLECTOR = '5d1e0c8a-7b2f-4c39-9a41-2f6e8d0b7c13';
export const promiseInput = { amount: 20000, promised_for: '2026-04-30', note: 'cobra el 29' };
export const promise = {
  id: '0b9f3c6e-2d41-4a7b-8e55-6c1d9a2f4e80',
  credit_id: CREDIT,
  amount: 20000,
  promised_for: '2026-04-30',
  status: 'pending' as const,
  note: 'cobra el 29',
  created_by: `user:${COLLECTOR}`,
  created_at: '2026-04-22T14:05:10.200Z',
};
export const noteInput = { channel: 'call' as const, outcome: 'promete pagar 20.000 el 30/04', credit_id: CREDIT };
export const note = {
  id: '9e2a7d41-6c3b-4f85-b0d2-1a8e5c7f3b69',
  client_id: CLIENT,
  credit_id: CREDIT,
  channel: 'call' as const,
  outcome: 'promete pagar 20.000 el 30/04',
  created_by: `user:${COLLECTOR}`,
  created_at: '2026-04-22T14:04:31.900Z',
};
/** A reminder e-mailed three days before installment 2 fell due. */
export const notification = {
  id: 'c4a1f0de-2b6e-4f1a-9d3c-7e8b5a6f4d21',
  client_id: CLIENT,
  user_id: null,
  credit_id: CREDIT,
  installment_id: INSTALLMENTS[1],
  kind: 'reminder_before_due' as const,
  offset_days: 3,
  channel: 'email' as const,
  to: 'ana.garcia@example.com',
  subject: 'Demo: tu cuota 2 vence en 3 días (12/04/2026)',
  status: 'sent' as const,
  attempts: 1,
  error: null,
  created_at: '2026-04-09T06:00:01.512Z',
  sent_at: '2026-04-09T06:00:02.040Z',
};
export const notificationsClient = CLIENT;
