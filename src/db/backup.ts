// `lending backup` / `lending restore` of an embedded installation: the database and the files
// directory in one gzipped tar (npm's tar), made while the server runs.
//
// Consistency: the database image and the list of files are taken while the one database
// session is held (Database.exclusive), so no request writes in between. Bytes are written before
// their row and deleted only after their row's deletion commits (src/services/files.ts), so every
// file row in the image has its bytes in the archive; bytes without a row (an upload or a
// deletion in progress) are orphans the sweep removes after a restore. The files are hard-linked
// into a staging directory under DATA_DIR while the session is held (copied when FILES_DIR is on
// another file system) and archived after it is released: requests wait only for the image and
// the links.
//
// The archive: manifest.json ({format, version, created_at, migrations}), pgdata.tar (PGlite's
// own dump of its data directory) and files/ (FILES_DIR as it is).
import {
  chmod,
  copyFile,
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
  cp,
} from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as tar from 'tar';
import { PGlite } from '@electric-sql/pglite';
import type { Database } from './connection.ts';
import { lockDataDir } from './lock.ts';

export const BACKUP_FORMAT = 'lending-backup';
export const BACKUP_VERSION = 1;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  created_at: string;
  /** the migrations applied in the database image */
  migrations: string[];
  files: number;
}

/** A backup or restore that cannot be done as asked; the message says what to do instead. */
export class BackupRefused extends Error {}

/** Hard links (or copies, across file systems) of every regular file under from, into to; the count. */
async function linkTree(from: string, to: string): Promise<number> {
  let n = 0;
  await mkdir(to, { recursive: true, mode: 0o700 });
  if (!existsSync(from)) return 0;
  for (const e of await readdir(from, { withFileTypes: true })) {
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.isDirectory()) n += await linkTree(src, dst);
    else if (e.isFile()) {
      try {
        await link(src, dst);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') continue; // removed meanwhile (an interrupted upload's temporary file)
        if (code !== 'EXDEV' && code !== 'EPERM') throw err;
        await copyFile(src, dst);
      }
      n++;
    }
  }
  return n;
}

/** Writes the backup of an embedded database and its files directory to `to` (replaced atomically). */
export async function backupEmbedded(
  db: Database,
  opts: { dataDir: string; filesDir: string; to: string },
): Promise<BackupManifest> {
  if (!db.exclusive) throw new BackupRefused(POSTGRES_BACKUP);
  const to = resolve(opts.to);
  const filesDir = resolve(opts.filesDir);
  if (to === filesDir || to.startsWith(filesDir + sep))
    throw new BackupRefused(`--to ${to} is inside FILES_DIR (${filesDir}): the backup would contain itself`);
  const staging = await mkdtemp(join(opts.dataDir, '.backup-'));
  const tmp = `${to}.${process.pid}.partial`;
  try {
    const { files, migrations } = await db.exclusive(async (s) => {
      const image = await s.dump();
      await writeFile(join(staging, 'pgdata.tar'), Buffer.from(await image.arrayBuffer()), { mode: 0o600 });
      const files = await linkTree(filesDir, join(staging, 'files'));
      const rows = await s.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      return { files, migrations: rows.map((r) => r.name) };
    });
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      created_at: new Date().toISOString(),
      migrations,
      files,
    };
    await writeFile(join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await mkdir(dirname(to), { recursive: true });
    await tar.c({ gzip: true, file: tmp, cwd: staging, portable: true }, ['manifest.json', 'pgdata.tar', 'files']);
    await chmod(tmp, 0o600); // the whole book: the owner's only
    await rename(tmp, to);
    return manifest;
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(tmp, { force: true });
  }
}

export const POSTGRES_BACKUP = [
  'lending backup copies the embedded database; with DATABASE_URL the database is PostgreSQL:',
  '  1. pg_dump --format=custom --file=lending.dump "$DATABASE_URL"   (a consistent snapshot, while the service runs)',
  '  2. then copy FILES_DIR (client files), e.g. tar czf lending-files.tar.gz -C "$FILES_DIR" .',
  '     (after the dump: every file row in it has its bytes; files deleted in between may be missing)',
  'Restore with pg_restore --clean --if-exists --dbname "$DATABASE_URL" lending.dump and the files back into FILES_DIR',
  '(docs/deployment.md#backups).',
].join('\n');

/** What is in a directory that must be empty (missing counts as empty), ignoring the lock file the restore itself takes. */
async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => n !== '.lock');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Restores a backup into an empty DATA_DIR (and FILES_DIR); refuses anything not empty. */
export async function restoreEmbedded(opts: {
  from: string;
  dataDir: string;
  filesDir: string;
}): Promise<BackupManifest> {
  const from = resolve(opts.from);
  if (!existsSync(from) || !(await stat(from)).isFile()) throw new BackupRefused(`no backup file ${from}`);
  const dataDir = resolve(opts.dataDir);
  const filesDir = resolve(opts.filesDir);
  for (const [name, dir] of [
    ['DATA_DIR', dataDir],
    ['FILES_DIR', filesDir],
  ] as const) {
    const found = await entries(dir);
    if (found.length)
      throw new BackupRefused(
        `${name} ${dir} is not empty (${found.slice(0, 3).join(', ')}${found.length > 3 ? ', …' : ''}): restore only into an empty directory (set DATA_DIR to a new one)`,
      );
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // no server or command may open the directory while it is being filled
  const unlock = await lockDataDir(dataDir);
  const staging = await mkdtemp(join(dataDir, '.restore-'));
  let done = false;
  try {
    try {
      await tar.x({ file: from, cwd: staging, strict: true, preservePaths: false });
    } catch (err) {
      throw new BackupRefused(`${from} is not a lending backup (${(err as Error).message})`);
    }
    let manifest: BackupManifest;
    try {
      manifest = JSON.parse(await readFile(join(staging, 'manifest.json'), 'utf8')) as BackupManifest;
    } catch {
      throw new BackupRefused(`${from} is not a lending backup (no manifest.json)`);
    }
    if (manifest.format !== BACKUP_FORMAT || manifest.version !== BACKUP_VERSION)
      throw new BackupRefused(
        `${from} is a backup of format ${manifest.format} ${manifest.version}, not ${BACKUP_FORMAT} ${BACKUP_VERSION}`,
      );
    const image = await readFile(join(staging, 'pgdata.tar'));
    const pg = await PGlite.create({ dataDir: join(dataDir, 'pgdata'), loadDataDir: new Blob([image]) });
    try {
      // the image opens and holds what the manifest says
      const rows = await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      if (rows.rows[0]?.n !== manifest.migrations.length)
        throw new BackupRefused(`${from}: the database image does not match its manifest`);
    } finally {
      await pg.close();
    }
    const restoredFiles = join(staging, 'files');
    if (existsSync(restoredFiles)) {
      await mkdir(dirname(filesDir), { recursive: true });
      await rm(filesDir, { recursive: true, force: true }); // empty, checked above
      try {
        await rename(restoredFiles, filesDir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        await cp(restoredFiles, filesDir, { recursive: true });
      }
    }
    done = true;
    return manifest;
  } finally {
    await rm(staging, { recursive: true, force: true });
    if (!done) {
      // leave the directory as empty as it was found
      for (const n of await entries(dataDir)) await rm(join(dataDir, n), { recursive: true, force: true });
      if (relative(dataDir, filesDir).startsWith('..')) await rm(filesDir, { recursive: true, force: true });
    }
    await unlock();
  }
}
