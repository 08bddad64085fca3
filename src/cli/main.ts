// `lending <command>`: one program, run either in this process or, when the embedded database is
// held by a running server, inside that server (see src/ops/adminSocket.ts).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { loadConfig, ConfigError, type Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import type { FileStorage } from '../storage/storage.ts';
import { ServerUnreachable, adminSocketPath, forwardToServer, type CliIO } from '../ops/adminSocket.ts';
import { CliContext, ForwardToServer, UsageError } from './context.ts';
import { AppError } from '../domain/errors.ts';
import type { Clock } from '../domain/index.ts';

/** The package's version (package.json two folders up from src/cli and from dist/cli alike). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Adds a command's options, subcommands and action to the command main.ts created for it. */
type Register = (cmd: Command, ctx: CliContext) => void;

/**
 * Every command after serve, in the order `lending --help` lists them. Only the command that runs
 * loads its module (and the database, services and libraries behind it): `--help` stays quick.
 */
const COMMANDS: {
  name: string;
  description: string;
  load: () => Promise<Register>;
  /** options whose value is a path: made absolute before the command line is sent to a running server */
  paths?: string[];
  /** never run inside a running server */
  local?: boolean;
}[] = [
  {
    name: 'migrate',
    description: 'apply pending database migrations (serve does it on start too)',
    load: async () => (await import('./commands/migrate.ts')).registerMigrate,
  },
  {
    name: 'businesses',
    description: 'create and list businesses (tenants)',
    load: async () => (await import('./commands/businesses.ts')).registerBusinesses,
  },
  {
    name: 'keys',
    description: 'API keys: create (the secret is shown once), list, revoke',
    load: async () => (await import('./commands/keys.ts')).registerKeys,
  },
  {
    name: 'operators',
    description: 'platform operators: create (prints the link where they choose a password)',
    load: async () => (await import('./commands/users.ts')).registerOperators,
  },
  {
    name: 'users',
    description: "a business's users: create (prints the link where they choose a password)",
    load: async () => (await import('./commands/users.ts')).registerUsers,
  },
  {
    name: 'holidays',
    description: "a business's holidays: import a country's national holidays of a year",
    load: async () => (await import('./commands/holidays.ts')).registerHolidays,
  },
  {
    name: 'demo',
    description: 'create a demo business (plans, branches, clients, credits, payments) and print its keys',
    load: async () => (await import('./commands/demo.ts')).registerDemo,
  },
  {
    name: 'accrue',
    description:
      'the daily delinquency run: month close of punitory (up to the last ended month) and automatic write-off (idempotent)',
    load: async () => (await import('./commands/accrue.ts')).registerAccrue,
  },
  {
    name: 'backfill-cost',
    description: 'store the disclosed cost (TNA, TEA, CFT) of credits granted before it was stored at grant',
    load: async () => (await import('./commands/backfill.ts')).registerBackfillCost,
  },
  {
    name: 'report',
    description: 'portfolio reports',
    load: async () => (await import('./commands/report.ts')).registerReport,
  },
  {
    name: 'export',
    description:
      'write a dataset as CSV to stdout (clients, credits, installments, ledger, logs), e.g. lending export ledger --business ID > ledger.csv',
    load: async () => (await import('./commands/export.ts')).registerExport,
  },
  {
    name: 'files',
    description: 'client files in FILES_DIR',
    load: async () => (await import('./commands/files.ts')).registerFiles,
  },
  {
    name: 'backup',
    description:
      'write the embedded database and the files directory to one archive, consistent while the server runs (PostgreSQL: explains pg_dump)',
    load: async () => (await import('./commands/backup.ts')).registerBackup,
    paths: ['--to'],
  },
  {
    name: 'restore',
    description: 'restore an archive written by backup into an empty DATA_DIR',
    load: async () => (await import('./commands/backup.ts')).registerRestore,
    local: true,
  },
];

/** The command line with the values of the command's path options made absolute (the server has its own working directory). */
function absolutePaths(argv: string[]): string[] {
  const paths = COMMANDS.find((c) => c.name === commandOf(argv))?.paths ?? [];
  return argv.map((a, i) => {
    const eq = a.indexOf('=');
    if (eq > 0 && paths.includes(a.slice(0, eq))) return `${a.slice(0, eq)}=${resolve(a.slice(eq + 1))}`;
    if (i > 0 && paths.includes(argv[i - 1]!) && !a.startsWith('-')) return resolve(a);
    return a;
  });
}

