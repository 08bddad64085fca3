// `lending serve` / `npm start`: migrate, (embedded and empty: create the demo), listen, serve
// the command line over the admin socket, run the scheduled jobs, and close cleanly on a signal.
import type { Server } from 'node:http';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/connection.ts';
import { migrate } from './db/migrate.ts';
import { DataDirBusyError } from './db/lock.ts';
import { countBusinesses } from './db/repositories/businesses.ts';
import { buildApp } from './http/app.ts';
import { listenBase } from './http/origin.ts';
import { createDemo } from './services/demo.ts';
import { KeyCache } from './services/apiKeys.ts';
import { adminSocketPath, startAdminSocket, type CliIO, type CommandRunner } from './cli/admin.ts';
import { startJobs } from './jobs/index.ts';
import type { FileStorage } from './storage/storage.ts';
import { DirectoryStorage } from './storage/directory.ts';
import { systemClock } from './domain/index.ts';

export async function serve(
  config: Config,
  io: CliIO,
  runCommand: (db: Database, storage: FileStorage) => CommandRunner,
): Promise<void> {
  let db: Database;
  try {
    db = await openDatabase(config);
  } catch (err) {
    if (err instanceof DataDirBusyError) {
      throw new Error(`${err.message}: is the server already running? (stop it, or set DATA_DIR to another directory)`);
    }
    throw err;
  }
  // the one storage of the process: the API, the jobs and the commands run over the admin socket
  const storage = new DirectoryStorage(config.filesDir);
  // the one clock of the process: requests, jobs and the demo read the real time
  const clock = systemClock;
  let app: Awaited<ReturnType<typeof buildApp>> | null = null;
  // the keys requests presented, kept while the database's announcements of key changes arrive
  let keyCache: KeyCache | null = null;
  try {
    await migrate(db);
    keyCache = await KeyCache.start(db);
    app = await buildApp({
      db,
      config,
      storage,
      clock,
      keyCache,
      logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    });
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // a failed start releases the database (and its lock), so the process can exit
    await app?.close().catch(() => {});
    await keyCache?.close().catch(() => {});
    await db.close().catch(() => {});
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(
        `port ${config.port} on ${config.host} is already in use: stop what uses it, or set PORT to another port`,
      );
    }
    throw err;
  }

  // the demo only once the port is ours: a start that fails must not create a demo whose keys
  // nobody saw (the next start would find the database not empty and print none)
  let demo: Awaited<ReturnType<typeof createDemo>> | null = null;
  if (db.mode === 'embedded' && (await countBusinesses(db.kysely)) === 0) demo = await createDemo(db, clock);
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const base = listenBase(config.host, port);

  let admin: Server | null = null;
  // the operator's commands take the database before the requests waiting for it
  if (db.mode === 'embedded')
    admin = await startAdminSocket(adminSocketPath(config.dataDir), runCommand(db.forOperator(), storage));
  const stopJobs = startJobs({ db, config, storage, log: app.log, clock });

  const lines = [
    `Lending service listening on ${base}`,
    `  API docs: ${base}/docs   OpenAPI: ${base}/openapi.json`,
    db.mode === 'embedded' ? `  Database: embedded, in ${config.dataDir}` : '  Database: PostgreSQL (DATABASE_URL)',
  ];
  if (demo) {
    lines.push(
      '',
      `Created the demo business "${demo.business.name}" (${demo.business.id}). Its keys, shown once:`,
      `  full: ${demo.keys.full}`,
      `  read: ${demo.keys.read}`,
      '',
      `Try:  curl -H "Authorization: Bearer ${demo.keys.read}" ${base}/api/clients`,
    );
  }
  io.stdout.write(lines.join('\n') + '\n');

  await new Promise<void>((resolve) => {
    let closing = false;
    const shutdown = async (signal: string) => {
      if (closing) return;
      closing = true;
      app.log.info({ signal }, 'shutting down');
      stopJobs();
      admin?.close();
      await app.close();
      await keyCache?.close();
      await db.close();
      resolve();
    };
    process.once('SIGINT', () => void shutdown('SIGINT'));
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
  });
}
