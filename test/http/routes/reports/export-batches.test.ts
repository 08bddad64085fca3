// An export reads its rows a batch at a time; while it is suspended between batches (a slow
// client), other requests go on. On the embedded database a cursor's transaction would hold its
// one connection until the export ended; there each batch is a query of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportCsv } from '../../../../src/services/reports.ts';
import { build, json } from '../../../helpers/app.ts';

test('an export suspended between batches blocks no other request; rows written meanwhile are not in it', async (t) => {
  const h = await build(t);
  const made: string[] = [];
  for (let i = 0; i < 7; i++) {
    const res = await h.post('/api/clients', { dni: `exp-${i}-${Math.random().toString(36).slice(2, 8)}` });
    assert.equal(res.statusCode, 201);
    made.push(json(res).id);
  }
  const chunks = exportCsv(h.db, 'clients', {
    businessId: h.tenant.businessId,
    timezone: 'UTC',
    today: '2026-01-01',
    batchSize: 2,
  });
  const seen: string[] = [];
  const take = async () => {
    const next = await chunks.next();
    if (!next.done) seen.push(next.value.csv);
    return !next.done;
  };
  await take(); // the header
  await take(); // the first batch: the export now waits for its reader
  const within = <T>(p: Promise<T>) =>
    Promise.race([
      p,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('blocked behind the export')), 10_000)),
    ]);
  const read = await within(h.get('/api/clients?limit=100'));
  assert.equal(read.statusCode, 200);
  const late = await within(h.post('/api/clients', { dni: `late-${Math.random().toString(36).slice(2, 8)}` }));
  assert.equal(late.statusCode, 201);
  while (await take()) {}
  const csv = seen.join('');
  for (const id of made) assert.equal(csv.split(id).length, 2, `client ${id} exactly once`);
  // PostgreSQL reads one snapshot; the embedded batches stop at the instant the export began
  assert.ok(!csv.includes(json(late).id), 'a client created during the export is not in it');
});
