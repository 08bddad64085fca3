import type { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { createDemo } from '../../services/demo.ts';

export function registerDemo(cmd: Command, ctx: CliContext) {
  cmd.action(async () => {
    const demo = await ctx.withDb((db) => createDemo(db, ctx.clock));
    ctx.print(
      { business: demo.business, keys: demo.keys, admin: demo.admin },
      () =>
        `Demo business "${demo.business.name}" (${demo.business.id})\n` +
        `  full key: ${demo.keys.full}\n  read key: ${demo.keys.read}\n` +
        `  console: sign in at /app as ${demo.admin.email} with the password ${demo.admin.password}\n` +
        `Keep the keys and the password now: they are not shown again.`,
    );
  });
}
