// Holidays (docs/api.md): GET, POST and DELETE /api/holidays, one a date, by business,
// audited; adding or deleting one moves the tolerance_days of the installments due on the
// non-business days that reach it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock, type Harness } from '../../../helpers/app.ts';
import { holidaySet } from '../../../../src/services/holidays.ts';

test('add, list, filter and delete holidays', async (t) => {
  const h = await build(t);
  assert.deepEqual(json(await h.get('/api/holidays', h.tenant.readKey)), []);

  const res = await h.post('/api/holidays', { date: '2027-02-09', name: '  Carnaval  ' });
  assert.equal(res.statusCode, 201, res.body);
  const carnival = json(res);
  assert.deepEqual(Object.keys(carnival).sort(), ['created_at', 'date', 'name']);
  assert.equal(carnival.date, '2027-02-09');
  assert.equal(carnival.name, 'Carnaval');
  assert.ok(!Number.isNaN(Date.parse(carnival.created_at)), 'holds: !Number.isNaN(Date.parse(carnival.created_at))');

  // a holiday read with GET and sent back: created_at is ignored
  const labour = json(
    await h.post('/api/holidays', {
      date: '2027-05-01',
      name: 'Día del Trabajador',
      created_at: '2001-01-01T00:00:00Z',
    }),
  );
  assert.notEqual(labour.created_at, '2001-01-01T00:00:00.000Z');
  const first = json(await h.post('/api/holidays', { date: '2027-01-01', name: 'Año Nuevo' }));

  // by date, whatever the order they were added in
  const all = json(await h.get('/api/holidays'));
  assert.deepEqual(all, [first, carnival, labour]);
  assert.deepEqual(json(await h.get('/api/holidays?from=2027-01-02')), [carnival, labour]);
  assert.deepEqual(json(await h.get('/api/holidays?to=2027-02-09')), [first, carnival]);
  assert.deepEqual(json(await h.get('/api/holidays?from=2027-02-09&to=2027-02-09')), [carnival]);
  assert.deepEqual(json(await h.get('/api/holidays?from=2027-03-01&to=2027-02-01')), []);

  // a date that has one already: 409, and the first keeps its name
  const dup = await h.post('/api/holidays', { date: '2027-02-09', name: 'otro' });
  assert.equal(dup.statusCode, 409, dup.body);
  assert.equal(json(dup).code, 'conflict');
  assert.deepEqual(json(await h.get('/api/holidays')), all);

  // delete: 200 with the holiday; again, 404
  const del = await h.del('/api/holidays/2027-02-09');
  assert.equal(del.statusCode, 200, del.body);
  assert.deepEqual(json(del), carnival);
  assert.deepEqual(json(await h.get('/api/holidays')), [first, labour]);
  const again = await h.del('/api/holidays/2027-02-09');
  assert.equal(again.statusCode, 404, again.body);
  assert.equal(json(again).code, 'not_found');
  // and it may be added again
  assert.equal((await h.post('/api/holidays', { date: '2027-02-09', name: 'Carnaval' })).statusCode, 201);
});

