import type { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { migrate } from '../../db/migrate.ts';

export function registerMigrate(cmd: Command, ctx: CliContext) {
  cmd.action(async () => {
    const applied = await ctx.withDb((db) => migrate(db), { migrate: false });
    ctx.print({ applied }, () => (applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date'));
  });
}
