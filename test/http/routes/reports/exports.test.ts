// GET /api/reports/exports/{dataset}.csv: contract columns, RFC 4180 quoting, from/to filters,
// tenants, keys, and memory that stays flat while a large export is consumed slowly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { build, settableClock, type Harness } from '../../../helpers/app.ts';
import { adminSocketPath, forwardToServer, startAdminSocket } from '../../../../src/ops/adminSocket.ts';
import { runCli } from '../../../../src/cli/main.ts';
import { cli, csvRecords, day, newClient, newPlan, ok, parseCsv, today } from './helpers.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const COLUMNS = {
  clients: [
    'id',
    'business_id',
    'first_name',
    'last_name',
    'dni',
    'sex',
    'street',
    'street_number',
    'floor',
    'apartment',
    'city',
    'state',
    'country',
    'zip_code',
    'phone',
    'alt_phone',
    'email',
    'created_at',
    'updated_at',
    'cuit',
    'notifications_opt_out',
  ],
  credits: [
    'id',
    'client_id',
    'credit_config_id',
    'amount',
    'status',
    'refinanced_from_id',
    'created_by',
    'origin_transaction_reference',
    'branch_id',
    'sequential_id',
    'created_at',
    'updated_at',
    'written_off_at',
    'write_off_reason',
    'total',
    'start_date',
    'amortization',
    'vat_rate',
    'collector_id',
    'application_id',
    'disbursed',
  ],
  installments: [
    'id',
    'credit_id',
    'number',
    'amount',
    'due_date',
    'status',
    'overdue',
    'days_late',
    'created_at',
    'updated_at',
    'principal',
    'interest',
    'vat',
    'insurance',
    'fees',
  ],
  ledger: [
    'id',
    'installment_id',
    'type',
    'amount',
    'branch_id',
    'created_by',
    'created_at',
    'credit_id',
    'effective_date',
    'origin',
    'payment_id',
  ],
  payments: [
    'id',
    'credit_id',
    'amount',
    'paid_on',
    'branch_id',
    'created_by',
    'created_at',
    'reversed_at',
    'reversal_reason',
    'method',
    'channel',
    'external_reference',
    'kind',
  ],
  logs: [
    'id',
    'table_name',
    'action',
    'record_id',
    'old_data',
    'new_data',
    'business_id',
    'branch_id',
    'changed_at',
    'impersonated_by',
    'actor',
  ],
};
const DATASETS = Object.keys(COLUMNS) as (keyof typeof COLUMNS)[];

const csv = (h: Harness, path: string, key?: string | null) => h.get(`/api/reports/exports/${path}`, key);

/** A small book: two credits of 3 installments (one started 70 days ago: overdue), a payment. */
async function smallBook(h: Harness) {
  const plan = await newPlan(h, {
    installments_count: 3,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    interest_rate: 0.1,
  });
  const ana = await newClient(h, 'Ana');
  const old = await ok(
    h.post(`/api/clients/${ana.id}/credits`, { credit_config_id: plan.id, amount: 1000, start_date: day(-70) }),
  );
  await ok(h.post(`/api/credits/${old.credit.id}/payments`, { amount: 200, paid_on: day(-35) }));
  const fresh = await ok(h.post(`/api/clients/${ana.id}/credits`, { credit_config_id: plan.id, amount: 500 }));
  return { plan, ana, credits: [old.credit, fresh.credit] };
}

