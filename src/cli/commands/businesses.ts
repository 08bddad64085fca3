import type { Command } from 'commander';
import { UsageError, record, table, type CliContext } from '../context.ts';
import { createBusiness, listBusinesses } from '../../db/repositories/businesses.ts';
import { isValidTimeZone } from '../../domain/index.ts';

export function registerBusinesses(program: Command, ctx: CliContext) {
  const b = program.command('businesses').description('create and list businesses (tenants)');
  b.command('create')
    .description('create a business; prints it with its id')
    .requiredOption('--name <name>', 'business name')
    .option('--timezone <tz>', 'IANA time zone: the business\'s "today"', 'UTC')
    .action(async (opts: { name: string; timezone: string }) => {
      const name = opts.name.trim();
      if (!name || name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
      if (!isValidTimeZone(opts.timezone)) throw new UsageError(`--timezone ${opts.timezone} is not an IANA time zone (e.g. America/Argentina/Buenos_Aires)`);
      const business = await ctx.withDb((db) => createBusiness(db.kysely, { name, timezone: opts.timezone }));
      ctx.print(business, () => record(business));
    });
  b.command('list')
    .description('list businesses')
    .action(async () => {
      const rows = await ctx.withDb((db) => listBusinesses(db.kysely));
      ctx.print(rows, () => (rows.length ? table(rows, ['id', 'name', 'timezone', 'created_at']) : 'no businesses yet'));
    });
}
