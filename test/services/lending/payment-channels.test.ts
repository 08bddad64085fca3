// Payment channels and imports (docs/payments.md):
// method, channel and external_reference on payments; a channel's reference pays once per
// business (409 duplicate_payment, also when two requests race); CSV imports paid in the
// background, each line as POST /api/credits/{id}/payments would pay it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock, type Harness } from '../../helpers/app.ts';
import { P35, client, credit, ledger, pay, payments, plan } from '../../helpers/book-in-cents.ts';

// P35: 1000 on 2024-01-01 → 3 × 450 due 01-31, 02-29, 03-31; 2.25 a day of punitory on an unpaid one.
async function newCredit(h: Harness, p: any) {
  const c = await client(h);
  return credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
}

async function finished(h: Harness, id: string): Promise<any> {
  for (let k = 0; k < 400; k++) {
    const r = json(await h.get(`/api/payment-imports/${id}`));
    if (r.status !== 'running') return r;
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error('the import did not finish');
}

const csvPost = (h: Harness, text: string) =>
  h.req({ method: 'POST', url: '/api/payment-imports', payload: text, headers: { 'content-type': 'text/csv' } });

async function lines(h: Harness, id: string, status?: string): Promise<any[]> {
  const r = await h.get(`/api/payment-imports/${id}/lines?limit=100${status ? `&status=${status}` : ''}`);
  assert.equal(r.statusCode, 200, r.body);
  return json(r).items;
}

test('payments carry method, channel and reference; a reference pays once per business, reversed or racing', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  const p = await plan(h, P35);
  const a = await newCredit(h, p);
  const b = await newCredit(h, p);

  await pay(h, a.credit.id, {
    amount: 450,
    paid_on: '2024-01-31',
    method: 'transfer',
    channel: 'Banco',
    external_reference: 'T-1',
  });
  await pay(h, a.credit.id, { amount: 100, paid_on: '2024-02-10' });
  const list = await payments(h, a.credit.id);
  assert.deepEqual(
    list.map((x) => [x.amount, x.method, x.channel, x.external_reference]),
    [
      [450, 'transfer', 'Banco', 'T-1'],
      [100, 'cash', null, null],
    ],
  );
  // the same channel and reference on another credit of the business: 409, naming the payment
  const dup = await h.post(`/api/credits/${b.credit.id}/payments`, {
    amount: 450,
    paid_on: '2024-01-31',
    channel: 'Banco',
    external_reference: 'T-1',
  });
  assert.equal(dup.statusCode, 409, dup.body);
  assert.equal(json(dup).code, 'duplicate_payment');
  assert.match(json(dup).details[0].message, new RegExp(list[0].id));
  assert.equal((await payments(h, b.credit.id)).length, 0, 'nothing written');
  // another channel, or no channel, is another reference
  await pay(h, b.credit.id, { amount: 10, paid_on: '2024-01-31', channel: 'Otro', external_reference: 'T-1' });
  await pay(h, b.credit.id, { amount: 10, paid_on: '2024-01-31', external_reference: 'T-1' });
  // too long: 400
  const long = await h.post(`/api/credits/${b.credit.id}/payments`, { amount: 1, channel: 'x'.repeat(41) });
  assert.equal(long.statusCode, 400, long.body);
  const badMethod = await h.post(`/api/credits/${b.credit.id}/payments`, { amount: 1, method: 'cheque' });
  assert.equal(badMethod.statusCode, 400, badMethod.body);

  // a reversed payment keeps its reference
  const rev = await h.post(`/api/credits/${a.credit.id}/payments/${list[0].id}/reverse`, { reason: 'rebotó' });
  assert.equal(rev.statusCode, 200, rev.body);
  const again = await h.post(`/api/credits/${a.credit.id}/payments`, {
    amount: 450,
    channel: 'Banco',
    external_reference: 'T-1',
  });
  assert.equal(again.statusCode, 409, again.body);

  // two requests racing with one reference on two credits: one pays, the other is 409
  const c = await newCredit(h, p);
  const d = await newCredit(h, p);
  const race = await Promise.all(
    [c, d].map((x) =>
      h.post(`/api/credits/${x.credit.id}/payments`, {
        amount: 50,
        paid_on: '2024-01-31',
        channel: 'Red',
        external_reference: 'R-9',
      }),
    ),
  );
  assert.deepEqual(race.map((r) => r.statusCode).sort(), [201, 409], race.map((r) => r.body).join('\n'));
  const paidBoth = [...(await payments(h, c.credit.id)), ...(await payments(h, d.credit.id))];
  assert.equal(paidBoth.length, 1);
});

