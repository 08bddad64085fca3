// Client credits: GET /api/clients/:id/credits for random clients of the bench book,
// through the real server, against the database's ceiling: the statement the app runs (one,
// building the JSON array), prepared (the key is checked in memory).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- credits [--duration 15] [--connections 16] [--json]
import { isDeepStrictEqual } from 'node:util';
import { DOCUMENT_STATEMENTS } from '../src/db/repositories/documents.ts';
import { runBench } from './lib/harness.ts';
import { documentStatement } from './lib/statements.ts';

interface Target extends Record<string, unknown> {
  k: number;
  client_id: string;
}

const lookup = (n: number) => `\\set k random(1, ${n})
SELECT client_id AS cl FROM bench_targets_credits WHERE k = :k \\gset
`;
const DOCUMENT = documentStatement('client_credits', [':bid', ':cl']);

await runBench<Target>({
  name: 'credits',
  work: 'GET /api/clients/:id/credits',
  key: 'read',
  targets: `SELECT row_number() OVER ()::int AS k, id AS client_id FROM (SELECT id FROM clients WHERE business_id = $1 ORDER BY random() LIMIT $2) c`,
  request: (t) => ({ method: 'GET', path: `/api/clients/${t.client_id}/credits` }),
  ceilings: (_book, targets) => [
    {
      label: "the app's statement building the JSON",
      scripts: [{ name: 'document', text: lookup(targets.length) + DOCUMENT }],
    },
  ],
  bare: true,
  sameDocument: async (c, book, t, appBody) => {
    const r = await c.query<{ body: string }>(DOCUMENT_STATEMENTS.client_credits, [book.business_id, t.client_id]);
    const same = isDeepStrictEqual(JSON.parse(r.rows[0]!.body), appBody);
    return `the statement's document ${same ? 'equals' : 'DIFFERS FROM'} the app's answer for client ${t.client_id}`;
  },
});