test('every dataset: CSV headers, the contract column order, and values equal to the API records', async (t) => {
  const h = await build(t);
  const { ana, credits } = await smallBook(h);
  for (const ds of DATASETS) {
    const res = await csv(h, `${ds}.csv`, h.tenant.readKey);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(res.headers['content-disposition'], `attachment; filename="${ds}.csv"`);
    assert.ok(res.body.endsWith('\r\n'), 'records end with CRLF');
    assert.deepEqual(parseCsv(res.body)[0], COLUMNS[ds], `${ds} columns`);
  }

  const clients = csvRecords((await csv(h, 'clients.csv')).body);
  const apiClient = (await ok(h.get(`/api/clients/${ana.id}`), 200)).client;
  assert.equal(clients.length, 1);
  for (const c of COLUMNS.clients)
    assert.equal(clients[0]![c], apiClient[c] === null ? '' : String(apiClient[c]), `client ${c}`);

  const creditRows = csvRecords((await csv(h, 'credits.csv')).body);
  assert.deepEqual(
    creditRows.map((r) => r.id),
    credits.map((c) => c.id),
    'oldest first',
  );
  // a payment's amount, like every money column, is the database's 2-decimal text (docs/reports.md)
  const paymentRows = csvRecords((await csv(h, 'payments.csv')).body);
  assert.ok(paymentRows.length > 0, 'the small book has a payment');
  for (const r of paymentRows) assert.match(r.amount!, /^-?\d+\.\d{2}$/, `payment ${r.id}: amount with 2 decimals`);
  const installments = csvRecords((await csv(h, 'installments.csv')).body);
  const ledger = csvRecords((await csv(h, 'ledger.csv')).body);
  assert.equal(installments.length, 6);
  for (const c of credits) {
    const d = await ok(h.get(`/api/credits/${c.id}`), 200);
    const row = creditRows.find((r) => r.id === c.id)!;
    assert.equal(row.amount, d.credit.amount.toFixed(2), 'money with 2 decimals');
    assert.equal(row.status, d.credit.status);
    assert.equal(row.sequential_id, String(d.credit.sequential_id));
    assert.equal(row.created_at, d.credit.created_at);
    assert.equal(row.start_date, d.credit.start_date);
    for (const i of d.installments) {
      const r = installments.find((x) => x.id === i.id)!;
      // overdue and days_late as of today, as the API computes them
      assert.deepEqual(
        [r.due_date, r.status, r.overdue, r.days_late, Number(r.amount)],
        [i.due_date, i.status, String(i.overdue), String(i.days_late), i.amount],
      );
    }
    for (const e of d.ledgerEntries) {
      const r = ledger.find((x) => x.id === e.id)!;
      assert.deepEqual(
        [
          r.installment_id,
          r.type,
          Number(r.amount),
          r.branch_id || null,
          r.created_by,
          r.created_at,
          r.credit_id,
          r.effective_date,
          r.origin,
          r.payment_id || null,
        ],
        [
          e.installment_id,
          e.type,
          e.amount,
          e.branch_id,
          e.created_by,
          e.created_at,
          e.credit_id,
          e.effective_date,
          e.origin,
          e.payment_id,
        ],
      );
    }
  }
  assert.ok(
    installments.some((i) => i.overdue === 'true' && Number(i.days_late) > 0),
    'the old credit has an overdue installment',
  );

  const logs = csvRecords((await csv(h, 'logs.csv')).body);
  const created = logs.find((l) => l.table_name === 'clients' && l.record_id === ana.id)!;
  assert.equal(created.action, 'INSERT');
  assert.equal(created.old_data, '');
  assert.equal(JSON.parse(created.new_data!).dni, ana.dni, 'new_data is the JSON text of the row');
  assert.equal(created.actor, `api_key:${h.tenant.fullKeyId}`);
});

test("the installments export shows a cancelled credit's installments as the API does: never late", async (t) => {
  const clock = settableClock('2025-03-11');
  const h = await build(t, { clock });
  const plan = await newPlan(h, { installments_count: 2, days_until_first_payment: 30, daily_punitory_rate: 0.005 });
  const ana = await newClient(h, 'Ana');
  const grant = () =>
    ok(h.post(`/api/clients/${ana.id}/credits`, { credit_config_id: plan.id, amount: 1000, start_date: '2025-03-11' }));
  const cancelled = await grant();
  await ok(h.post(`/api/credits/${cancelled.credit.id}/cancel`), 200);
  const active = await grant();
  clock.set('2025-07-20'); // both due dates (2025-04-10, 2025-05-10) are past

  const rows = csvRecords((await csv(h, 'installments.csv')).body);
  const late = (creditId: string) =>
    rows
      .filter((r) => r.credit_id === creditId)
      // installments written in one instant come in id order: by number here
      .sort((a, b) => Number(a.number) - Number(b.number))
      .map((r) => [r.overdue, r.days_late]);
  assert.deepEqual(
    late(cancelled.credit.id),
    [
      ['false', '0'],
      ['false', '0'],
    ],
    "the cancelled credit's installments: never late",
  );
  assert.deepEqual(
    late(active.credit.id),
    [
      ['true', '101'],
      ['true', '71'],
    ],
    "the active credit's: late since their due dates",
  );
  // as the credit reads say
  for (const c of [cancelled, active]) {
    const read = await ok(h.get(`/api/credits/${c.credit.id}`), 200);
    assert.deepEqual(
      late(c.credit.id),
      read.installments.map((i: any) => [String(i.overdue), String(i.days_late)]),
      `${c.credit.id}: the export as the API`,
    );
  }
});

