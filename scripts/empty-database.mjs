// Run by scripts/build.mjs on the built dist/: writes dist/db/empty-database.tar.gz, the image of a
// new embedded database with every migration applied. A new data directory starts as a copy of it
// (src/db/connection.ts, openEmbedded) instead of PGlite's initdb. Rebuilt when a migration or the
// PGlite version changes (the stamp next to it).
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

const dir = new URL('../dist/db/', import.meta.url);
const image = new URL('empty-database.tar.gz', dir);
const stampFile = new URL('empty-database.stamp', dir);
// its package.json is not exported: read from node_modules, where npm put it
const pglite = JSON.parse(
  readFileSync(new URL('../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8'),
).version;
const hash = createHash('sha256').update(`pglite ${pglite}\n`);
const migrations = new URL('migrations/', dir);
for (const f of readdirSync(migrations).sort()) hash.update(`${f}\n`).update(readFileSync(new URL(f, migrations)));
const stamp = hash.digest('hex');
if (existsSync(image) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) process.exit(0);

rmSync(image, { force: true });
const { openEmbedded } = await import(new URL('connection.js', dir).href);
const { migrate } = await import(new URL('migrate.js', dir).href);
const db = await openEmbedded(null);
await migrate(db);
const dump = await db.exclusive((s) => s.dump());
await db.close();
writeFileSync(image, gzipSync(Buffer.from(await dump.arrayBuffer())));
writeFileSync(stampFile, stamp);