test('bad holiday requests: 400 for bodies and query parameters, 404 for a path that is not a date', async (t) => {
  const h = await build(t);
  await h.post('/api/holidays', { date: '2027-02-08', name: 'Carnaval' });
  for (const body of [
    {},
    { date: '2027-02-10' },
    { name: 'x' },
    { date: '2027-02-30', name: 'x' },
    { date: '10/02/2027', name: 'x' },
    { date: '2027-02-10T00:00:00Z', name: 'x' },
    { date: 20270210, name: 'x' },
    { date: '2027-02-10', name: '' },
    { date: '2027-02-10', name: '   ' },
    { date: '2027-02-10', name: 'x'.repeat(201) },
    { date: '2027-02-10', name: null },
    { date: '2027-02-10', name: 'x', extra: 1 },
    [],
  ]) {
    const res = await h.post('/api/holidays', body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed');
    assert.ok(Array.isArray(json(res).details), res.body);
  }
  for (const q of ['from=2027-13-01', 'to=yesterday', 'from=', 'other=1']) {
    const res = await h.get(`/api/holidays?${q}`);
    assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed');
  }
  for (const date of ['2027-02-30', 'nope', '2027-2-8', '20270208', '2027-02-08x', '%00']) {
    const res = await h.del(`/api/holidays/${date}`);
    assert.equal(res.statusCode, 404, `${date}: ${res.body}`);
    assert.equal(json(res).code, 'not_found');
  }
  assert.equal(json(await h.get('/api/holidays')).length, 1);
});

test("holidays belong to their business: another business's key neither sees nor deletes them; a read key only reads", async (t) => {
  const h = await build(t);
  const mine = json(await h.post('/api/holidays', { date: '2027-07-09', name: 'Independencia' }));
  const other = await h.newTenant();
  assert.deepEqual(json(await h.get('/api/holidays', other.readKey)), []);
  const del = await h.del('/api/holidays/2027-07-09', other.fullKey);
  assert.equal(del.statusCode, 404, del.body);
  // the same date is theirs to add, and stays theirs
  const theirs = await h.post('/api/holidays', { date: '2027-07-09', name: 'Otro nombre' }, other.fullKey);
  assert.equal(theirs.statusCode, 201, theirs.body);
  assert.deepEqual(json(await h.get('/api/holidays')), [mine]);
  assert.equal((await h.del('/api/holidays/2027-07-09', other.fullKey)).statusCode, 200);
  assert.deepEqual(json(await h.get('/api/holidays')), [mine]);

  for (const res of [
    await h.post('/api/holidays', { date: '2027-07-10', name: 'x' }, h.tenant.readKey),
    await h.del('/api/holidays/2027-07-09', h.tenant.readKey),
  ]) {
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(json(res).code, 'forbidden');
  }
  assert.equal((await h.get('/api/holidays', h.tenant.readKey)).statusCode, 200);
  assert.equal((await h.get('/api/holidays', null)).statusCode, 401);
  assert.deepEqual(json(await h.get('/api/holidays')), [mine]);
});

test('every holiday change is in the audit log, with who made it', async (t) => {
  const h = await build(t);
  await h.post('/api/holidays', { date: '2027-10-12', name: 'Diversidad Cultural' });
  await h.del('/api/holidays/2027-10-12');
  const log = json(await h.get('/api/logs?table_name=holidays'));
  assert.equal(log.total, 2);
  const [deleted, inserted] = log.items;
  assert.equal(inserted.action, 'INSERT');
  assert.equal(inserted.new_data.date, '2027-10-12');
  assert.equal(inserted.new_data.name, 'Diversidad Cultural');
  assert.equal(inserted.old_data, null);
  assert.equal(inserted.actor, `api_key:${h.tenant.fullKeyId}`);
  assert.equal(inserted.business_id, h.tenant.businessId);
  assert.equal(deleted.action, 'DELETE');
  assert.equal(deleted.record_id, inserted.record_id);
  assert.equal(deleted.old_data.date, '2027-10-12');
  assert.equal(deleted.new_data, null);
  // a refused change writes nothing
  await h.post('/api/holidays', { date: '2027-10-13', name: 'x' });
  await h.post('/api/holidays', { date: '2027-10-13', name: 'y' });
  await h.del('/api/holidays/2027-10-14');
  assert.equal(json(await h.get('/api/logs?table_name=holidays')).total, 3);
});

// ---- tolerance_days (not in the API yet: read from the database)

/** A one-installment credit of 1000 due `days` after `start`, through the API; its installment's id. */
async function creditDue(
  h: Harness,
  key: string,
  start: string,
  days: number,
): Promise<{ credit: string; installment: string }> {
  const post = async (url: string, body: object) => {
    const res = await h.post(url, body, key);
    assert.equal(res.statusCode, 201, `${url}: ${res.body}`);
    return json(res);
  };
  const client = await post('/api/clients', { dni: `t${Math.random().toString().slice(2, 12)}` });
  const plan = await post('/api/credit-configs', {
    name: `due in ${days}`,
    installments_count: 1,
    cut_type: 'fixed',
    days_until_first_payment: days,
  });
  const credit = await post(`/api/clients/${client.id}/credits`, {
    credit_config_id: plan.id,
    amount: 1000,
    start_date: start,
  });
  assert.equal(credit.installments.length, 1);
  return { credit: credit.credit.id, installment: credit.installments[0].id };
}

const tolerance = async (h: Harness, installmentId: string) => {
  const row = await h.db.kysely
    .selectFrom('installments')
    .select(['tolerance_days', 'due_date', 'updated_at'])
    .where('id', '=', installmentId)
    .executeTakeFirstOrThrow();
  return row;
};

test('a holiday added or deleted moves the tolerance of the unpaid installments due on the days that reach it', async (t) => {
  // 2026-11-07 is a Saturday, 2026-11-09 a Monday, 2026-11-11 a Wednesday
  const h = await build(t, { clock: settableClock('2026-11-20') });
  const saturday = await creditDue(h, h.tenant.fullKey, '2026-11-01', 6);
  const sunday = await creditDue(h, h.tenant.fullKey, '2026-11-01', 7);
  const wednesday = await creditDue(h, h.tenant.fullKey, '2026-11-01', 10);
  const paid = await creditDue(h, h.tenant.fullKey, '2026-11-01', 6);
  const pay = await h.post(`/api/credits/${paid.credit}/payments`, { amount: 1000, paid_on: '2026-11-05' });
  assert.equal(pay.statusCode, 201, pay.body);
  const other = await h.newTenant();
  const theirs = await creditDue(h, other.fullKey, '2026-11-01', 6);
  assert.equal((await tolerance(h, saturday.installment)).due_date, '2026-11-07');
  assert.equal((await tolerance(h, sunday.installment)).due_date, '2026-11-08');
  const all = [saturday, sunday, wednesday, paid, theirs];
  const tolerances = async () => Promise.all(all.map(async (c) => (await tolerance(h, c.installment)).tolerance_days));
  // credit creation counts the weekend: due Saturday, not late until the end of Monday (2 days)
  assert.deepEqual(await tolerances(), [2, 1, 0, 2, 2]);

  // Monday a holiday: due Saturday, not late until the end of Tuesday (3 days); Sunday 2
  const auditBefore = json(await h.get('/api/logs?table_name=installments&action=UPDATE')).total;
  assert.equal((await h.post('/api/holidays', { date: '2026-11-09', name: 'Soberanía' })).statusCode, 201);
  assert.deepEqual(await tolerances(), [3, 2, 0, 2, 2]);
  // the installments' change is audited with the holiday's
  const audit = json(await h.get('/api/logs?table_name=installments&action=UPDATE'));
  assert.equal(audit.total, auditBefore + 2);
  assert.deepEqual(
    audit.items
      .slice(0, 2)
      .map((e: { new_data: { tolerance_days: number } }) => e.new_data.tolerance_days)
      .sort(),
    [2, 3],
  );

  // Tuesday too: one day more each
  await h.post('/api/holidays', { date: '2026-11-10', name: 'Puente' });
  assert.deepEqual(await tolerances(), [4, 3, 0, 2, 2]);

  // a holiday on the Saturday itself changes nothing: no row is written
  const before = await tolerance(h, saturday.installment);
  await h.post('/api/holidays', { date: '2026-11-07', name: 'Sábado' });
  assert.deepEqual(await tolerances(), [4, 3, 0, 2, 2]);
  assert.deepEqual(await tolerance(h, saturday.installment), before);
  assert.equal(json(await h.get('/api/logs?table_name=installments&action=UPDATE')).total, auditBefore + 4);

  // deleting Monday: Monday is a business day again
  assert.equal((await h.del('/api/holidays/2026-11-09')).statusCode, 200);
  assert.deepEqual(await tolerances(), [2, 1, 0, 2, 2]);
  // a holiday on the Wednesday an installment is due on
  await h.post('/api/holidays', { date: '2026-11-11', name: 'x' });
  assert.deepEqual(await tolerances(), [2, 1, 1, 2, 2]);
  await h.del('/api/holidays/2026-11-10');
  await h.del('/api/holidays/2026-11-11');
  await h.del('/api/holidays/2026-11-07');
  assert.deepEqual(await tolerances(), [2, 1, 0, 2, 2]);
  // the paid installment and the other business's never moved from what creation gave them
  assert.equal((await tolerance(h, theirs.installment)).tolerance_days, 2);
});

test('a long run of holidays reaches back to its first non-business day', async (t) => {
  // a closure from Saturday 2026-12-19 to Sunday 2027-01-03, holidays added from the last day back
  const h = await build(t, { clock: settableClock('2026-11-20') });
  const due = await creditDue(h, h.tenant.fullKey, '2026-12-01', 18); // 2026-12-19
  const weekdays = [];
  for (
    let d = new Date('2026-12-21T00:00:00Z');
    d <= new Date('2027-01-01T00:00:00Z');
    d.setUTCDate(d.getUTCDate() + 1)
  )
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) weekdays.push(d.toISOString().slice(0, 10));
  for (const date of weekdays.reverse()) {
    const res = await h.post('/api/holidays', { date, name: 'Cierre' });
    assert.equal(res.statusCode, 201, res.body);
  }
  // not late until the end of Monday 2027-01-04: 16 days
  assert.equal((await tolerance(h, due.installment)).tolerance_days, 16);
  await h.del('/api/holidays/2026-12-28');
  assert.equal((await tolerance(h, due.installment)).tolerance_days, 9);
});