test('the installments export carries every part of an amount: principal, interest, vat, insurance and fees add up to it, as the API shows them', async (t) => {
  const h = await build(t);
  const c = await newClient(h, 'Ana');
  // 1000 at 35 % flat in 2 installments, VAT 21 %, life insurance 1 % a month with VAT, an admin
  // fee of 20 with VAT (docs/domain.md, "Fees and charges"):
  // #1 principal 500, interest 175, insurance 1 % of 1000 = 10, fees 20; VAT 21 % of
  //    175 + 10 + 20 = 43.05 → 748.05
  // #2 principal 500, interest 175, insurance 1 % of 500 = 5, fees 20; VAT of 200 = 42 → 742
  const plan = await ok(
    h.post('/api/credit-configs', {
      name: 'fees',
      installments_count: 2,
      interest_rate: 0.35,
      vat_rate: 0.21,
      fees: [
        { type: 'insurance', rate: 0.01, vat: true },
        { type: 'admin', amount: 20, vat: true },
      ],
    }),
    201,
  );
  const d = await ok(h.post(`/api/clients/${c.id}/credits`, { credit_config_id: plan.id, amount: 1000 }), 201);
  const rows = csvRecords((await csv(h, 'installments.csv')).body).filter((r) => r.credit_id === d.credit.id);
  const parts = ['amount', 'principal', 'interest', 'vat', 'insurance', 'fees'] as const;
  assert.deepEqual(
    rows.map((r) => parts.map((k) => r[k])).sort(),
    [
      ['742.00', '500.00', '175.00', '42.00', '5.00', '20.00'],
      ['748.05', '500.00', '175.00', '43.05', '10.00', '20.00'],
    ],
    'the parts of each installment, as money text',
  );
  for (const i of d.installments) {
    const r = rows.find((x) => x.id === i.id)!;
    assert.deepEqual(
      parts.map((k) => Number(r[k])),
      parts.map((k) => i[k]),
      `installment ${i.number}: the export's parts are the API's`,
    );
  }
});

test('CSV quoting: commas, quotes and line breaks in names come back intact', async (t) => {
  const h = await build(t);
  const nasty = [
    'Pérez, Juan',
    'Juan "el Toro"',
    'line one\nline two',
    'crlf\r\ninside',
    '"quoted", with\r\nall',
    '  spaced  ',
  ];
  const ids: string[] = [];
  for (const n of nasty) ids.push((await newClient(h, n, { last_name: n, city: 'x,y' })).id);
  const res = await csv(h, 'clients.csv');
  const rows = csvRecords(res.body);
  assert.equal(rows.length, nasty.length);
  for (const [i, n] of nasty.entries()) {
    const r = rows.find((x) => x.id === ids[i])!;
    assert.equal(r.first_name, n.trim() === n ? n : n.trim(), 'first_name'); // the API trims names
    assert.equal(r.city, 'x,y');
  }
  // a field with a line break is quoted, so no record is split
  assert.ok(res.body.includes('"line one\nline two"'), 'res.body includes \'"line one\\nline two"\'');
  assert.ok(res.body.includes('"Juan ""el Toro"""'), 'res.body includes \'"Juan ""el Toro"""\'');
});