test('an import: good, bad and repeated lines, each paid as the API would; the same file again accepts nothing', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  const p = await plan(h, P35);
  const a = await newCredit(h, p);
  const twin = await newCredit(h, p);
  const closed = await newCredit(h, p);
  await pay(h, closed.credit.id, { amount: 1350, paid_on: '2024-01-15' });
  const seq = a.credit.sequential_id;
  const file = [
    'credit,amount,paid_on,method,channel,external_reference',
    `${seq},450,2024-01-31,transfer,Banco,R1`, // 2: pays installment 1
    `${a.credit.id},450,2024-02-29,,Banco,R2`, // 3: by uuid; installment 2; method cash
    `${seq},450,2024-01-31,transfer,Banco,R1`, // 4: repeated in the file: duplicate of line 2
    '999999,10,,,,', // 5: no such credit
    `${seq},12.345,,,,`, // 6: 3 decimals: 400
    `${seq},10000,,,,`, // 7: above what is owed: 422
    `${seq},10,2024-05-01,,,`, // 8: in the future: 422
    `${closed.credit.sequential_id},10,,,,`, // 9: a closed credit: 409
    `${seq},1,2024-03-01,cheque,,`, // 10: unknown method: 400
    `${seq},100,2024-04-10,,Banco,R3`, // 11: after the refused lines, on the same credit: installment 3, 10 days late
  ].join('\n');
  const res = await csvPost(h, file);
  assert.equal(res.statusCode, 202, res.body);
  assert.equal(json(res).status, 'running');
  const imp = await finished(h, json(res).id);
  assert.deepEqual([imp.status, imp.lines, imp.accepted, imp.rejected, imp.duplicates], ['done', 10, 3, 6, 1]);
  const all = await lines(h, imp.id);
  assert.deepEqual(
    all.map((l) => [l.line, l.status, l.code]),
    [
      [2, 'accepted', null],
      [3, 'accepted', null],
      [4, 'duplicate', 'duplicate_payment'],
      [5, 'rejected', 'not_found'],
      [6, 'rejected', 'validation_failed'],
      [7, 'rejected', 'unprocessable'],
      [8, 'rejected', 'unprocessable'],
      [9, 'rejected', 'conflict'],
      [10, 'rejected', 'validation_failed'],
      [11, 'accepted', null],
    ],
  );
  assert.equal(all[2].payment_id, all[0].payment_id, 'the duplicate names the payment that holds the reference');
  assert.deepEqual(
    (await lines(h, imp.id, 'duplicate')).map((l) => l.line),
    [4],
  );
  // the same code as the API for the same payment
  const direct = await h.post(`/api/credits/${a.credit.id}/payments`, { amount: 10000 });
  assert.equal(json(direct).code, all[5].code);

  // allocated exactly as the same payments posted one by one
  await pay(h, twin.credit.id, { amount: 450, paid_on: '2024-01-31' });
  await pay(h, twin.credit.id, { amount: 450, paid_on: '2024-02-29' });
  await pay(h, twin.credit.id, { amount: 100, paid_on: '2024-04-10' });
  // each entry with its installment's number (the order the installments' own entries come in)
  const shape = (entries: any[]) => {
    const numbers = [...new Set(entries.filter((e) => e.type === 'installment').map((e) => e.installment_id))];
    return entries.map((e) => [
      e.type,
      e.origin,
      e.amount,
      e.punitory_part,
      e.effective_date,
      numbers.indexOf(e.installment_id) + 1,
    ]);
  };
  assert.deepEqual(shape(await ledger(h, a.credit.id)), shape(await ledger(h, twin.credit.id)));
  const listed = await payments(h, a.credit.id);
  assert.deepEqual(
    listed.map((x) => [x.amount, x.paid_on, x.method, x.channel, x.external_reference]),
    [
      [450, '2024-01-31', 'transfer', 'Banco', 'R1'],
      [450, '2024-02-29', 'cash', 'Banco', 'R2'],
      [100, '2024-04-10', 'cash', 'Banco', 'R3'],
    ],
  );

  // the same file again: the references are duplicates, nothing is paid twice
  const second = await finished(h, json(await csvPost(h, file)).id);
  assert.deepEqual([second.accepted, second.duplicates, second.rejected], [0, 4, 6]);
  assert.equal((await payments(h, a.credit.id)).length, 3);

  // the event
  const feed = json(await h.get('/api/events?types=payment_import.finished'));
  assert.ok(
    feed.items.some((e: any) => e.data.object.id === imp.id),
    JSON.stringify(feed).slice(0, 300),
  );
});

