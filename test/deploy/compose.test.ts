// compose.yaml hands the service the whole configuration through an env file (.env, optional),
// and fixes under `environment:` only what the container's layout decides, each a variable that
// src/config.ts reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** The lines of one service's block in compose.yaml (two-space indented under `services:`). */
function serviceBlock(text: string, name: string): string {
  const m = new RegExp(`^  ${name}:\\n((?:(?: {4}.*)?\\n)*)`, 'm').exec(text);
  assert.ok(m, `no service ${name} in compose.yaml`);
  return m[1]!;
}

test('the app service reads .env as an optional env_file; its inline variables are the container layout only', () => {
  const compose = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
  const app = serviceBlock(compose, 'app');
  assert.match(app, /^ {4}env_file:\n {6}- path: \.env\n {8}required: false\n/m);

  const env = /^ {4}environment:\n((?: {6}.*\n)+)/m.exec(app)?.[1] ?? '';
  const inline = [...env.matchAll(/^ {6}([A-Z_]+):/gm)].map((m) => m[1]!);
  assert.deepEqual(inline.sort(), ['DATABASE_URL', 'DATA_DIR', 'FILES_DIR', 'HOST', 'METRICS_PORT', 'PORT']);
  const config = readFileSync(join(ROOT, 'src/config.ts'), 'utf8');
  for (const name of inline) assert.ok(config.includes(name), `${name} is not read by src/config.ts`);
  // the ports published are the ones fixed inside
  assert.match(app, /:3000'$/m);
  assert.match(app, /:9464'$/m);
});
