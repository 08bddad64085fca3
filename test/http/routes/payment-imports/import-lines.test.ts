// POST /api/payment-imports as the API describes it: a CSV sent as text/csv or as the multipart
// field `file` answers 202 while it runs; each line is its own payment, decided as
// POST /api/credits/{id}/payments would; the lines can be read by outcome; the same file sent
// again pays nothing twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock, type Harness } from '../../../helpers/app.ts';
import { client, credit, payments, plan } from '../../../helpers/book-in-cents.ts';
import { fileForm } from '../../../helpers/file-fixtures.ts';

const HEADER = 'credit,amount,paid_on,method,channel,external_reference';

async function finished(h: Harness, id: string): Promise<any> {
  for (let k = 0; k < 400; k++) {
    const r = await h.get(`/api/payment-imports/${id}`);
    assert.equal(r.statusCode, 200, r.body);
    if (json(r).status !== 'running') return json(r);
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error('the import did not finish');
}

const asCsv = (h: Harness, body: string) =>
  h.req({ method: 'POST', url: '/api/payment-imports', headers: { 'content-type': 'text/csv' }, payload: body });

// two credits of 1000 in 2 installments of 500 from 2024-01-01, no punitory; today 2024-02-10
async function book(t: Parameters<typeof build>[0]) {
  const h = await build(t, { clock: settableClock('2024-02-10') });
  const p = await plan(h, { installments_count: 2, days_until_first_payment: 30 });
  const c = await client(h);
  const a = (await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' })).credit;
  const b = (await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' })).credit;
  return { h, a, b };
}

test('a CSV import: 202 running, then per-line outcomes with the API’s codes; the same file again pays nothing twice', async (t) => {
  const { h, a, b } = await book(t);
  const file = [
    HEADER,
    `${a.sequential_id},100,2024-02-05,collection_network,rapipago,A-1`, // line 2: accepted (sequential id)
    `${b.id},50.5,2024-02-06,transfer,bank,T-9`, // line 3: accepted (uuid)
    `99999,10,2024-02-06,cash,rapipago,A-2`, // line 4: no such credit
    `${a.sequential_id},5000,2024-02-06,cash,rapipago,A-3`, // line 5: above the balance (900)
    `${a.sequential_id},5,2099-01-01,cash,rapipago,A-4`, // line 6: paid_on in the future
    `${b.sequential_id},5,2024-02-07,cash,rapipago,A-1`, // line 7: A-1 was just paid (line 2)
    '',
  ].join('\n');
  const res = await asCsv(h, file);
  assert.equal(res.statusCode, 202, res.body);
  const started = json(res);
  assert.equal(started.status, 'running');
  assert.match(started.id, /^[0-9a-f-]{36}$/);

  const done = await finished(h, started.id);
  assert.deepEqual([done.status, done.lines, done.accepted, done.rejected, done.duplicates], ['done', 6, 2, 3, 1]);
  assert.ok(done.created_by && done.created_at && done.finished_at, `who and when: ${JSON.stringify(done)}`);

  const lines = json(await h.get(`/api/payment-imports/${started.id}/lines`));
  assert.equal(lines.total, 6);
  const paidA = (await payments(h, a.id))[0];
  const paidB = (await payments(h, b.id))[0];
  assert.deepEqual(
    lines.items.map((l: any) => [l.line, l.credit, l.amount, l.status, l.code, l.payment_id]),
    [
      [2, String(a.sequential_id), 100, 'accepted', null, paidA.id],
      [3, b.id, 50.5, 'accepted', null, paidB.id],
      [4, '99999', 10, 'rejected', 'not_found', null],
      [5, String(a.sequential_id), 5000, 'rejected', 'unprocessable', null],
      [6, String(a.sequential_id), 5, 'rejected', 'unprocessable', null],
      [7, String(b.sequential_id), 5, 'duplicate', 'duplicate_payment', paidA.id],
    ],
  );
  // each accepted line is a payment as the API makes it, with its method, channel and reference
  assert.deepEqual(
    [paidA.amount, paidA.paid_on, paidA.method, paidA.channel, paidA.external_reference],
    [100, '2024-02-05', 'collection_network', 'rapipago', 'A-1'],
  );
  assert.deepEqual(
    [paidB.amount, paidB.method, paidB.channel, paidB.external_reference],
    [50.5, 'transfer', 'bank', 'T-9'],
  );
  // the lines by outcome
  const only = async (status: string) =>
    json(await h.get(`/api/payment-imports/${started.id}/lines?status=${status}`)).items.map((l: any) => l.line);
  assert.deepEqual(await only('accepted'), [2, 3]);
  assert.deepEqual(await only('rejected'), [4, 5, 6]);
  assert.deepEqual(await only('duplicate'), [7]);
  const bad = await h.get(`/api/payment-imports/${started.id}/lines?status=pending`);
  assert.deepEqual([bad.statusCode, json(bad).code], [400, 'validation_failed']);

  // the same file again: nothing accepted, the references already paid are duplicates
  const again = await finished(h, json(await asCsv(h, file)).id);
  assert.deepEqual([again.accepted, again.duplicates, again.rejected], [0, 3, 3]);
  assert.equal((await payments(h, a.id)).length, 1);
  assert.equal((await payments(h, b.id)).length, 1);
  // an event tells the import finished
  const events = json(await h.get('/api/events?after=0&types=payment_import.finished')).items;
  assert.deepEqual(
    events.map((e: any) => e.data.object.id),
    [started.id, again.id],
  );
});

test('a multipart import (field file), a CSV with a BOM, CRLF, quotes and its columns in another order', async (t) => {
  const { h, a } = await book(t);
  const f = fileForm('pagos.csv', `${HEADER}\n${a.sequential_id},25,2024-02-08,debit,pos,D-1\n`, 'text/csv');
  const res = await h.req({
    method: 'POST',
    url: '/api/payment-imports',
    headers: { 'content-type': f.contentType },
    payload: f.payload,
  });
  assert.equal(res.statusCode, 202, res.body);
  assert.deepEqual((await finished(h, json(res).id)).accepted, 1);

  const odd = `\uFEFFamount,credit,external_reference,channel,paid_on,method\r\n"12.50",${a.id},"R,7",bank,2024-02-09,transfer\r\n`;
  const r2 = await asCsv(h, odd);
  assert.equal(r2.statusCode, 202, r2.body);
  assert.equal((await finished(h, json(r2).id)).accepted, 1);
  const made = (await payments(h, a.id)).map((p) => [p.amount, p.method, p.channel, p.external_reference]);
  assert.deepEqual(made.sort(), [
    [12.5, 'transfer', 'bank', 'R,7'],
    [25, 'debit', 'pos', 'D-1'],
  ]);
});

test('a credit named by its uuid in upper case is paid, as the API takes it in a path', async (t) => {
  const { h, a } = await book(t);
  const upper = a.id.toUpperCase();
  assert.equal(
    (await h.get(`/api/credits/${upper}`)).statusCode,
    200,
    'the API reads the credit by its uuid in upper case',
  );
  const res = await asCsv(h, `${HEADER}\n${upper},30,2024-02-08,cash,bank,U-1\n`);
  assert.equal(res.statusCode, 202, res.body);
  const done = await finished(h, json(res).id);
  assert.deepEqual([done.accepted, done.rejected], [1, 0]);
  const [line] = json(await h.get(`/api/payment-imports/${json(res).id}/lines`)).items;
  // the line keeps the credit as the file wrote it, and names the payment made
  assert.equal(line.credit, upper);
  const paid = await payments(h, a.id);
  assert.deepEqual(
    paid.map((p) => [p.id, p.amount, p.external_reference]),
    [[line.payment_id, 30, 'U-1']],
  );
});

test('what an import refuses as a whole: a read key, another type, a header without amount, too many lines', async (t) => {
  const { h, a } = await book(t);
  const ok = `${HEADER}\n${a.sequential_id},1,2024-02-08,cash,,\n`;
  const read = await h.req({
    method: 'POST',
    url: '/api/payment-imports',
    key: h.tenant.readKey,
    headers: { 'content-type': 'text/csv' },
    payload: ok,
  });
  assert.deepEqual([read.statusCode, json(read).code], [403, 'forbidden']);
  const asJson = await h.post('/api/payment-imports', { file: ok });
  assert.deepEqual([asJson.statusCode, json(asJson).code], [415, 'unsupported_media_type']);
  const noAmount = await asCsv(h, `credit,paid_on\n${a.sequential_id},2024-02-08\n`);
  assert.deepEqual([noAmount.statusCode, json(noAmount).code], [400, 'validation_failed']);
  const big = await asCsv(h, `${HEADER}\n${`${a.sequential_id},0.01,2024-02-08,cash,,\n`.repeat(100_001)}`);
  assert.deepEqual([big.statusCode, json(big).code], [413, 'payload_too_large']);
  assert.equal((await payments(h, a.id)).length, 0, 'nothing was paid');
  // another business's import, or a malformed id, is not found
  const mine = json(await asCsv(h, ok));
  await finished(h, mine.id);
  const other = await h.newTenant();
  for (const url of [`/api/payment-imports/${mine.id}`, `/api/payment-imports/${mine.id}/lines`]) {
    const r = await h.get(url, other.fullKey);
    assert.deepEqual([r.statusCode, json(r).code], [404, 'not_found'], url);
  }
  const malformed = await h.get('/api/payment-imports/not-a-uuid');
  assert.deepEqual([malformed.statusCode, json(malformed).code], [404, 'not_found']);
});

test('the same file without references sent again pays nothing twice; a file that differs is paid', async (t) => {
  const { h, a, b } = await book(t);
  const file = `credit,amount,paid_on\n${a.sequential_id},10,2024-02-01\n${b.sequential_id},20,2024-02-02\n99999,5,2024-02-02\n`;
  const first = await finished(h, json(await asCsv(h, file)).id);
  assert.deepEqual([first.accepted, first.rejected, first.duplicates], [2, 1, 0]);
  const [pa] = await payments(h, a.id);
  const [pb] = await payments(h, b.id);

  // byte for byte the same: the lines that paid are duplicates naming their payments; the
  // rejected one is decided again (and rejected again)
  const again = await finished(h, json(await asCsv(h, file)).id);
  assert.deepEqual([again.accepted, again.rejected, again.duplicates], [0, 1, 2]);
  const lines = json(await h.get(`/api/payment-imports/${again.id}/lines`)).items;
  assert.deepEqual(
    lines.map((l: any) => [l.line, l.status, l.code, l.payment_id]),
    [
      [2, 'duplicate', 'duplicate_payment', pa.id],
      [3, 'duplicate', 'duplicate_payment', pb.id],
      [4, 'rejected', 'not_found', null],
    ],
  );
  assert.equal((await payments(h, a.id)).length, 1);
  assert.equal((await payments(h, b.id)).length, 1);

  // another file (one amount differs): each line is its own payment again
  const other = await finished(h, json(await asCsv(h, file.replace(',20,', ',21,'))).id);
  assert.deepEqual([other.accepted, other.duplicates], [2, 0]);
  assert.equal((await payments(h, a.id)).length, 2);
  // another business sending the same text is not a repeat of this one's
  const elsewhere = await h.newTenant();
  const r = await h.req({
    method: 'POST',
    url: '/api/payment-imports',
    key: elsewhere.fullKey,
    headers: { 'content-type': 'text/csv' },
    payload: file,
  });
  assert.equal(r.statusCode, 202, r.body);
  assert.equal(json(r).duplicates, 0);
});

test('the same file without references sent twice at once (a double click) pays once', async (t) => {
  const { h, a, b } = await book(t);
  const file = `credit,amount,paid_on\n${a.sequential_id},10,2024-02-01\n${b.sequential_id},20,2024-02-02\n`;
  // both stored before either is paid: the second is taken before the first has paid anything
  const [r1, r2] = await Promise.all([asCsv(h, file), asCsv(h, file)]);
  assert.equal(r1.statusCode, 202, r1.body);
  assert.equal(r2.statusCode, 202, r2.body);
  const [one, two] = [await finished(h, json(r1).id), await finished(h, json(r2).id)];
  assert.deepEqual(
    [one.accepted + two.accepted, one.duplicates + two.duplicates],
    [2, 2],
    `between them the file paid once: ${JSON.stringify([one, two])}`,
  );
  assert.equal((await payments(h, a.id)).length, 1);
  assert.equal((await payments(h, b.id)).length, 1);
});
