// `lending backup --to FILE` and `lending restore --from FILE` (src/db/backup.ts). With a server
// running on the data directory, backup runs inside it (forwarded over the admin socket, the path
// made absolute first); restore only ever fills an empty directory, so never a running server's.
import type { Command } from 'commander';
import { UsageError, type CliContext } from '../context.ts';
import { BackupRefused, POSTGRES_BACKUP, backupEmbedded, restoreEmbedded } from '../../db/backup.ts';

const refusal = (err: unknown) => (err instanceof BackupRefused ? new UsageError(err.message) : err);

export function registerBackup(cmd: Command, ctx: CliContext) {
  cmd
    .requiredOption('--to <file>', 'the archive to write (a .tar.gz; replaced if it exists)')
    .action(async (opts: { to: string }) => {
      if (ctx.config.databaseUrl) throw new UsageError(POSTGRES_BACKUP);
      const manifest = await ctx
        .withDb((db) => backupEmbedded(db, { dataDir: ctx.config.dataDir, filesDir: ctx.config.filesDir, to: opts.to }))
        .catch((err: unknown) => {
          throw refusal(err);
        });
      ctx.print(
        { to: opts.to, ...manifest },
        () => `wrote ${opts.to}: the database (${manifest.migrations.length} migrations) and ${manifest.files} files`,
      );
    });
}

export function registerRestore(cmd: Command, ctx: CliContext) {
  cmd.requiredOption('--from <file>', 'an archive written by lending backup').action(async (opts: { from: string }) => {
    if (ctx.config.databaseUrl)
      throw new UsageError(
        'lending restore fills an embedded data directory; with DATABASE_URL restore PostgreSQL with pg_restore and the files into FILES_DIR (docs/deployment.md#backups)',
      );
    if (ctx.insideServer)
      throw new UsageError('the server is running on this data directory: restore into an empty one');
    const manifest = await restoreEmbedded({
      from: opts.from,
      dataDir: ctx.config.dataDir,
      filesDir: ctx.config.filesDir,
    }).catch((err: unknown) => {
      throw refusal(err);
    });
    ctx.print(
      { from: opts.from, data_dir: ctx.config.dataDir, ...manifest },
      () =>
        `restored ${opts.from} (made ${manifest.created_at}) into ${ctx.config.dataDir}: the database and ${manifest.files} files`,
    );
  });
}
