// Credit applications (docs/applications.md): the checks a plan's policy makes of a client, from
// the client's latest verifications, and who may decide an application. Pure.
import { Dec } from './money.ts';

export interface CreditPolicy {
  max_central_bank_situation?: number;
  max_total_debt?: number;
  require_tax_active?: boolean;
}

export type CheckRule = 'max_central_bank_situation' | 'max_total_debt' | 'require_tax_active';
export interface Check {
  rule: CheckRule;
  outcome: 'pass' | 'fail' | 'unknown';
  detail: string;
}

/** A verification as the checks read it; null when the client has none fresh of that source. */
export interface SeenVerification {
  status: 'found' | 'not_found';
  summary: unknown;
  created_at: Date;
}

const when = (v: SeenVerification) => v.created_at.toISOString();

/**
 * One check per rule the policy sets (require_tax_active only when true), in the order of the
 * policy's declaration. A source without a fresh verification makes its checks unknown. A CUIT the
 * central bank has nothing on owes nothing and is in situation 1.
 */
export function policyChecks(
  policy: CreditPolicy,
  seen: { centralBank: SeenVerification | null; taxAuthority: SeenVerification | null },
): Check[] {
  const checks: Check[] = [];
  const bank = seen.centralBank;
  const bankSummary =
    bank?.status === 'found' ? (bank.summary as { worst_situation: number | null; total_debt: number }) : null;
  const noBank = 'no central bank verification of the client younger than VERIFICATION_TTL_HOURS';

  if (policy.max_central_bank_situation !== undefined) {
    const max = policy.max_central_bank_situation;
    if (!bank) checks.push({ rule: 'max_central_bank_situation', outcome: 'unknown', detail: noBank });
    else {
      const worst = bankSummary?.worst_situation ?? 1;
      checks.push({
        rule: 'max_central_bank_situation',
        outcome: worst <= max ? 'pass' : 'fail',
        detail: `worst situation ${worst} (at most ${max}) per the central bank on ${when(bank)}`,
      });
    }
  }
  if (policy.max_total_debt !== undefined) {
    const max = new Dec(policy.max_total_debt);
    if (!bank) checks.push({ rule: 'max_total_debt', outcome: 'unknown', detail: noBank });
    else {
      const debt = new Dec(bankSummary?.total_debt ?? 0);
      checks.push({
        rule: 'max_total_debt',
        outcome: debt.lte(max) ? 'pass' : 'fail',
        detail: `total debt ${debt.toFixed(2)} (at most ${max.toFixed(2)}) per the central bank on ${when(bank)}`,
      });
    }
  }
  if (policy.require_tax_active === true) {
    const tax = seen.taxAuthority;
    if (!tax)
      checks.push({
        rule: 'require_tax_active',
        outcome: 'unknown',
        detail: 'no tax authority verification of the client younger than VERIFICATION_TTL_HOURS',
      });
    else {
      const status = tax.status === 'found' ? ((tax.summary as { status: string | null }).status ?? null) : null;
      const active = status?.trim().toUpperCase() === 'ACTIVO';
      checks.push({
        rule: 'require_tax_active',
        outcome: active ? 'pass' : 'fail',
        detail:
          tax.status === 'not_found'
            ? `the CUIT is not in the tax authority's register (${when(tax)})`
            : `the CUIT is ${status ?? 'of unknown state'} in the tax authority's register (${when(tax)})`,
      });
    }
  }
  return checks;
}

export type Decider = { kind: 'admin' } | { kind: 'employee' };

/**
 * Why this decider may not approve an application of `amount` (a sentence), or null when they may:
 * employees up to the limit (null: no limit), admins and full keys any amount.
 */
export function approvalLimitProblem(decider: Decider, amount: string, employeeLimit: number | null): string | null {
  if (decider.kind === 'admin' || employeeLimit === null) return null;
  if (new Dec(amount).lte(new Dec(employeeLimit))) return null;
  return `employees approve up to ${new Dec(employeeLimit).toFixed(2)} (approval.employee_limit); an admin must approve ${new Dec(amount).toFixed(2)}`;
}
