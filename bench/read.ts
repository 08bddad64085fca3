// Client read: GET /api/clients/:id for random clients of the bench book, through the
// real server, against the database's ceiling for the same work: the one statement that builds
// the whole document, which is what the app runs (the target: ≥ 70 % of it, p99 < 20 ms;
// the key is checked in memory), and for comparison the 5 statements the app ran before (client,
// credits, installments, ledger, files), all prepared.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- read [--duration 15] [--connections 16] [--json]
//
// Needs the bench book (npm run bench -- book) in that database. Before the load, the app's answer
// for one client is compared with the one statement's document.
import { isDeepStrictEqual } from 'node:util';
import { DOCUMENT_STATEMENTS } from '../src/db/repositories/documents.ts';
import { todayIn } from '../src/domain/index.ts';
import { runBench } from './lib/harness.ts';
import {
  CLIENT,
  CLIENT_DOCUMENT,
  CREDITS_OF_CLIENT,
  FILES_OF_CLIENT,
  INSTALLMENTS_OF_CREDITS,
  LEDGER_OF_CREDITS,
} from './lib/statements.ts';

interface Target extends Record<string, unknown> {
  k: number;
  client_id: string;
  /** the client's credit ids, as a uuid[] literal */
  credit_ids: string;
}

const lookup = (n: number) => `\\set k random(1, ${n})
SELECT client_id AS cl, credit_ids AS cids FROM bench_targets_read WHERE k = :k \\gset
`;

await runBench<Target>({
  name: 'read',
  work: 'GET /api/clients/:id',
  key: 'read',
  targets: `SELECT row_number() OVER ()::int AS k, c.id AS client_id,
                   (SELECT coalesce(array_agg(k.id ORDER BY k.sequential_id), '{}') FROM credits k WHERE k.business_id = $1 AND k.client_id = c.id)::text AS credit_ids
              FROM (SELECT id FROM clients WHERE business_id = $1 ORDER BY random() LIMIT $2) c`,
  request: (t) => ({ method: 'GET', path: `/api/clients/${t.client_id}` }),
  ceilings: (book, targets) => [
    {
      label: "the app's statement building the JSON",
      scripts: [{ name: 'document', text: lookup(targets.length) + CLIENT_DOCUMENT(book.timezone) }],
    },
    {
      label: 'the 5 statements of the app before it',
      scripts: [
        {
          name: 'before',
          text: [
            lookup(targets.length),
            CLIENT,
            CREDITS_OF_CLIENT,
            INSTALLMENTS_OF_CREDITS,
            LEDGER_OF_CREDITS,
            FILES_OF_CLIENT,
          ].join('\n'),
        },
      ],
    },
  ],
  bare: true,
  sameDocument: async (c, book, t, appBody) => {
    const today = todayIn(book.timezone);
    const r = await c.query<{ body: string }>(DOCUMENT_STATEMENTS.client, [
      book.business_id,
      t.client_id,
      today,
      book.timezone,
    ]);
    const same = isDeepStrictEqual(JSON.parse(r.rows[0]!.body), appBody);
    return `the one statement's document ${same ? 'equals' : 'DIFFERS FROM'} the app's answer for client ${t.client_id}`;
  },
});