test('an import as multipart; a file over the limit, a bad header and no file are 4xx', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  const p = await plan(h, P35);
  const a = await newCredit(h, p);
  const boundary = '----lending-test';
  const csv = `credit,amount,paid_on,external_reference\r\n${a.credit.sequential_id},450,2024-01-31,M-1\r\n`;
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="pagos.csv"\r\n` +
    `Content-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`;
  const res = await h.req({
    method: 'POST',
    url: '/api/payment-imports',
    payload: body,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  assert.equal(res.statusCode, 202, res.body);
  const imp = await finished(h, json(res).id);
  assert.deepEqual([imp.lines, imp.accepted], [1, 1]);
  assert.equal((await payments(h, a.credit.id))[0].external_reference, 'M-1');

  const big = `credit,amount\n${'1,1\n'.repeat(100_001)}`;
  const tooMany = await csvPost(h, big);
  assert.equal(tooMany.statusCode, 413, tooMany.body.slice(0, 200));
  assert.equal(json(tooMany).code, 'payload_too_large');
  const header = await csvPost(h, 'credito,monto\n1,1\n');
  assert.equal(header.statusCode, 400, header.body);
  const wrongType = await h.req({
    method: 'POST',
    url: '/api/payment-imports',
    payload: 'x',
    headers: { 'content-type': 'text/plain' },
  });
  assert.equal(wrongType.statusCode, 415, wrongType.body);
  const missing = await h.get('/api/payment-imports/00000000-0000-4000-8000-000000000000');
  assert.equal(missing.statusCode, 404);
});

const cents = (v: number) => Math.round(v * 100);

// a ledger as comparable rows: installments by their number, not their id
const shape = (list: any[]) => {
  const numbers = [...new Set(list.filter((e) => e.type === 'installment').map((e) => e.installment_id))];
  return list.map((e) => [
    e.type,
    e.origin,
    cents(e.amount),
    cents(e.punitory_part),
    e.effective_date,
    numbers.indexOf(e.installment_id) + 1,
  ]);
};

// installment 1 (450, due 01-31) paid in three lines: 5 days late on 02-05 (5 × 2.25 = 11.25 of
// punitory first), a cent the same day (listed and replayed after it: decided after it), then
// more on 02-10
const THREE_LINES: [string, string][] = [
  ['100.37', '2024-02-05'],
  ['0.01', '2024-02-05'],
  ['360.87', '2024-02-10'],
];

/**
 * Imports THREE_LINES for one credit, after `filler` one-cent lines of another credit, and pays
 * a twin credit the same payments one by one through the API; asserts the import's counts and
 * that both credits' ledgers are the same. Returns the imported credit's payments and ledger.
 */
async function importBesideOneByOne(h: Harness, filler: number) {
  const p = await plan(h, P35);
  const a = await newCredit(h, p);
  const twin = await newCredit(h, p);
  const other = filler > 0 ? await newCredit(h, p) : null;
  const file = [
    'credit,amount,paid_on,method,channel,external_reference',
    ...Array.from({ length: filler }, (_, k) => `${other!.credit.sequential_id},0.01,2024-02-01,transfer,Banco,F${k}`),
    ...THREE_LINES.map(([amount, on], k) => `${a.credit.sequential_id},${amount},${on},transfer,Banco,C${k}`),
  ].join('\n');
  const imp = await finished(h, json(await csvPost(h, file)).id);
  assert.deepEqual([imp.status, imp.accepted, imp.rejected, imp.duplicates], ['done', filler + 3, 0, 0]);
  for (const [amount, on] of THREE_LINES) await pay(h, twin.credit.id, { amount: Number(amount), paid_on: on });

  const paid = await payments(h, a.credit.id);
  assert.deepEqual(
    paid.map((x) => [cents(x.amount), x.paid_on]),
    THREE_LINES.map(([amount, on]) => [cents(Number(amount)), on]),
  );
  if (other) assert.equal((await payments(h, other.credit.id)).length, filler, "the other credit's cents were paid");
  const entries = await ledger(h, a.credit.id);
  assert.deepEqual(
    shape(entries),
    shape(await ledger(h, twin.credit.id)),
    'the import and one by one: the same ledger',
  );
  return { paid, entries };
}

test('an import whose credit has lines in two of a batch’s write chunks: to the cent, as the same payments one by one', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  // a batch writes its payments 100 to a statement (src/services/paymentImports.ts WRITE_CHUNK):
  // 99 cents on another credit, then the credit's first line close the first chunk; its next two
  // lines are written by the second statement, decided on the book the first left in memory
  await importBesideOneByOne(h, 99);
});

test('an import with several lines on one credit in one batch: to the cent, as the same payments one by one', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  const { paid, entries } = await importBesideOneByOne(h, 0);
  // each payment's slices add up to it, to the cent
  for (const x of paid) {
    const slices = entries.filter((e) => e.type === 'payment' && e.payment_id === x.id);
    assert.ok(slices.length > 0, `payment ${x.amount} has its slices`);
    assert.equal(
      slices.reduce((s, e) => s + cents(e.amount), 0),
      cents(x.amount),
      `the slices of ${x.amount}`,
    );
  }
  // the punitory of installment 1 posted up to the first line's date: 5 days × 2.25
  const punitory = entries.filter((e) => e.type === 'punitory');
  assert.deepEqual([cents(punitory[0].amount), punitory[0].effective_date], [1125, '2024-02-05']);
});