test('CSV injection: a text cell a spreadsheet would run starts with an apostrophe; figures, negative ones included, stay numbers', async (t) => {
  const h = await build(t);
  // the probe's payloads; the API trims names, so "\t=1" and "\r=1" arrive as "=1"
  const payloads = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", '-2+3', '@SUM(A1)', '\t=1', '\r=1'];
  const ids: string[] = [];
  for (const p of payloads) ids.push((await newClient(h, p, { last_name: p, city: p })).id);
  // a value stored with a tab or CR at its start (imported, written before trimming): the same
  await sql`update clients set street = ${'\t=1+1'}, floor = ${'\r=1+1'} where id = ${ids[0]}`.execute(h.db.kysely);
  const phone = await newClient(h, 'Phone', { phone: '+54 11 5555-0000', alt_phone: '1555-0000' });

  const rows = csvRecords((await csv(h, 'clients.csv')).body);
  for (const [i, p] of payloads.entries()) {
    const r = rows.find((x) => x.id === ids[i])!;
    const stored = p.trim();
    for (const f of ['first_name', 'last_name', 'city'])
      assert.equal(r[f], `'${stored}`, `${f} of ${JSON.stringify(p)}`);
  }
  const first = rows.find((x) => x.id === ids[0])!;
  assert.equal(first.street, "'\t=1+1");
  assert.equal(first.floor, "'\r=1+1");
  const ph = rows.find((x) => x.id === phone.id)!;
  assert.equal(ph.phone, "'+54 11 5555-0000", 'a phone in international form is text too');
  assert.equal(ph.alt_phone, '1555-0000');
  assert.equal(ph.first_name, 'Phone', 'other text as it is');
  for (const r of rows)
    for (const v of Object.values(r)) assert.doesNotMatch(v, /^[=+\-@\t\r]/, 'no cell starts a formula');

  // a negative punitory entry (a backdated payment after punitory was posted) stays a number
  const plan = await newPlan(h, {
    installments_count: 1,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    daily_punitory_rate: 0.01,
  });
  const c = await ok(
    h.post(`/api/clients/${phone.id}/credits`, { credit_config_id: plan.id, amount: 1000, start_date: day(-80) }),
  );
  // due 50 days ago: the month close posts its punitory up to the last month end (at least 31
  // days ago); a payment dated 45 days ago then lowers what was owed after it
  assert.equal((await cli(h, 'accrue', '--business', h.tenant.businessId, '--as-of', today())).code, 0);
  await ok(h.post(`/api/credits/${c.credit.id}/payments`, { amount: 500, paid_on: day(-45) }));
  const ledger = csvRecords((await csv(h, 'ledger.csv')).body);
  const negative = ledger.filter((e) => e.credit_id === c.credit.id && e.amount!.startsWith('-'));
  assert.ok(negative.length > 0, `a negative entry: ${JSON.stringify(ledger.map((e) => [e.type, e.amount]))}`);
  for (const e of negative) assert.match(e.amount!, /^-\d+\.\d{2}$/);
  const api = await ok(h.get(`/api/credits/${c.credit.id}`), 200);
  for (const e of negative)
    assert.equal(Number(e.amount), api.ledgerEntries.find((x: { id: string }) => x.id === e.id).amount);
  const figures = { credits: ['amount', 'total', 'sequential_id'], installments: ['number', 'amount', 'days_late'] };
  for (const [ds, columns] of Object.entries(figures))
    for (const r of csvRecords((await csv(h, `${ds}.csv`)).body))
      for (const col of columns) assert.match(r[col]!, /^-?\d+(\.\d{2})?$/, `${ds} ${col} is a figure`);
  for (const e of ledger) assert.match(e.amount!, /^-?\d+\.\d{2}$/);
});

