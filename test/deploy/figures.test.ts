// scripts/figures.ts, the check of an upgrade on a copy of the book (docs/deployment.md, "Checking a
// migration on a real book"): a snapshot through the real server's HTTP API, taken twice of the
// same book, diffs clean; a payment in between shows as differences and exit 1; a field only the
// newer snapshot has passes when it is zero and is a difference when it is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, json } from '../helpers/app.ts';

const exec = promisify(execFile);

/** `npm run figures -- <args>`: its exit code and output. */
async function figures(args: string[], key = ''): Promise<{ code: number; out: string }> {
  try {
    const r = await exec(process.execPath, ['--import', 'tsx', 'scripts/figures.ts', ...args], {
      env: { ...process.env, LENDING_API_KEY: key },
    });
    return { code: 0, out: r.stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: `${e.stdout}${e.stderr}` };
  }
}

test('figures: two snapshots of the same book diff clean; a payment between them is each figure it moved', {
  timeout: 300_000,
}, async (t) => {
  const h = await build(t);
  const dir = mkdtempSync(join(tmpdir(), 'figures-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const plan = json(
    await h.post('/api/credit-configs', {
      name: 'French 3 with VAT',
      installments_count: 3,
      interest_rate: 0.6,
      daily_punitory_rate: 0.004,
      amortization: 'french',
      vat_rate: 0.21,
    }),
  );
  const client = json(await h.post('/api/clients', { dni: '30555666', first_name: 'Ana', last_name: 'Paz' }));
  const start = new Date(Date.now() - 75 * 86_400_000).toISOString().slice(0, 10);
  const created = await h.post(`/api/clients/${client.id}/credits`, {
    credit_config_id: plan.id,
    amount: 90000,
    start_date: start,
  });
  assert.equal(created.statusCode, 201, created.body);
  const credit = json(created).credit;
  const first = json(created).installments[0];
  const paid = await h.post(`/api/credits/${credit.id}/payments`, { amount: first.amount, paid_on: first.due_date });
  assert.equal(paid.statusCode, 201, paid.body);

  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const address = h.app.server.address();
  assert.ok(address && typeof address === 'object', 'the app listens on a port');
  const url = `http://127.0.0.1:${address.port}`;
  const snap = async (name: string) => {
    const r = await figures(['snapshot', '--url', url, '--out', join(dir, name)], h.tenant.readKey);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /1 credits, 3 installments/);
  };

  await snap('a.jsonl');
  await snap('b.jsonl');
  const same = await figures(['diff', join(dir, 'a.jsonl'), join(dir, 'b.jsonl')]);
  assert.equal(same.code, 0, same.out);
  assert.match(same.out, /compared 1 credits, 3 installments, \d+ ledger entries, .* 0 differences/);

  const more = await h.post(`/api/credits/${credit.id}/payments`, { amount: 1000 });
  assert.equal(more.statusCode, 201, more.body);
  await snap('c.jsonl');
  const moved = await figures(['diff', join(dir, 'a.jsonl'), join(dir, 'c.jsonl'), '--show', '1000']);
  assert.equal(moved.code, 1, moved.out);
  assert.ok(
    moved.out.includes(
      `DIFF credit:${credit.id}.read.balance.paid: ${first.amount} before, ${Math.round((first.amount + 1000) * 100) / 100} after`,
    ),
    moved.out,
  );
  assert.match(moved.out, /DIFF business:summary\.collected/);
});

test('figures: a field only the newer snapshot has must be zero, and the snapshots must be of the same day', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'figures-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, lines: unknown[]) => {
    writeFileSync(join(dir, name), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    return join(dir, name);
  };
  const meta = (today: string) => ({ key: 'meta', value: { today, as_of: today } });
  const credit = (extra: object) => ({
    key: 'credit:c1',
    value: { read: { installments: [{ number: 1, amount: 450, ...extra }], balance: { outstanding: 450 } } },
  });
  const before = file('before.jsonl', [meta('2026-03-02'), credit({})]);

  const zero = await figures([
    'diff',
    before,
    file('zero.jsonl', [meta('2026-03-02'), credit({ fees: 0, charges: [] })]),
  ]);
  assert.equal(zero.code, 0, zero.out);
  assert.match(zero.out, /credit:\*\.read\.installments\[\]\.fees {2}×1 {2}values 0/);

  const some = await figures(['diff', before, file('some.jsonl', [meta('2026-03-02'), credit({ fees: 12.5 })])]);
  assert.equal(some.code, 1, some.out);
  assert.ok(some.out.includes('DIFF credit:c1.read.installments[0].fees: new field, 12.5 (must be zero)'), some.out);

  const ignored = await figures([
    'diff',
    before,
    file('ignored.jsonl', [meta('2026-03-02'), credit({ fees: 12.5, amount: 451 })]),
    '--ignore',
    '^credit:\\*\\.read\\.installments\\[\\]\\.(fees|amount)$',
  ]);
  assert.equal(ignored.code, 0, ignored.out);
  assert.match(ignored.out, /0 differences \(2 fields or records left out by --ignore\)/);

  const gone = await figures(['diff', before, file('gone.jsonl', [meta('2026-03-02')])]);
  assert.equal(gone.code, 1, gone.out);
  assert.ok(gone.out.includes('DIFF credit:c1: only before'), gone.out);

  const otherDay = await figures(['diff', before, file('day.jsonl', [meta('2026-03-03'), credit({})])]);
  assert.equal(otherDay.code, 2, otherDay.out);
  assert.match(otherDay.out, /different days/);
});
