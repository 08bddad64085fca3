// `npm run build` (and `npm install` / `npm ci`, through prepare): compiles src/ into dist/
// (incremental) and copies the SQL migrations next to the built migrate.js, which reads them from
// its own directory, and writes the image a new embedded database starts from
// (scripts/empty-database.mjs). TypeScript is a devDependency: an install without them (--omit=dev) keeps the
// dist/ it finds, built earlier (the Dockerfile's builder stage).
import { cpSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  if (existsSync('dist/cli/main.js')) process.exit(0);
  console.error('error: building lending needs its devDependencies (typescript): run npm install without --omit=dev');
  process.exit(1);
}
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
cpSync('src/db/migrations', 'dist/db/migrations', { recursive: true });
// the image a new embedded data directory starts from (src/db/connection.ts): quick when current
const image = spawnSync(process.execPath, ['scripts/empty-database.mjs'], { stdio: 'inherit' });
if (image.status !== 0) process.exit(image.status ?? 1);