test('from/to filter on created_at (whole days in the business time zone, or instants) and changed_at for logs; malformed is 400', async (t) => {
  const h = await build(t);
  const tz = await h.newTenant({ timezone: 'America/Argentina/Buenos_Aires' }); // UTC−3
  const at = [
    '2024-01-10T12:00:00Z',
    '2024-01-31T23:30:00Z',
    '2024-02-01T00:30:00Z',
    '2024-02-01T03:30:00Z',
    '2024-03-01T00:00:00Z',
  ];
  // test-only fixture: rows with chosen creation times (the API always stamps now)
  for (const bid of [h.tenant.businessId, tz.businessId]) {
    await h.db.kysely
      .insertInto('clients')
      .values(at.map((c, i) => ({ business_id: bid, dni: `f${i}`, first_name: `c${i}`, created_at: c, updated_at: c })))
      .execute();
  }
  const names = async (q: string, key = h.tenant.fullKey) => {
    const res = await csv(h, `clients.csv?${q}`, key);
    assert.equal(res.statusCode, 200, res.body);
    return csvRecords(res.body).map((r) => r.first_name);
  };
  assert.deepEqual(await names(''), ['c0', 'c1', 'c2', 'c3', 'c4']);
  assert.deepEqual(await names('from=2024-01-31&to=2024-01-31'), ['c1']);
  assert.deepEqual(await names('from=2024-02-01'), ['c2', 'c3', 'c4']);
  assert.deepEqual(await names('to=2024-02-01'), ['c0', 'c1', 'c2', 'c3']);
  assert.deepEqual(await names('from=2024-02-01T00:30:00Z'), ['c2', 'c3', 'c4'], 'from is inclusive');
  assert.deepEqual(await names('to=2024-02-01T00:30:00Z'), ['c0', 'c1', 'c2'], 'to is inclusive');
  assert.deepEqual(await names(`from=${encodeURIComponent('2024-01-31T21:00:00-03:00')}&to=2024-02-01T00:30:00.000Z`), [
    'c2',
  ]);
  assert.deepEqual(await names('from=2024-03-02'), []);
  // Buenos Aires: 2024-01-31 runs from 03:00Z that day to 03:00Z the next
  assert.deepEqual(await names('from=2024-01-31&to=2024-01-31', tz.fullKey), ['c1', 'c2']);

  for (const q of [
    'from=2024-02-30',
    'to=2024-1-1',
    'from=yesterday',
    'from=2024-01-01T25:00:00Z',
    'from=2024-01-01T10:00:00',
    'from=2024-01-01T10:00:00%2B99:00',
    'limit=5',
  ]) {
    const res = await csv(h, `clients.csv?${q}`);
    assert.equal(res.statusCode, 400, q);
    assert.equal(JSON.parse(res.body).code, 'validation_failed', q);
  }

  // logs filter on changed_at
  const logs = csvRecords((await csv(h, `logs.csv?from=${today()}`)).body);
  assert.equal(logs.filter((l) => l.table_name === 'clients').length, 5, 'the fixture rows were logged today');
  assert.deepEqual(csvRecords((await csv(h, `logs.csv?to=${day(-1)}`)).body), []);
  const mark = new Date(Date.now() + 5).toISOString();
  await new Promise((r) => setTimeout(r, 20));
  const late = await newClient(h, 'late');
  const after = csvRecords((await csv(h, `logs.csv?from=${mark}`)).body);
  assert.deepEqual(
    after.map((l) => l.record_id),
    [late.id],
  );
});

test('tenants: an export holds only its own business rows; keys are required; unknown datasets are 404', async (t) => {
  const h = await build(t);
  await smallBook(h);
  const b = await h.newTenant();
  const theirClient = await ok(h.post('/api/clients', { dni: 'b-1', first_name: 'B' }, b.fullKey));
  const mine = new Set<string>();
  for (const ds of DATASETS) for (const r of csvRecords((await csv(h, `${ds}.csv`)).body)) mine.add(r.id!);
  assert.ok(mine.size > 20, 'holds: mine.size > 20');
  for (const ds of DATASETS) {
    const res = await csv(h, `${ds}.csv`, b.readKey);
    assert.equal(res.statusCode, 200);
    for (const r of csvRecords(res.body)) {
      assert.ok(!mine.has(r.id!), `${ds}: tenant B sees A's row ${r.id}`);
      if ('business_id' in r) assert.equal(r.business_id, b.businessId);
    }
  }
  assert.deepEqual(
    csvRecords((await csv(h, 'clients.csv', b.readKey)).body).map((r) => r.id),
    [theirClient.id],
  );

  assert.equal((await csv(h, 'clients.csv', null)).statusCode, 401);
  assert.equal((await csv(h, 'clients.csv', 'lk_not_a_key')).statusCode, 401);
  for (const p of ['loans.csv', 'clients.json', 'clients', 'api_keys.csv', '..%2Fclients.csv']) {
    const res = await csv(h, p);
    assert.equal(res.statusCode, 404, p);
    assert.equal(JSON.parse(res.body).code, 'not_found');
  }
  const head = await h.req({ method: 'HEAD', url: '/api/reports/exports/ledger.csv' });
  assert.equal(head.statusCode, 200);
  assert.equal(head.headers['content-type'], 'text/csv; charset=utf-8');
  assert.equal(head.body, '');
});

