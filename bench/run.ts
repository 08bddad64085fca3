// `npm run bench -- <name>`: runs bench/<name>.ts (e.g. accrual, export).
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3));
const name = process.argv[2];
if (!name || !/^[a-z0-9-]+$/.test(name) || !existsSync(`${dir}${name}.ts`)) {
  console.error(`usage: npm run bench -- <${names.join('|')}> [options]`);
  process.exit(2);
}
process.argv.splice(2, 1); // the benchmark sees its own options from argv[2] on
await import(pathToFileURL(`${dir}${name}.ts`).href);
