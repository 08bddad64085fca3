// What the loan contract and the promissory note of a credit say (docs/api.md, "Contract and
// promissory note"): the parties, the money (amount, cash handed over, the schedule with every
// part its installments carry, the plan's fees) and the disclosed cost, with the CFT with and
// without VAT. Read in one snapshot; the HTTP layer lays it out as PDF (src/http/pdf/contract.ts).
// The credit's terms are as granted (they never change); the parties, the branch's address and the
// guarantors are read when printed.
import type { Kysely } from 'kysely';
import type { Client, Credit, DB, Installment } from '../db/schema.ts';
import { getBusiness } from '../db/repositories/businesses.ts';
import { getBranch } from '../db/repositories/branches.ts';
import { getClient } from '../db/repositories/clients.ts';
import { getCredit } from '../db/repositories/credits.ts';
import { guarantorsOfCredit } from '../db/repositories/guarantors.ts';
import { installmentsOfCredit } from '../db/repositories/installments.ts';
import { ledgerOfCredit } from '../db/repositories/ledger.ts';
import { Dec, creditCost, money, originationOf, toMoneyString, type Decimal } from '../domain/index.ts';
import { notFound } from '../domain/errors.ts';
import type { ActorContext } from './context.ts';
import { presentCost } from './present.ts';

/** A person who signs: the borrower, a guarantor or a co-borrower. */
export interface Party {
  first_name: string | null;
  last_name: string | null;
  dni: string;
  cuit: string | null;
  /** the address parts as stored (each may be null) */
  street: string | null;
  street_number: string | null;
  floor: string | null;
  apartment: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  country: string | null;
}

/** A fee as the credit keeps it from its plan (the known fields; a fee type added later keeps its own). */
export interface FeeTerms {
  type: string;
  rate?: number;
  amount?: number;
  vat?: boolean;
  financed?: boolean;
  after_days?: number;
}

export interface DocumentInstallment {
  number: number;
  due_date: string;
  /** what falls due, every part included ("1234.50") */
  amount: string;
  /** the parts of the amount (principal, interest, vat: the interest's, insurance, insurance_vat, fees, fees_vat), "1234.50" each */
  parts: Record<string, string>;
}

export interface CreditDocuments {
  /** the business's today: the day the document is printed */
  as_of: string;
  business: { name: string };
  /** the credit's branch (where it was granted), if it has one */
  branch: { name: string; address: string | null; phone: string | null } | null;
  client: Party;
  /** oldest first */
  guarantors: (Party & { role: 'guarantor' | 'co_borrower' })[];
  credit: {
    id: string;
    sequential_id: number;
    status: string;
    amount: string;
    /** the cash handed over: the amount less a deducted origination fee */
    disbursed: string;
    /** what the client repays: the installments' amounts added up */
    total: string;
    start_date: string;
    installments_count: number;
    amortization: string;
    /** fractions, as stored ("0.2") */
    interest_rate: string;
    vat_rate: string;
    daily_punitory_rate: string;
    grace_days: number;
    punitory_mode: string;
    /** 0: no limit */
    max_punitory_days: number;
    /** a percentage of the installment (50 = 50 %); "0": no limit */
    punitory_cap_pct: string;
    /** the origination fee charged, its VAT, both together, and whether it went into the principal */
    origination: { fee: string; vat: string; total: string; financed: boolean };
    fees: FeeTerms[];
    /** of a refinance: the credit it settled and the balance settled (no cash: only the rest is handed over); else null */
    refinanced_from: { sequential_id: number; settled: string } | null;
  };
  installments: DocumentInstallment[];
  /** The parts shown as the schedule's columns, in order: principal, interest and vat, then those not zero on some installment. */
  parts: string[];
  /** fractions to 6 decimals ("0.123456"); the CFT null when no rate equates the flows */
  cost: { tna: string; tea: string; cft_tea: string | null; cft_tea_without_vat: string | null };
}

/**
 * The parts of an installment's amount, in the schedule's order, each with the installment columns
 * it is made of (docs/domain.md, "Fees and charges"): the installment's `vat` holds the VAT of its
 * interest, insurance and fees together, so the interest's VAT is `vat` less the other two. The
 * parts add up to the amount; the first three always show, the others where some installment
 * carries them.
 */
const PARTS: { part: string; of: (i: Installment) => Decimal }[] = [
  { part: 'principal', of: (i) => money(i.principal) },
  { part: 'interest', of: (i) => money(i.interest) },
  { part: 'vat', of: (i) => money(i.vat).minus(money(i.insurance_vat)).minus(money(i.fees_vat)) },
  { part: 'insurance', of: (i) => money(i.insurance) },
  { part: 'insurance_vat', of: (i) => money(i.insurance_vat) },
  { part: 'fees', of: (i) => money(i.fees) },
  { part: 'fees_vat', of: (i) => money(i.fees_vat) },
];
const ALWAYS = new Set(['principal', 'interest', 'vat']);
/** The parts that are VAT: left out of the CFT without VAT. */
const VAT_PARTS = new Set(['vat', 'insurance_vat', 'fees_vat']);

/**
 * The schedule as the contract shows it: each installment with its money parts, and the parts
 * that make its columns (principal, interest and the interest's VAT, then insurance and fees with
 * their VAT where some installment carries them).
 */
export function scheduleParts(rows: readonly Installment[]): { installments: DocumentInstallment[]; parts: string[] } {
  const installments = rows.map((i) => ({
    number: i.number,
    due_date: i.due_date,
    amount: toMoneyString(money(i.amount)),
    parts: Object.fromEntries(PARTS.map(({ part, of }) => [part, toMoneyString(of(i))])),
  }));
  const parts = PARTS.map((p) => p.part).filter(
    (p) => ALWAYS.has(p) || installments.some((i) => !money(i.parts[p] ?? 0).isZero()),
  );
  return { installments, parts };
}