test('lending export writes the same CSV as the API, and refuses bad input', async (t) => {
  const h = await build(t);
  await smallBook(h);
  for (const ds of ['clients', 'ledger', 'installments'] as const) {
    const out = await cli(h, 'export', ds, '--business', h.tenant.businessId, '--from', day(-1));
    assert.equal(out.code, 0, out.err);
    assert.equal(out.out, (await csv(h, `${ds}.csv?from=${day(-1)}`)).body);
  }
  // a terminal on stderr: a progress bar there (total from a count first), stdout unchanged
  let out = '';
  let err = '';
  const stderr = Object.assign(new Writable({ write: (c, _e, cb) => ((err += c.toString()), cb()) }), {
    isTTY: true,
    columns: 100,
  });
  const stdout = new Writable({ write: (c, _e, cb) => ((out += c.toString()), cb()) });
  const code = await runCli(
    ['export', 'installments', '--business', h.tenant.businessId],
    { stdout, stderr, stderrIsTTY: true },
    { db: h.db, storage: h.app.storage, config: h.config },
  );
  assert.equal(code, 0, err);
  assert.equal(out, (await csv(h, 'installments.csv')).body);
  // a plain line on stderr, redrawn in place: the first count and the last
  assert.match(err, /installments: 0\/6 rows \(0%\)/);
  assert.match(err, /installments: 6\/6 rows \(100%\)/);
  assert.equal(
    (await cli(h, 'export', 'installments', '--business', h.tenant.businessId)).err,
    '',
    'no bar when stderr is not a terminal',
  );

  assert.equal((await cli(h, 'export', 'nope', '--business', h.tenant.businessId)).code, 2);
  assert.equal((await cli(h, 'export', 'ledger', '--business', h.tenant.businessId, '--to', '2024-02-30')).code, 2);
  assert.equal((await cli(h, 'export', 'ledger', '--business', '00000000-0000-4000-8000-000000000000')).code, 2);
});

/** 50,000 ledger rows on one credit, in one INSERT … SELECT generate_series (test-only fixture). */
async function seedLedger(h: Harness, rows: number) {
  const plan = await newPlan(h);
  const c = await newClient(h, 'Big');
  const d = await ok(h.post(`/api/clients/${c.id}/credits`, { credit_config_id: plan.id, amount: 100 }));
  const inst = d.installments[0];
  await sql`
    INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, effective_date, created_by)
    SELECT ${h.tenant.businessId}::uuid, ${d.credit.id}::uuid, ${inst.id}::uuid, 'punitory', 'accrual', (g % 1000) / 100.0 + 0.01, ${today()}::date,
           'seed, "quoted" ' || repeat('x', 80)
    FROM generate_series(1, ${rows}::int) g`.execute(h.db.kysely);
  return rows + 1; // and the credit's own installment entry
}

/** Heap + array buffers: what the process holds in JS objects, strings and Buffers. */
const held = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

