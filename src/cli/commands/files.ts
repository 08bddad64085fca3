import type { Command } from 'commander';
import { UsageError, type CliContext } from '../context.ts';
import { SWEEP_GRACE_MS, sweepOrphanFiles } from '../../services/files.ts';

export function registerFiles(files: Command, ctx: CliContext) {
  files
    .command('sweep')
    .description(
      'remove stored bytes no file record points at, and temporary files of interrupted uploads (the server does this hourly)',
    )
    .option(
      '--grace-minutes <n>',
      'leave files younger than this alone (uploads in progress)',
      String(SWEEP_GRACE_MS / 60_000),
    )
    .action(async (opts: { graceMinutes: string }) => {
      if (!/^\d+$/.test(opts.graceMinutes)) throw new UsageError('--grace-minutes must be a whole number');
      const graceMs = Number(opts.graceMinutes) * 60_000;
      const log = {
        warn: (o: object, m: string) => ctx.io.stderr.write(`warning: ${m} ${JSON.stringify(o)}\n`),
        error: (o: object, m: string) => ctx.io.stderr.write(`error: ${m} ${JSON.stringify(o)}\n`),
      };
      const r = await ctx.withDb((db) => sweepOrphanFiles({ db: db.kysely, storage: ctx.storage, log }, { graceMs }));
      ctx.print(
        r,
        () =>
          `checked ${r.checked} stored files older than ${opts.graceMinutes} min: removed ${r.removed} orphans and ${r.incomplete} interrupted uploads`,
      );
    });
}