function party(c: Client): Party {
  return {
    first_name: c.first_name,
    last_name: c.last_name,
    dni: c.dni,
    cuit: c.cuit ?? null,
    street: c.street,
    street_number: c.street_number,
    floor: c.floor,
    apartment: c.apartment,
    city: c.city,
    state: c.state,
    zip_code: c.zip_code,
    country: c.country,
  };
}

const rate = (d: Decimal | number | null) => (d === null ? null : new Dec(d).toFixed(6));

/**
 * The CFT without VAT: the same equation as `cft_tea` (docs/domain.md, "Interest methods, VAT and
 * disclosed cost") with every VAT part left out of the installments, and the VAT of the
 * origination fee counted as handed over (it is the tax's, not the lender's price).
 */
function cftWithoutVat(c: Credit, installments: DocumentInstallment[], originationVat: Decimal): Decimal | null {
  const principal = installments.reduce((s, i) => s.plus(money(i.parts.principal ?? 0)), new Dec(0));
  return creditCost({
    amount: principal.gt(0) ? principal : money(c.amount),
    disbursed: money(c.disbursed).plus(originationVat),
    startDate: c.start_date,
    amortization: c.amortization,
    interestRate: money(c.interest_rate),
    installments: installments.map((i) => {
      const vat = Object.entries(i.parts)
        .filter(([k]) => VAT_PARTS.has(k))
        .reduce((s, [, v]) => s.plus(money(v)), new Dec(0));
      return {
        dueDate: i.due_date,
        amount: money(i.amount).minus(vat),
        principal: money(i.parts.principal ?? 0),
        interest: money(i.parts.interest ?? 0),
      };
    }),
  }).cft_tea;
}

/** The contract's and the note's contents for a credit of the caller's business (404 otherwise). */
export async function creditDocuments(db: Kysely<DB>, ctx: ActorContext, creditId: string): Promise<CreditDocuments> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const credit = await getCredit(trx, ctx.businessId, creditId);
      if (!credit) throw notFound('credit');
      const [business, client, rows, backers, branch] = await Promise.all([
        getBusiness(trx, ctx.businessId),
        getClient(trx, ctx.businessId, credit.client_id),
        installmentsOfCredit(trx, ctx.businessId, credit.id),
        guarantorsOfCredit(trx, ctx.businessId, credit.id),
        credit.branch_id ? getBranch(trx, ctx.businessId, credit.branch_id) : undefined,
      ]);
      if (!business || !client) throw notFound('credit');
      const guarantors = await Promise.all(
        backers.map(async (g) => {
          const c = await getClient(trx, ctx.businessId, g.client_id);
          if (!c) throw notFound('client');
          return { ...party(c), role: g.role };
        }),
      );

      const { installments, parts } = scheduleParts(rows);

      // the origination fee as charged; its VAT split as the plan's terms say (a credit whose
      // stored fee disagrees with its terms shows the stored fee, VAT unknown: none)
      const fees = (credit.fees ?? []) as unknown as FeeTerms[];
      const charged = money(credit.origination_fee);
      const terms = originationOf(credit.fees ?? [], money(credit.amount), money(credit.vat_rate));
      const origination = terms.total.eq(charged) ? terms : { fee: charged, vat: new Dec(0) };

      const refinanced = credit.refinanced_from_id
        ? await getCredit(trx, ctx.businessId, credit.refinanced_from_id)
        : undefined;
      const settled = refinanced
        ? (await ledgerOfCredit(trx, ctx.businessId, refinanced.id))
            .filter((e) => e.origin === 'refinance')
            .reduce((sum, e) => sum.plus(money(e.amount)), new Dec(0))
        : undefined;
      const cost = presentCost(credit, rows);
      return {
        as_of: ctx.today,
        business: { name: business.name },
        branch: branch ? { name: branch.name, address: branch.address, phone: branch.phone } : null,
        client: party(client),
        guarantors,
        credit: {
          id: credit.id,
          sequential_id: Number(credit.sequential_id),
          status: credit.status,
          amount: toMoneyString(money(credit.amount)),
          disbursed: toMoneyString(money(credit.disbursed)),
          total: toMoneyString(installments.reduce((s, i) => s.plus(money(i.amount)), new Dec(0))),
          start_date: credit.start_date,
          installments_count: credit.installments_count,
          amortization: credit.amortization,
          interest_rate: money(credit.interest_rate).toString(),
          vat_rate: money(credit.vat_rate).toString(),
          daily_punitory_rate: money(credit.daily_punitory_rate).toString(),
          grace_days: credit.grace_days,
          punitory_mode: credit.punitory_mode,
          max_punitory_days: credit.max_punitory_days,
          punitory_cap_pct: money(credit.punitory_cap_pct).toString(),
          origination: {
            fee: toMoneyString(origination.fee),
            vat: toMoneyString(origination.vat),
            total: toMoneyString(charged),
            financed: credit.origination_financed,
          },
          fees,
          refinanced_from:
            refinanced && settled
              ? { sequential_id: Number(refinanced.sequential_id), settled: toMoneyString(settled) }
              : null,
        },
        installments,
        parts,
        cost: {
          tna: rate(cost.tna)!,
          tea: rate(cost.tea)!,
          cft_tea: rate(cost.cft_tea),
          cft_tea_without_vat: rate(cftWithoutVat(credit, installments, origination.vat)),
        },
      };
    });
}
