// `lending report summary`: the portfolio figures of GET /api/reports/summary, as a readable
// table or (--json) the same JSON document.
import type { Command } from 'commander';
import { UsageError, table, record, type CliContext } from '../context.ts';
import { getBusiness } from '../../db/repositories/businesses.ts';
import { getBranch } from '../../db/repositories/branches.ts';
import { compareDates, isUuid, isValidDate, money, todayIn, toMoneyString } from '../../domain/index.ts';
import { portfolioSummary, SITUATIONS, type PortfolioSummary } from '../../services/reports.ts';

const SITUATION_LABEL = {
  '1': 'up to 31 days',
  '2': 'up to 90 days',
  '3': 'up to 180 days',
  '4': 'up to 365 days',
  '5': 'beyond 365 days',
};

const m = (n: number) => toMoneyString(money(n));
const pct = (r: number) => `${money(r).times(100).toFixed(2)} %`;

export function renderSummary(s: PortfolioSummary, title: string): string {
  const head = record({
    clients: s.clients,
    'credits active': s.credits.active,
    'credits refinanced': s.credits.refinanced,
    'credits closed': s.credits.closed,
    'credits written off': s.credits.written_off,
    'credits inactive': s.credits.inactive,
    disbursed: m(s.disbursed),
    outstanding: m(s.outstanding),
    'written off outstanding': m(s.written_off_outstanding),
    overdue: m(s.overdue),
    'collected on the day': m(s.collected.day),
    'collected in the month': m(s.collected.month),
  });
  const par = table(
    (['par1', 'par30', 'par60', 'par90'] as const).map((k) => ({
      bucket: k,
      amount: m(s.par[k].amount),
      share: pct(s.par[k].ratio),
    })),
    ['bucket', 'amount', 'share'],
  );
  const sit = table(
    SITUATIONS.map((k) => ({
      situation: `${k} (${SITUATION_LABEL[k]})`,
      clients: s.situations[k].clients,
      outstanding: m(s.situations[k].outstanding),
    })),
    ['situation', 'clients', 'outstanding'],
  );
  const branches = s.branches.length
    ? table(
        s.branches.map((b) => ({
          branch: b.name ?? '(no branch)',
          outstanding: m(b.outstanding),
          overdue: m(b.overdue),
          par30: m(b.par30.amount),
          'par30 share': pct(b.par30.ratio),
        })),
        ['branch', 'outstanding', 'overdue', 'par30', 'par30 share'],
      )
    : 'no branches';
  return [
    title,
    '',
    head,
    '',
    'Portfolio at risk (outstanding of credits whose oldest overdue installment is at least k days late)',
    par,
    '',
    'Debtor situations',
    sit,
    '',
    'Branches',
    branches,
  ].join('\n');
}

export function registerReport(r: Command, ctx: CliContext) {
  r.command('summary')
    .description('portfolio figures as of a date: the same as GET /api/reports/summary')
    .requiredOption('--business <id>', 'business id')
    .option('--as-of <date>', "figures as of this date (YYYY-MM-DD); default: the business's today")
    .option('--branch <id>', 'only the credits of this branch')
    .action(async (opts: { business: string; asOf?: string; branch?: string }) => {
      if (!isUuid(opts.business)) throw new UsageError('--business must be a uuid');
      if (opts.branch !== undefined && !isUuid(opts.branch)) throw new UsageError('--branch must be a uuid');
      if (opts.asOf !== undefined && !isValidDate(opts.asOf))
        throw new UsageError(`--as-of ${opts.asOf} is not a date (YYYY-MM-DD)`);
      const businessId = opts.business.toLowerCase();
      const branchId = opts.branch?.toLowerCase() ?? null;
      const { summary, title } = await ctx.withDb(async (db) => {
        const business = await getBusiness(db.kysely, businessId);
        if (!business) throw new UsageError(`no business ${businessId}`);
        const today = todayIn(business.timezone, ctx.clock());
        const asOf = opts.asOf ?? today;
        if (compareDates(asOf, today) > 0)
          throw new UsageError(`--as-of ${asOf} is after the business's today (${today})`);
        const branch = branchId ? await getBranch(db.kysely, businessId, branchId) : null;
        if (branchId && !branch) throw new UsageError(`no branch ${branchId} in business ${businessId}`);
        const summary = await portfolioSummary(db, null, {
          businessId,
          asOf,
          branchId,
          timezone: business.timezone,
          today,
        });
        const title = `Portfolio of ${business.name} as of ${asOf}${branch ? `, branch ${branch.name}` : ''}`;
        return { summary, title };
      });
      ctx.print(summary, () => renderSummary(summary, title));
    });
}