test('a 50,000-row export streams: memory stays flat while the consumer reads slowly', async (t) => {
  const h = await build(t);
  const expected = await seedLedger(h, 50_000);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;

  gc();
  gc();
  const base = held();
  const baseRss = process.memoryUsage().rss;
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(
      {
        host: '127.0.0.1',
        port,
        path: '/api/reports/exports/ledger.csv',
        headers: { authorization: `Bearer ${h.tenant.readKey}` },
      },
      resolve,
    ).on('error', reject),
  );
  assert.equal(res.statusCode, 200);
  let bytes = 0;
  let records = 0;
  let chunks = 0;
  let peakRss = 0;
  const samples: { at: number; growth: number }[] = [];
  for await (const chunk of res as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) records++;
    // a slow consumer: the server must stop reading the database while we dawdle
    if (++chunks % 2 === 0) await new Promise((r) => setTimeout(r, 40));
    // a full collection is the slow part of this test: a sample every 6 chunks (about 35)
    if (chunks % 6 === 0) {
      gc();
      samples.push({ at: bytes, growth: held() - base });
      peakRss = Math.max(peakRss, process.memoryUsage().rss - baseRss);
    }
  }
  assert.equal(records, expected + 1, 'header + every row');
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  const peak = Math.max(...samples.map((s) => s.growth));
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const early = median(samples.filter((s) => s.at <= bytes / 4).map((s) => s.growth));
  const late = median(samples.filter((s) => s.at > (bytes * 3) / 4).map((s) => s.growth));
  t.diagnostic(
    `csv ${mb(bytes)} in ${chunks} chunks; growth of heap+buffers: peak ${mb(peak)}, median first quarter ${mb(early)}, last quarter ${mb(late)}; rss ${mb(peakRss)}`,
  );
  assert.ok(bytes > 10 * 1024 * 1024, 'the data is large enough to tell');
  // holding the rows (or the CSV) would cost more than the CSV's size; a stream holds a batch
  // (a sample may catch one batch's rows and its CSV at once, hence a bound well above a batch)
  assert.ok(peak < bytes / 2, `memory grew ${mb(peak)} for ${mb(bytes)} of CSV`);
  // and it does not climb as the rows go by
  assert.ok(late - early < bytes / 20, `memory climbed from ${mb(early)} to ${mb(late)} over the stream`);
  // resident memory is shown, not asserted: V8 grows its young generation by several MiB under
  // any steady allocation, whatever is held (11.8 MiB once on PostgreSQL with a 2 MiB heap peak);
  // the export bench measures the server's own RSS (docs/benchmarks.md)

  // a client that goes away mid-export: the cursor's transaction is rolled back and its
  // connection freed (on PGlite the only one: a leak would hang every later request)
  await new Promise<void>((resolve, reject) =>
    get(
      {
        host: '127.0.0.1',
        port,
        path: '/api/reports/exports/ledger.csv',
        headers: { authorization: `Bearer ${h.tenant.readKey}` },
      },
      (r) => {
        r.once('data', () => {
          r.destroy();
          resolve();
        });
      },
    ).on('error', reject),
  );
  const next = await Promise.race([
    h.get('/api/reports/summary'),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('the abandoned export still holds the database')), 30_000).unref(),
    ),
  ]);
  assert.equal(next.statusCode, 200);
  if (h.db.mode === 'postgres') {
    let open = -1;
    for (let i = 0; i < 100 && open !== 0; i++) {
      const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND query LIKE 'FETCH % FROM export_rows'`.execute(
        h.db.kysely,
      );
      open = r.rows[0]!.n;
      if (open) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(open, 0, 'no export transaction left open');
  }
});

test('lending export through the admin socket (the server holds the database) streams a large export with flat memory', async (t) => {
  const h = await build(t);
  const expected = await seedLedger(h, 50_000);
  const dir = mkdtempSync(join(tmpdir(), 'lending-admin-'));
  const path = adminSocketPath(dir);
  // what `lending serve` does: run the forwarded command line inside this process, on its database
  const server = await startAdminSocket(path, (argv, io) =>
    runCli(argv, io, { db: h.db, storage: h.app.storage, config: h.config }),
  );
  t.after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  gc();
  gc();
  const base = held();
  let bytes = 0;
  let records = 0;
  let writes = 0;
  const growth: number[] = [];
  // a slow stdout: it takes a chunk (a batch of CSV) every 80 ms
  const stdout = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) records++;
      writes++;
      gc();
      growth.push(held() - base);
      setTimeout(cb, 80);
    },
  });
  let err = '';
  const stderr = new Writable({ write: (c, _e, cb) => ((err += c.toString()), cb()) });
  const code = await forwardToServer(path, ['export', 'ledger', '--business', h.tenant.businessId], {
    stdout,
    stderr,
    stderrIsTTY: false,
  });
  await new Promise<void>((r) => stdout.end(r));
  assert.equal(code, 0, err);
  assert.equal(records, expected + 1, 'header + every row');
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  const peak = Math.max(...growth);
  t.diagnostic(
    `csv ${mb(bytes)} in ${writes} writes through the admin socket; peak growth of heap+buffers ${mb(peak)}`,
  );
  assert.ok(bytes > 10 * 1024 * 1024, 'holds: bytes > 10 * 1024 * 1024');
  // stdout unable to slow the server down would end up holding all of it (≈ 100 % of the CSV);
  // streaming holds a few copies of one batch (CSV, its JSON frame, the socket's buffers)
  assert.ok(peak < bytes * 0.6, `memory grew ${mb(peak)} for ${mb(bytes)} of CSV`);
});
