// Steps shared by the report tests: a book built through the HTTP API, the command line run
// in-process on the test database.
import assert from 'node:assert/strict';
import { addDays, todayIn } from '../../../../src/domain/index.ts';
import { json, type Harness } from '../../../helpers/app.ts';
// the parser of scripts/figures.ts: a lone CR or LF outside quotes ends a record, so an export that
// left a line break unquoted splits its row here
import { parseCsv } from '../../../../scripts/csv.ts';
export { cli } from '../../../helpers/cli.ts';
export { parseCsv };

/** The test tenants' today (they are created in UTC). */
export const today = () => todayIn('UTC');
export const day = (k: number) => addDays(today(), k);

export async function ok(res: Promise<{ statusCode: number; body: string }>, status = 201): Promise<any> {
  const r = await res;
  assert.equal(r.statusCode, status, r.body);
  return JSON.parse(r.body);
}

export const newPlan = (h: Harness, fields: Record<string, unknown> = {}) =>
  ok(h.post('/api/credit-configs', { name: 'plan', ...fields }));
export const newBranch = (h: Harness, name: string) => ok(h.post('/api/branches', { name }));

let seq = 0;
export const newClient = (h: Harness, first_name: string, extra: Record<string, unknown> = {}) =>
  ok(
    h.post('/api/clients', {
      dni: `${process.pid}${++seq}${Math.random().toString().slice(2, 7)}`,
      first_name,
      ...extra,
    }),
  );

/** CSV text as records keyed by the header row. */
export function csvRecords(text: string): Record<string, string>[] {
  const [head, ...rows] = parseCsv(text);
  assert.ok(head, 'a header row');
  return rows.map((r) => Object.fromEntries(head.map((c, i) => [c, r[i]!])));
}

export { json };
