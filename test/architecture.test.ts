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

const layer = (path: string) => /^src\/([^/]+)\//.exec(path)?.[1];
const imports = sourceImports();

function check(from: string, refused: (i: Import) => boolean) {
  const bad = imports.filter((i) => layer(i.file) === from && refused(i)).map((i) => `${i.file} -> ${i.spec}`);
  assert.equal(bad.length, 0, `src/${from} imports what its layer may not (${bad.length}):\n${bad.join('\n')}`);
}

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

test('src/services does not import src/http, src/cli or src/jobs', () => {
  check('services', (i) => ['http', 'cli', 'jobs'].includes(layer(i.target) ?? ''));
});

test('src/http does not import src/db (not even types: src/services/context.ts names the database)', () => {
  check('http', (i) => layer(i.target) === 'db');
});

test('src/db does not import src/http, src/services, src/cli or src/jobs', () => {
  check('db', (i) => ['http', 'services', 'cli', 'jobs'].includes(layer(i.target) ?? ''));
});