/** The command a command line runs (`lending [--json] <command>` or `lending help <command>`), if any. */
function commandOf(argv: string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/** The program for this command line: every command described, the one that runs complete. */
export async function buildProgram(ctx: CliContext, argv: string[] = []): Promise<Command> {
  const program = new Command('lending')
    .description('Lending management service: API server and administration')
    .option('--json', 'print exactly one JSON document on stdout')
    .version(packageVersion(), '-v, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.stdout.write(s), writeErr: (s) => ctx.io.stderr.write(s) })
    .hook('preAction', (cmd) => {
      ctx.json = Boolean(cmd.optsWithGlobals().json);
    });
  program
    .command('serve')
    .description('start the API server (what npm start does)')
    .action(async () => {
      if (ctx.insideServer) throw new UsageError('the server is already running on this data directory');
      const { serve } = await import('../server.ts');
      await serve(
        ctx.config,
        ctx.io,
        (db, storage) => (argv, io) => runCli(argv, io, { db, storage, config: ctx.config }),
      );
    });
  const running = commandOf(argv);
  for (const c of COMMANDS) {
    const cmd = program.command(c.name).description(c.description);
    if (c.name === running) (await c.load())(cmd, ctx);
  }
  program.commands.forEach(function inherit(c: Command) {
    c.exitOverride().configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    });
    c.commands.forEach(inherit);
  });
  return program;
}

/**
 * Runs one command line; resolves with the exit code. Inside the server, on the server's database
 * and storage; `inject.clock` (tests) says what time it is.
 */
export async function runCli(
  argv: string[],
  io: CliIO,
  inject?: { db: Database; storage: FileStorage; config: Config; clock?: Clock },
): Promise<number> {
  let config: Config;
  try {
    config = inject?.config ?? loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`error: ${err.message}\n`);
      return 78;
    }
    throw err;
  }
  // Embedded with a server running: straight to it, before loading the database engine and the
  // command's services only to find the directory locked (most of a command's start-up; on a busy
  // machine, most of its time).
  if (!inject) argv = absolutePaths(argv);
  if (!inject && !config.databaseUrl && wantsDatabase(argv)) {
    try {
      return await forwardToServer(adminSocketPath(config.dataDir), argv, io);
    } catch (err) {
      if (!(err instanceof ServerUnreachable)) throw err;
    }
  }
  const ctx = new CliContext(io, config, inject, inject?.clock);
  // Another command holding the embedded directory for a moment (no server behind it) is waited
  // for; a running server runs the command itself.
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await (await buildProgram(ctx, argv)).parseAsync(argv, { from: 'user' });
      return 0;
    } catch (err) {
      if (!(err instanceof ForwardToServer)) return reportError(err, io);
      try {
        return await forwardToServer(adminSocketPath(config.dataDir), argv, io);
      } catch (fwdErr) {
        if (!(fwdErr instanceof ServerUnreachable)) throw fwdErr;
        if (Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 250));
          continue;
        }
        io.stderr.write(
          `error: the data directory ${config.dataDir} is locked by another process that does not answer\n`,
        );
        return 1;
      }
    }
  }
}

// a minute: three commands started at once on a busy machine each open the embedded database in turn
const LOCK_WAIT_MS = 60_000;

/** Whether the command line runs a command (not serve, not help), which a running server can run instead. */
function wantsDatabase(argv: string[]): boolean {
  const first = argv.find((a) => !a.startsWith('-'));
  return COMMANDS.some((c) => c.name === first && !c.local) && !argv.some((a) => a === '--help' || a === '-h');
}

function reportError(err: unknown, io: CliIO): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  // a service refusing the input (unknown business, bad time zone) is a usage error too
  if (err instanceof UsageError || (err instanceof AppError && err.status < 500)) {
    io.stderr.write(`error: ${err.message}\n`);
    return 2;
  }
  io.stderr.write(`error: ${(err as Error).message}\n`);
  return 1;
}
