// `npm run build` (and `npm install` / `npm ci`, through prepare): compiles src/ into dist/
// (incremental) and copies the SQL migrations next to the built migrate.js, which reads them from
// its own directory, writes the image a new embedded database starts from
// (scripts/empty-database.mjs), and builds the staff console (console/, with Vite) into
// dist/console: hashed file names, each with its brotli and gzip forms beside it
// (docs/console.md). TypeScript and Vite are devDependencies: an install without them
// (--omit=dev) keeps the dist/ it finds, built earlier (the Dockerfile's builder stage).
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

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
await buildConsole();

/** The console, unless dist/console is newer than every file of console/ (a test run's rebuild is then instant). */
async function buildConsole() {
  const out = 'dist/console';
  const newest = (dir) =>
    readdirSync(dir, { recursive: true })
      .map((f) => statSync(join(dir, String(f))).mtimeMs)
      .reduce((a, b) => Math.max(a, b), 0);
  const inputs = Math.max(newest('console'), statSync('package-lock.json').mtimeMs);
  if (existsSync(join(out, 'index.html')) && statSync(join(out, 'index.html')).mtimeMs > inputs) return;
  const { build } = await import('vite');
  const react = (await import('@vitejs/plugin-react')).default;
  rmSync(out, { recursive: true, force: true });
  await build({
    root: 'console',
    base: '/app/',
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    build: { outDir: `../${out}`, emptyOutDir: true, assetsInlineLimit: 0, sourcemap: false, target: 'es2022' },
  });
  let js = 0;
  for (const name of readdirSync(join(out, 'assets'))) {
    const p = join(out, 'assets', name);
    const raw = readFileSync(p);
    const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    writeFileSync(`${p}.br`, br);
    writeFileSync(`${p}.gz`, gzipSync(raw, { level: 9 }));
    if (name.endsWith('.js')) js += br.length;
  }
  console.log(`console built into ${out}: ${(js / 1024).toFixed(1)} KB of JavaScript (brotli)`);
}
