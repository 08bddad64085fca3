// Credit ledger: GET /api/credits/:id/ledger for random credits of the bench book,
// through the real server, against the database's ceiling: the statement the app runs (one, building
// the JSON array), prepared.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- ledger [--duration 15] [--connections 16] [--json]
//
// Needs the bench book (npm run bench -- book) in that database.
import { isDeepStrictEqual } from 'node:util';
import { runBench } from './lib/harness.ts';
import { DOCUMENT_STATEMENTS } from '../src/db/repositories/documents.ts';
import { CREDIT_LEDGER_DOCUMENT } from './lib/statements.ts';

interface Target extends Record<string, unknown> {
  k: number;
  credit_id: string;
}

const lookup = (n: number) => `\\set k random(1, ${n})
SELECT credit_id AS cid FROM bench_targets_ledger WHERE k = :k \\gset
`;

await runBench<Target>({
  name: 'ledger',
  work: 'GET /api/credits/:id/ledger',
  key: 'read',
  targets: `SELECT row_number() OVER ()::int AS k, id AS credit_id FROM (SELECT id FROM credits WHERE business_id = $1 ORDER BY random() LIMIT $2) c`,
  request: (t) => ({ method: 'GET', path: `/api/credits/${t.credit_id}/ledger` }),
  ceilings: (_book, targets) => [
    {
      label: "the app's statement building the JSON",
      scripts: [{ name: 'document', text: lookup(targets.length) + CREDIT_LEDGER_DOCUMENT }],
    },
  ],
  bare: true,
  sameDocument: async (c, book, t, appBody) => {
    const r = await c.query<{ body: string }>(DOCUMENT_STATEMENTS.credit_ledger, [book.business_id, t.credit_id]);
    const same = isDeepStrictEqual(JSON.parse(r.rows[0]!.body), appBody);
    return `the one statement's document ${same ? 'equals' : 'DIFFERS FROM'} the app's answer for credit ${t.credit_id}`;
  },
});
