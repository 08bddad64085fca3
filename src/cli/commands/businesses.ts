import type { Command } from 'commander';
import { record, table, type CliContext } from '../context.ts';
import { checkBusiness, createBusiness, listBusinesses } from '../../services/businesses.ts';

/** The time zone of a business created without --timezone: UTC, as DOMAIN.md decides ("timezone (IANA, default UTC)"). */
export const DEFAULT_TIMEZONE = 'UTC';

export function registerBusinesses(b: Command, ctx: CliContext) {
  b.command('create')
    .description('create a business; prints it with its id')
    .requiredOption('--name <name>', 'business name')
    .option('--timezone <tz>', `IANA time zone: the business's "today" (default: ${DEFAULT_TIMEZONE})`)
    .option(
      '--slug <slug>',
      'its name in public addresses (/public/<slug>/leads): lowercase letters, digits and hyphens; default: made from the name',
    )
    .action(async (opts: { name: string; timezone?: string; slug?: string }) => {
      // bad input is refused before the database is opened
      const input = checkBusiness({ ...opts, timezone: opts.timezone ?? DEFAULT_TIMEZONE });
      if (opts.timezone === undefined)
        ctx.io.stderr.write(
          `note: no --timezone given: the business's "today" is ${DEFAULT_TIMEZONE}'s (give --timezone to choose another)\n`,
        );
      const business = await ctx.withDb((db) => createBusiness(db, input));
      ctx.print(business, () => record(business));
    });
  b.command('list')
    .description('list businesses')
    .action(async () => {
      const rows = await ctx.withDb((db) => listBusinesses(db));
      ctx.print(rows, () =>
        rows.length ? table(rows, ['id', 'name', 'slug', 'timezone', 'created_at']) : 'no businesses yet',
      );
    });
}
