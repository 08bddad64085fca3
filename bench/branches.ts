// The branches (deleted ones included): GET /api/branches, through the real server, against the database's
// ceiling: the statement the app runs (one, building the JSON array), prepared (the key is checked in memory).
// The same document for every request: the bench book's business.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- branches [--duration 15] [--connections 16] [--json]
import { isDeepStrictEqual } from 'node:util';
import { DOCUMENT_STATEMENTS } from '../src/db/repositories/documents.ts';
import { runBench } from './lib/harness.ts';
import { documentStatement } from './lib/statements.ts';

const DOCUMENT = documentStatement('branches', [':bid']);

await runBench<{ k: number }>({
  name: 'branches',
  work: 'GET /api/branches',
  key: 'read',
  targets: 'SELECT 1 AS k WHERE $1::uuid IS NOT NULL AND $2::int > 0',
  request: () => ({ method: 'GET', path: '/api/branches' }),
  ceilings: () => [{ label: "the app's statement building the JSON", scripts: [{ name: 'document', text: DOCUMENT }] }],
  bare: true,
  sameDocument: async (c, book, _t, appBody) => {
    const r = await c.query<{ body: string }>(DOCUMENT_STATEMENTS.branches, [book.business_id]);
    const same = isDeepStrictEqual(JSON.parse(r.rows[0]!.body), appBody);
    return `the statement's document ${same ? 'equals' : 'DIFFERS FROM'} the app's answer`;
  },
});
