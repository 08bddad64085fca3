import { isUuid } from '../domain/uuid.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import { DataDirBusyError } from '../db/lock.ts';
import type { FileStorage } from '../storage/storage.ts';
import { DirectoryStorage } from '../storage/directory.ts';
import type { CliIO } from '../ops/adminSocket.ts';
import { systemClock, type Clock } from '../domain/index.ts';

/** Thrown when the embedded data directory is held by a running server: the command goes there. */
export class ForwardToServer extends Error {}

export class UsageError extends Error {}

export class CliContext {
  json = false;
  /** where client files' bytes live: the server's own when it runs the command, else built here once */
  readonly storage: FileStorage;
  /** where the commands' now and each business's today come from */
  readonly clock: Clock;
  readonly io: CliIO;
  readonly config: Config;
  /** the database and storage of the server running this command for another process */
  private readonly server: { db: Database; storage: FileStorage } | undefined;
  constructor(io: CliIO, config: Config, server?: { db: Database; storage: FileStorage }, clock: Clock = systemClock) {
    this.io = io;
    this.config = config;
    this.server = server;
    this.storage = server?.storage ?? new DirectoryStorage(config.filesDir);
    this.clock = clock;
  }

  get insideServer() {
    return this.server !== undefined;
  }

  async withDb<T>(fn: (db: Database) => Promise<T>, opts: { migrate?: boolean } = {}): Promise<T> {
    if (this.server) return fn(this.server.db);
    // the database drivers load here, not with the program: `lending --help` needs none of them
    const [{ openDatabase }, { migrate }] = await Promise.all([
      import('../db/connection.ts'),
      import('../db/migrate.ts'),
    ]);
    let db: Database;
    try {
      db = await openDatabase(this.config);
    } catch (err) {
      if (err instanceof DataDirBusyError) throw new ForwardToServer();
      throw err;
    }
    try {
      if (opts.migrate !== false) await migrate(db);
      return await fn(db);
    } finally {
      await db.close();
    }
  }

  out(text: string) {
    this.io.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }

  /** --json: exactly one JSON document on stdout; otherwise the human rendering. */
  print(data: unknown, human: () => string) {
    if (this.json) this.out(JSON.stringify(data, null, 2));
    else this.out(human());
  }
}

/** A plain text table: header row, then one row a record. */
export function table(rows: object[], columns: string[]): string {
  const get = (r: object, c: string) => (r as Record<string, unknown>)[c];
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : v instanceof Date ? v.toISOString() : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(get(r, c)).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    line(columns),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(columns.map((c) => cell(get(r, c))))),
  ].join('\n');
}

export function record(obj: object): string {
  const w = Math.max(...Object.keys(obj).map((k) => k.length));
  return Object.entries(obj)
    .map(
      ([k, v]) =>
        `${k.padEnd(w)}  ${v === null || v === undefined ? '-' : v instanceof Date ? v.toISOString() : String(v)}`,
    )
    .join('\n');
}

/** A uuid given on the command line, lower-cased; anything else is a usage error naming the option. */
export function uuidArg(name: string, v: string): string {
  if (!isUuid(v)) throw new UsageError(`${name} must be a uuid`);
  return v.toLowerCase();
}
