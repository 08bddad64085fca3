// `lending serve` / `npm start`: migrate, (embedded and empty, unless DEMO=false: create the demo), listen, serve
// the command line over the admin socket and the metrics on METRICS_PORT, run the scheduled jobs,
// and on SIGTERM or SIGINT drain and close by SHUTDOWN_TIMEOUT_MS.
import type { Server } from 'node:http';
import closeWithGrace from 'close-with-grace';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/connection.ts';
import { migrate } from './db/migrate.ts';
import { DataDirBusyError } from './db/lock.ts';
import { countBusinesses } from './db/repositories/businesses.ts';
import { buildApp } from './http/app.ts';
import { listenBase } from './http/origin.ts';
import { createDemo } from './services/demo.ts';
import { KeyCache } from './services/apiKeys.ts';
import { adminSocketPath, startAdminSocket, type CliIO, type CommandRunner } from './ops/adminSocket.ts';
import { startJobs } from './jobs/index.ts';
import type { FileStorage } from './storage/storage.ts';
import { DirectoryStorage } from './storage/directory.ts';
import { systemClock } from './domain/index.ts';
import { Metrics, startMetricsServer } from './metrics.ts';

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
  const metrics = new Metrics({ pool: () => db.poolStats(), reads: () => db.readStats() });
  let metricsServer: Server | null = null;
  try {
    await migrate(db);
    keyCache = await KeyCache.start(db);
    app = await buildApp({
      db,
      config,
      storage,
      clock,
      keyCache,
      metrics,
      logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    });
    await app.listen({ port: config.port, host: config.host });
    if (config.metricsPort) {
      metricsServer = await startMetricsServer(metrics, config.metricsPort, config.host).catch((err) => {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
        throw new Error(
          `METRICS_PORT ${config.metricsPort} on ${config.host} is already in use: stop what uses it, set METRICS_PORT to another port, or 0 to serve no metrics`,
        );
      });
    }
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
  // DEMO=false (the container image's default): an empty directory stays empty
  const empty = db.mode === 'embedded' && (await countBusinesses(db.kysely)) === 0;
  if (empty && config.demo) demo = await createDemo(db, clock);
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const base = listenBase(config.host, port);

  let admin: Server | null = null;
  // the operator's commands take the database before the requests waiting for it
  if (db.mode === 'embedded')
    admin = await startAdminSocket(adminSocketPath(config.dataDir), runCommand(db.forOperator(), storage));
  const stopJobs = startJobs({ db, config, storage, log: app.log, clock, metrics });
  // requests being answered, for the drain: a response's close comes whether it finished or was cut
  let inFlight = 0;
  app.server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
  });

  const lines = [
    `Lending service listening on ${base}`,
    `  API docs: ${base}/docs   OpenAPI: ${base}/openapi.json`,
    `  Console: ${base}/app`,
    db.mode === 'embedded' ? `  Database: embedded, in ${config.dataDir}` : '  Database: PostgreSQL (DATABASE_URL)',
  ];
  if (metricsServer) lines.push(`  Metrics: ${listenBase(config.host, config.metricsPort)}/metrics`);
  if (demo) {
    lines.push(
      '',
      `Created the demo business "${demo.business.name}" (${demo.business.id}). Its keys, shown once:`,
      `  full: ${demo.keys.full}`,
      `  read: ${demo.keys.read}`,
      '',
      `Sign in to the console (${base}/app) as ${demo.admin.email} with the password ${demo.admin.password} (shown once)`,
      '',
      `Try:  curl -H "Authorization: Bearer ${demo.keys.read}" ${base}/api/clients`,
    );
  } else if (empty)
    lines.push('', 'No business yet (DEMO=false): create one with  lending businesses create --name "..."');
  // for the person at the terminal, on stderr: stdout carries only the JSON log lines
  io.stderr.write(lines.join('\n') + '\n');

  const running = app;
  await new Promise<void>(() => {
    // on SIGTERM or SIGINT (a second one exits at once), or an uncaught error: drain, close, exit 0
    // (1 after an error); still closing after SHUTDOWN_TIMEOUT_MS, exit 1 anyway
    closeWithGrace(
      {
        delay: config.shutdownTimeoutMs,
        logger: {
          error: (m: unknown) => running.log.error(m instanceof Error ? { err: m } : { detail: m }, 'shutdown'),
        },
        onTimeout: (ms) =>
          running.log.error(
            { timeout_ms: ms, in_flight: inFlight },
            'shutdown deadline passed: exiting with work unfinished',
          ),
      },
      async ({ signal, err }) => {
        if (err) running.log.fatal({ err }, 'uncaught error: shutting down');
        running.log.info({ signal, timeout_ms: config.shutdownTimeoutMs, in_flight: inFlight }, 'shutting down');
        // /readyz answers 503 from now on; the listener stays open while requests are in flight
        // (at most half the deadline), so a probe on a new connection sees the 503 rather than a
        // refused connection, then app.close() stops listening and waits for what is left
        running.draining = true;
        stopJobs();
        const until = Date.now() + config.shutdownTimeoutMs / 2;
        while (inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        admin?.close();
        metricsServer?.close();
        await running.close();
        await keyCache?.close();
        await db.close();
        running.log.info('shut down');
      },
    );
  });
}
