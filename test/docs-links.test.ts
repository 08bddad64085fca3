// The repository stands alone: every link in README.md and docs/**/*.md points at a file inside
// the repository (a relative path, no scheme, no escape above the root), and every #anchor names
// a heading of the markdown file it points into (GitHub's slugs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The prose of a markdown text: fenced blocks blanked, inline code spans emptied (their brackets kept). */
function prose(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1]!.startsWith(fence)) fence = null;
      return '';
    }
    if (m) {
      fence = m[1]!;
      return '';
    }
    return line.replace(/(`+)(?:(?!\1).)+?\1/g, '');
  });
}

/** GitHub's anchor for a heading: lowercase, punctuation and symbols dropped except '-' and '_', spaces to '-'. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a markdown text: its headings' slugs (repeats numbered as GitHub does) and explicit ids. */
export function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s{0,3}(`{3,}|~{3,})/.test(line)) fence = !fence;
    if (fence) continue;
    const h = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) out.add(a[1]!);
  }
  return out;
}

const LINK = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+["'(][^)]*)?\)/g;
const DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/;

/** What is wrong with the links of one markdown file (path relative to the root), as readable lines. */
export function linkProblems(file: string, text: string, read: (path: string) => string | null): string[] {
  const problems: string[] = [];
  prose(text).forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    const targets = [...line.matchAll(LINK)].map((m) => m[1]!);
    const def = DEFINITION.exec(line);
    if (def) targets.push(def[1]!);
    const AUTOLINK = /<([a-z][a-z0-9+.-]*:[^>\s]*)>/gi;
    for (const a of line.matchAll(AUTOLINK)) problems.push(`${where}: autolink ${a[1]} leaves the repository`);
    const bare = def
      ? null
      : line
          .replace(LINK, '')
          .replace(AUTOLINK, '')
          .match(/\bhttps?:\/\/\S+/gi);
    for (const u of bare ?? []) problems.push(`${where}: bare URL ${u} (GitHub links it) leaves the repository`);
    for (const target of targets) {
      const problem = checkTarget(file, target, read);
      if (problem) problems.push(`${where}: ${target}: ${problem}`);
    }
  });
  return problems;
}

function checkTarget(file: string, target: string, read: (path: string) => string | null): string | null {
  if (target === '') return 'empty link';
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return 'has a scheme: links must stay inside the repository';
  const hash = target.indexOf('#');
  const pathPart = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  if (pathPart.startsWith('/')) return 'is absolute: use a path relative to this file';
  const path = pathPart === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), decodeURIComponent(pathPart)));
  if (path === '..' || path.startsWith(`..${sep}`)) return 'escapes the repository';
  const content = read(path);
  if (content === null) return `${path} is not a file of the repository`;
  if (anchor !== null && extname(path) === '.md' && !anchors(content).has(anchor))
    return `no heading #${anchor} in ${path}`;
  return null;
}

function readRepoFile(path: string): string | null {
  const full = join(ROOT, path);
  return existsSync(full) && statSync(full).isFile() ? readFileSync(full, 'utf8') : null;
}

const docs = readdirSync(join(ROOT, 'docs'), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.md'))
  .map((f) => join('docs', f))
  .sort();

for (const file of ['README.md', ...docs]) {
  test(`${file}: every link points inside the repository, every anchor at a heading`, () => {
    assert.deepEqual(linkProblems(file, readRepoFile(file)!, readRepoFile), []);
  });
}

test('README.md, CHANGELOG.md and docs/ cite no "issue N" a reader of the repository cannot follow', () => {
  // "contract N" is fine here: docs/api.md numbers the contract's endpoints and says so
  const cite = /\bissues? #?\d+\b(?!-)/i;
  const cited = ['README.md', 'CHANGELOG.md', ...docs].flatMap((file) =>
    readRepoFile(file)!
      .split('\n')
      .flatMap((line, i) => (cite.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
  assert.deepEqual(cited, []);
});

test('the checker: GitHub slugs, and each kind of bad link is caught', () => {
  assert.equal(slug('Summary: what "as of D" means'), 'summary-what-as-of-d-means');
  assert.equal(slug("List a client's credits (read 2)"), 'list-a-clients-credits-read-2');
  assert.equal(
    slug('Uploads (`POST /api/clients/{id}/files`, `POST /upload/{token}`)'),
    'uploads-post-apiclientsidfiles-post-uploadtoken',
  );
  assert.equal(slug('Money, rates, dates and ids'), 'money-rates-dates-and-ids');
  assert.deepEqual([...anchors('# A\n## A\n```\n# not a heading\n```\n### b_c d')], ['a', 'a-1', 'b_c-d']);

  const files: Record<string, string> = { 'docs/x.md': '# Title\n## Part one\n', 'src/y.ts': '' };
  const read = (p: string) => files[p] ?? null;
  const check = (text: string) => linkProblems('docs/x.md', text, read).length;
  assert.equal(
    check('[ok](#part-one) [ok](x.md#title) [ok](../src/y.ts) `[code](http://a.b)`\n```\n[fenced](https://a.b)\n```'),
    0,
  );
  assert.equal(check('[web](https://example.com)'), 1);
  assert.equal(check('[file](file:///etc/passwd)'), 1);
  assert.equal(check('[out](../../outside.md)'), 1);
  assert.equal(check('[abs](/docs/x.md)'), 1);
  assert.equal(check('[missing](nope.md)'), 1);
  assert.equal(check('[anchor](#nope) [anchor](x.md#part-two)'), 2);
  assert.equal(check('see <https://example.com> or https://example.com'), 2);
  assert.equal(check('[ref]: https://example.com'), 1);
});
