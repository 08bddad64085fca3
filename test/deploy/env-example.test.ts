// .env.example names every variable src/config.ts reads, and nothing it does not read above its
// "planned" section: the file a newcomer copies is the configuration's whole list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../src/config.ts';

const ROOT = resolve(import.meta.dirname, '../..');

test('.env.example names exactly the variables src/config.ts reads, each with a usable value', () => {
  const source = readFileSync(join(ROOT, 'src/config.ts'), 'utf8');
  const read = new Set([
    ...[...source.matchAll(/\bint\(env, '([A-Z_]+)'/g)].map((m) => m[1]!),
    ...[...source.matchAll(/\benv\.([A-Z_]+)/g)].map((m) => m[1]!),
  ]);
  assert.ok(read.size >= 15, `found ${read.size} variables in src/config.ts`);

  const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
  const current = example.split(/^# --- planned/m)[0]!;
  const named = new Map<string, string | null>();
  for (const m of current.matchAll(/^(# )?([A-Z][A-Z0-9_]*)=(.*)$/gm)) named.set(m[2]!, m[1] ? null : m[3]!);
  assert.deepEqual([...named.keys()].sort(), [...read].sort());

  // the values given (not commented out) load, and are the defaults
  const env: Record<string, string> = {};
  for (const [k, v] of named) if (v !== null) env[k] = v.replace(/^"(.*)"$/, '$1');
  const given = loadConfig(env);
  const defaults = loadConfig({});
  assert.deepEqual(given, defaults, 'every value shown in .env.example is the default');
});
