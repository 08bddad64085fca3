import type { Command } from 'commander';
import { UsageError, table, type CliContext } from '../context.ts';
import { isUuid, isValidDate, money, toMoneyNumber } from '../../domain/index.ts';
import { runAccrual } from '../../services/accrual.ts';

export function registerAccrue(cmd: Command, ctx: CliContext) {
  cmd
    .option(
      '--as-of <date>',
      "run as of this date (YYYY-MM-DD): post punitory up to the last day of the last month ended by then; write-offs only for today. Default and latest: each business's today",
    )
    .option('--business <id>', 'only this business')
    .action(async (opts: { asOf?: string; business?: string }) => {
      if (opts.asOf !== undefined && !isValidDate(opts.asOf))
        throw new UsageError(`--as-of ${opts.asOf} is not a date (YYYY-MM-DD)`);
      if (opts.business !== undefined && !isUuid(opts.business)) throw new UsageError('--business must be a uuid');
      const started = Date.now();
      const results = await ctx.withDb(async (db) => {
        try {
          return await runAccrual(db, {
            asOf: opts.asOf,
            businessId: opts.business?.toLowerCase(),
            actor: 'cli',
            clock: ctx.clock,
            mailConfigured: ctx.config.mail !== null,
            // each credit on stderr, whatever the output format; the counts are in the result
            onCredit: (r) =>
              ctx.io.stderr.write(
                r.kind === 'clamped'
                  ? `warning: credit ${r.credit_id} (business ${r.business_id}): punitory stopped at the storable maximum 999999999999.99\n`
                  : `warning: credit ${r.credit_id} (business ${r.business_id}) skipped, left for the next run: ${(r.error as Error)?.message ?? String(r.error)}\n`,
              ),
          });
        } catch (err) {
          if (/^no business /.test((err as Error).message)) throw new UsageError((err as Error).message);
          throw err;
        }
      });
      const ms = Date.now() - started;
      // money is a JSON number in every document the service prints (docs/api.md, "Money, rates, dates and ids")
      const doc = results.map((r) => ({ ...r, punitory_total: toMoneyNumber(money(r.punitory_total)) }));
      ctx.print({ businesses: doc, ms }, () =>
        results.length
          ? `${table(results, [
              'business_id',
              'as_of',
              'closed_through',
              'credits_accrued',
              'punitory_entries',
              'punitory_total',
              'written_off',
              'clamped',
              'skipped',
            ])}\n(${ms} ms)`
          : 'no businesses',
      );
    });
}
