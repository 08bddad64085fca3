// Rows to API records (the shapes of src/domain/records.ts): money to JSON numbers, delinquency computed for the business's today,
// internal columns (hashes, storage keys, term snapshots) left out.
import type { Branch, Credit, Installment, LedgerEntry, ClientFile, CreditConfig, UploadSession } from '../db/schema.ts';
import { delinquency, money, toMoneyNumber } from '../domain/index.ts';
import type { CreditDetailRows } from './lending.ts';

const num = (s: string | number) => toMoneyNumber(money(s));
const rate = (s: string | number) => Number(s);

export function presentCredit(c: Credit) {
  return {
    id: c.id,
    client_id: c.client_id,
    credit_config_id: c.credit_config_id,
    amount: num(c.amount),
    status: c.status,
    refinanced_from_id: c.refinanced_from_id,
    created_by: c.created_by,
    origin_transaction_reference: c.origin_transaction_reference,
    branch_id: c.branch_id,
    sequential_id: c.sequential_id,
    created_at: c.created_at,
    updated_at: c.updated_at,
    written_off_at: c.written_off_at,
    write_off_reason: c.write_off_reason,
    total: num(c.total),
    start_date: c.start_date,
  };
}

export function presentInstallment(i: Installment, today: string) {
  const d = delinquency({ dueDate: i.due_date, status: i.status, paidDate: i.paid_date }, today);
  return {
    id: i.id,
    credit_id: i.credit_id,
    number: i.number,
    amount: num(i.amount),
    due_date: i.due_date,
    status: i.status,
    overdue: d.overdue,
    days_late: d.days_late,
    created_at: i.created_at,
    updated_at: i.updated_at,
  };
}

export function presentLedgerEntry(e: LedgerEntry) {
  return {
    id: e.id,
    installment_id: e.installment_id,
    type: e.type,
    amount: num(e.amount),
    branch_id: e.branch_id,
    created_by: e.created_by,
    created_at: e.created_at,
    credit_id: e.credit_id,
    effective_date: e.effective_date,
  };
}

export function fileUrl(clientId: string, fileName: string) {
  return `/api/files/${clientId}/${encodeURIComponent(fileName)}`;
}

export function presentFile(f: ClientFile) {
  return {
    id: f.id,
    client_id: f.client_id,
    file_name: f.file_name,
    file_url: fileUrl(f.client_id, f.file_name),
    file_type: f.file_type,
    file_size: Number(f.file_size),
    created_at: f.created_at,
  };
}

export function presentCreditConfig(c: CreditConfig) {
  return {
    ...c,
    daily_punitory_rate: rate(c.daily_punitory_rate),
    interest_rate: rate(c.interest_rate),
    punitory_cap_pct: rate(c.punitory_cap_pct),
  };
}

export function presentUploadSession(s: UploadSession) {
  const { token_hash: _hidden, ...rest } = s;
  return rest;
}

export function presentBranch(b: Branch) {
  return { ...b, address: b.address ?? '', phone: b.phone ?? '' };
}

/** A credit with its installments (delinquency as of the business's today) and ledger entries. */
export function presentDetail(d: CreditDetailRows, today: string) {
  return {
    credit: presentCredit(d.credit),
    installments: d.installments.map((i) => presentInstallment(i, today)),
    ledgerEntries: d.ledgerEntries.map(presentLedgerEntry),
  };
}