test('holiday changes made at once still leave every tolerance right (they take the business holiday lock in turn)', async (t) => {
  const h = await build(t, { clock: settableClock('2026-11-20') });
  const saturday = await creditDue(h, h.tenant.fullKey, '2026-11-01', 6); // 2026-11-07
  const days = ['2026-11-09', '2026-11-10', '2026-11-11', '2026-11-12'];
  for (let round = 0; round < 3; round++) {
    const added = await Promise.all(days.map((date) => h.post('/api/holidays', { date, name: 'x' })));
    assert.deepEqual(
      added.map((r) => r.statusCode),
      [201, 201, 201, 201],
    );
    assert.equal((await tolerance(h, saturday.installment)).tolerance_days, 6); // to Friday 2026-11-13
    const deleted = await Promise.all(days.map((date) => h.del(`/api/holidays/${date}`)));
    assert.deepEqual(
      deleted.map((r) => r.statusCode),
      [200, 200, 200, 200],
    );
    assert.equal((await tolerance(h, saturday.installment)).tolerance_days, 2);
  }
});

test('holidaySet: every holiday date of the business, in or out of a transaction', async (t) => {
  const h = await build(t);
  await h.post('/api/holidays', { date: '2027-01-01', name: 'a' });
  await h.post('/api/holidays', { date: '2027-12-25', name: 'b' });
  await h.post('/api/holidays', { date: '2027-12-25', name: 'c' }, (await h.newTenant()).fullKey);
  assert.deepEqual([...(await holidaySet(h.db.kysely, h.tenant.businessId))].sort(), ['2027-01-01', '2027-12-25']);
  const inside = await h.db.kysely.transaction().execute((trx) => holidaySet(trx, h.tenant.businessId));
  assert.deepEqual([...inside].sort(), ['2027-01-01', '2027-12-25']);
});
