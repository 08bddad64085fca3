// The layering of src (README): every import of every file, checked against what its layer may
// depend on. Type-only imports count: src/http names the database handle through
// src/services/context.ts, never src/db.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');

/** Every module specifier of a file: import/export ... from, import x = require(), import(), import('x').T. */
function specifiers(fileName: string, text: string): string[] {
  const found: string[] = [];
  const literal = (n: ts.Node | undefined) => {
    if (n && ts.isStringLiteralLike(n)) found.push(n.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      literal(node.moduleReference.expression);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      literal(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) literal(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
  return found;
}

interface Import {
  file: string; // repository-relative, e.g. src/http/app.ts
  spec: string; // as written
  target: string; // src/... for a relative import, else the package (decimal.js, typebox, node:fs)
}

function sourceImports(): Import[] {
  const files = readdirSync(join(ROOT, 'src'), { recursive: true })
    .map(String)
    .filter((f) => /\.(ts|js|mjs)$/.test(f))
    .map((f) => `src/${f.split('\\').join('/')}`)
    .sort();
  return files.flatMap((file) =>
    specifiers(file, readFileSync(join(ROOT, file), 'utf8')).map((spec) => ({
      file,
      spec,
      target: targetOf(file, spec),
    })),
  );
}

function targetOf(file: string, spec: string): string {
  if (spec.startsWith('.'))
    return relative(ROOT, resolve(ROOT, dirname(file), spec))
      .split('\\')
      .join('/');
  if (spec.startsWith('node:')) return spec;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The unit of src a path belongs to: its top folder (`domain`), or a file at the top (`config.ts`). */
const layer = (path: string) => /^src\/([^/]+)/.exec(path)?.[1];
const imports = sourceImports();

/**
 * What each unit of src may import of src (itself always). Every folder and file at the top of src
 * has a row, and docs/architecture.md maps each one: arrows run down only, from the command line
 * at the top to the domain at the bottom.
 */
const ALLOWED: Record<string, string[]> = {
  // the command line: runs the server (`serve`), the use cases, and forwards over the admin socket
  cli: ['server.ts', 'ops', 'jobs', 'services', 'db', 'storage', 'config.ts', 'domain'],
  // the process: opens the database, builds the app, starts the jobs, the metrics and the admin socket
  'server.ts': ['ops', 'http', 'jobs', 'services', 'db', 'storage', 'metrics.ts', 'config.ts', 'domain'],
  http: ['services', 'storage', 'mail', 'metrics.ts', 'config.ts', 'domain'],
  // the database handle's type and the statistics refresh come from db
  jobs: ['services', 'db', 'storage', 'mail', 'metrics.ts', 'config.ts', 'domain'],
  services: ['db', 'registries', 'storage', 'mail', 'metrics.ts', 'config.ts', 'domain'],
  registries: ['config.ts', 'domain'],
  // where e-mail goes: the Mailer interface and its SMTP transport
  mail: ['config.ts'],
  db: ['domain'],
  storage: ['domain'],
  // the admin socket between a command line and the server holding the embedded database
  ops: [],
  'metrics.ts': [],
  'config.ts': ['domain'],
  domain: [],
};

function check(from: string, refused: (i: Import) => boolean) {
  const bad = imports.filter((i) => layer(i.file) === from && refused(i)).map((i) => `${i.file} -> ${i.spec}`);
  assert.equal(bad.length, 0, `src/${from} imports what its layer may not (${bad.length}):\n${bad.join('\n')}`);
}

test('every folder and file at the top of src has a row in the allowed-imports table, and in docs/architecture.md', () => {
  const units = readdirSync(join(ROOT, 'src')).sort();
  assert.deepEqual(units, Object.keys(ALLOWED).sort(), 'add the new unit to ALLOWED (and to docs/architecture.md)');
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const missing = units.filter((u) => !doc.includes(`| \`src/${u}\``));
  assert.deepEqual(missing, [], 'docs/architecture.md has no row for these');
  for (const [unit, allowed] of Object.entries(ALLOWED))
    for (const a of allowed) assert.ok(a in ALLOWED, `${unit} may import ${a}, which is not a unit of src`);
});

test('each unit of src imports only what the table allows (type-only imports count)', () => {
  const bad = imports
    .filter((i) => i.target.startsWith('src/'))
    .filter((i) => {
      const from = layer(i.file)!;
      const to = layer(i.target)!;
      return from !== to && !(ALLOWED[from] ?? []).includes(to);
    })
    .map((i) => `${i.file} -> ${i.spec}`);
  assert.equal(bad.length, 0, `imports the table does not allow (${bad.length}):\n${bad.join('\n')}`);
});

test('the table runs one way: no unit may import, through any chain, a unit that may import it', () => {
  const graph = new Map(Object.entries(ALLOWED));
  assert.deepEqual(cyclesOf(graph), []);
});

test('the parser sees every form of import, type-only ones included', () => {
  const text = [
    "import a from './a.ts';",
    "import type { B } from '../b.ts';",
    "import { type C } from 'c';",
    "import './side-effect.ts';",
    "export * from './d.ts';",
    "export { e } from '@scope/e/sub';",
    "import f = require('f');",
    "const g = await import('./g.ts');",
    "let h: import('./h.ts').H;",
    "const notAnImport = 'from ./i.ts'; dynamic(`./j.ts`);",
  ].join('\n');
  assert.deepEqual(specifiers('x.ts', text), [
    './a.ts',
    '../b.ts',
    'c',
    './side-effect.ts',
    './d.ts',
    '@scope/e/sub',
    'f',
    './g.ts',
    './h.ts',
  ]);
  assert.equal(targetOf('src/http/routes/x.ts', '../../db/repositories/y.ts'), 'src/db/repositories/y.ts');
  assert.equal(targetOf('src/domain/x.ts', 'typebox/value'), 'typebox');
  assert.ok(imports.length > 100, `only ${imports.length} imports found under src`);
});

test('src/domain is pure: other domain files, decimal.js and typebox only (no node: module, no I/O)', () => {
  const pure = new Set(['decimal.js', 'typebox']);
  check('domain', (i) => !(i.target.startsWith('src/domain/') || pure.has(i.target)));
});

/** The import cycles of a graph: its strongly connected components of more than one file, or a file importing itself. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)?.includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

test('the cycle finder finds a circle and nothing in a tree', () => {
  const g = new Map([
    ['a', ['b']],
    ['b', ['c', 'd']],
    ['c', ['a']],
    ['d', []],
    ['e', ['e']],
  ]);
  assert.deepEqual(cyclesOf(g).sort(), [['a', 'b', 'c'], ['e']]);
  assert.deepEqual(
    cyclesOf(
      new Map([
        ['a', ['b', 'c']],
        ['b', ['c']],
        ['c', []],
      ]),
    ),
    [],
  );
});

test('no import cycle among src/services files (type-only imports count)', () => {
  const graph = new Map<string, string[]>();
  for (const i of imports) {
    if (!i.file.startsWith('src/services/')) continue;
    const deps = graph.get(i.file) ?? [];
    graph.set(i.file, deps);
    if (i.target.startsWith('src/services/')) deps.push(i.target);
  }
  assert.ok(graph.has('src/services/lending/store.ts'), 'the services were not read');
  const cycles = cyclesOf(graph);
  assert.equal(cycles.length, 0, `import cycles among services:\n${cycles.map((c) => c.join(' <-> ')).join('\n')}`);
});

test('the ledger engine (src/services/lending/engine) is pure: src/domain and itself only, nothing of src/db', () => {
  const engine = 'src/services/lending/engine/';
  const files = imports.filter((i) => i.file.startsWith(engine));
  assert.ok(files.length > 5, 'the engine was not read');
  const bad = files
    .filter((i) => !(i.target.startsWith('src/domain/') || i.target.startsWith(engine)))
    .map((i) => `${i.file} -> ${i.spec}`);
  assert.equal(bad.length, 0, `the engine imports what it may not:\n${bad.join('\n')}`);
});

/**
 * The calls `assert(x)` / `assert.ok(x)` (also `t.assert.ok(x)`) with no message: when one fails,
 * Node builds the message by reading and parsing the calling file, which under coverage took
 * minutes and held CI (README.md "Tests"). Each one names what should hold instead.
 */
function messagelessAsserts(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments.length < 2) {
      const callee = node.expression.getText(source);
      if (callee === 'assert' || callee === 'assert.ok' || callee.endsWith('.assert.ok')) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${fileName}:${line + 1}: ${node.getText(source).replace(/\s+/g, ' ').slice(0, 100)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('the assert scanner finds assert(x), assert.ok(x) and t.assert.ok(x), and passes those with a message', () => {
  const found = messagelessAsserts(
    'x.ts',
    [
      'assert(a);',
      'assert.ok(\n  b.every((x) => x > 0),\n);',
      't.assert.ok(c);',
      "assert.ok(d, 'd is set');",
      "assert(e, 'e is set');",
      'fc.assert(fc.property(fc.nat(), (n) => n >= 0));',
      'assert.equal(f, 1);',
    ].join('\n'),
  );
  assert.deepEqual(found, [
    'x.ts:1: assert(a)',
    'x.ts:2: assert.ok( b.every((x) => x > 0), )',
    'x.ts:5: t.assert.ok(c)',
  ]);
});

test('every assert(x) and assert.ok(x) in the tests, benchmarks and scripts carries a message', () => {
  const files = ['test', 'bench', 'scripts', 'sdk'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true })
      .map(String)
      .filter((f) => /\.(ts|tsx|mts)$/.test(f) && !f.includes('node_modules'))
      .map((f) => `${dir}/${f.split('\\').join('/')}`),
  );
  assert.ok(files.length > 100, `${files.length} files scanned`);
  const bare = files.flatMap((file) => messagelessAsserts(file, readFileSync(join(ROOT, file), 'utf8')));
  assert.equal(bare.length, 0, `asserts with no message (${bare.length}):\n${bare.join('\n')}`);
});

test('no comment or text in the code cites "contract N" or "issue N" without the docs/ section that explains it', () => {
  const files = ['src', 'console/src', 'sdk', 'scripts', 'bench', 'test'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true })
      .map(String)
      .filter((f) => /\.(ts|tsx|mts|mjs|js|json|css|html|sql)$/.test(f) && !f.includes('node_modules'))
      .map((f) => `${dir}/${f.split('\\').join('/')}`),
  );
  assert.ok(files.length > 200, `${files.length} files scanned`);
  // "contract 1.0.0" is the version of the published contract, not one of its endpoints
  const cite = /\b(contract|issues?) #?\d+\b(?!\.\d)/i;
  const cited = files.flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (cite.test(line) && !line.includes('docs/') ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
  assert.deepEqual(cited, []);
});
