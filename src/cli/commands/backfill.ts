import type { Command } from 'commander';
import { UsageError, table, type CliContext } from '../context.ts';
import { isUuid } from '../../domain/index.ts';
import { backfillCosts } from '../../services/lending/costBackfill.ts';

/** `lending backfill-cost`: stores the disclosed cost of credits granted before migration 045. */
export function registerBackfillCost(cmd: Command, ctx: CliContext) {
  cmd
    .option('--business <id>', 'only this business')
    .option('--batch <n>', 'credits a transaction (default 500)')
    .action(async (opts: { business?: string; batch?: string }) => {
      if (opts.business !== undefined && !isUuid(opts.business)) throw new UsageError('--business must be a uuid');
      const batch = opts.batch === undefined ? 500 : Number(opts.batch);
      if (!Number.isInteger(batch) || batch < 1 || batch > 10_000)
        throw new UsageError('--batch must be a whole number from 1 to 10000');
      const started = Date.now();
      const results = await ctx.withDb((db) =>
        backfillCosts(db, { businessId: opts.business?.toLowerCase(), batch, actor: 'cli' }),
      );
      const ms = Date.now() - started;
      ctx.print({ businesses: results, ms }, () =>
        results.length ? `${table(results, ['business_id', 'credits_filled'])}\n(${ms} ms)` : 'no businesses',
      );
    });
}
