import type { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { migrate } from '../../db/migrate.ts';

export function registerMigrate(program: Command, ctx: CliContext) {
  program
    .command('migrate')
    .description('apply pending database migrations (serve does it on start too)')
    .action(async () => {
      const applied = await ctx.withDb((db) => migrate(db), { migrate: false });
      ctx.print({ applied }, () => (applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date'));
    });
}
