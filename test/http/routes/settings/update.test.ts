// PUT /api/settings as the API describes it: admins and full keys change the settings, either the
// whole record as GET shows it or only the parts to change; everyone of the business reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../../../helpers/app.ts';
import { userSession } from '../../../helpers/sessions.ts';

const DEFAULTS = {
  approval: { required: false, employee_limit: null },
  reminders: { enabled: false, before_due_days: [3], overdue_days: [1, 7] },
  locale: 'es-AR',
  timezone: 'UTC',
};

test('a partial PUT changes only what it names; the rest keeps its saved value', async (t) => {
  const h = await build(t);
  assert.deepEqual(json(await h.get('/api/settings')), DEFAULTS);

  // one field of one section
  const on = await h.put('/api/settings', { reminders: { enabled: true } });
  assert.equal(on.statusCode, 200, on.body);
  assert.deepEqual(json(on), { ...DEFAULTS, reminders: { ...DEFAULTS.reminders, enabled: true } });

  // another section: the reminders switched on above stay on
  const limit = await h.put('/api/settings', { approval: { employee_limit: 2500.5 } });
  assert.equal(limit.statusCode, 200, limit.body);
  const expected = {
    ...DEFAULTS,
    approval: { required: false, employee_limit: 2500.5 },
    reminders: { ...DEFAULTS.reminders, enabled: true },
  };
  assert.deepEqual(json(limit), expected);

  // an empty body changes nothing and still answers 200
  const empty = await h.put('/api/settings', {});
  assert.equal(empty.statusCode, 200, empty.body);
  assert.deepEqual(json(empty), expected);
  assert.deepEqual(json(await h.get('/api/settings')), expected);

  // the whole record read with GET can be edited and sent back
  const whole = { ...json(await h.get('/api/settings')), locale: 'en', timezone: 'America/Argentina/Buenos_Aires' };
  const back = await h.put('/api/settings', whole);
  assert.equal(back.statusCode, 200, back.body);
  assert.deepEqual(json(back), whole);

  // a bad value in a partial body is still a 400, and nothing changes
  for (const bad of [
    { reminders: { before_due_days: [-1] } },
    { approval: { employee_limit: 1.234 } },
    { approval: { required: 'yes' } },
    { timezone: 'Mars/Olympus' },
    { reminders: { enabled: true, extra: 1 } },
    { extra: 1 },
  ]) {
    const r = await h.put('/api/settings', bad);
    assert.equal(r.statusCode, 400, `${JSON.stringify(bad)}: ${r.body}`);
    assert.equal(json(r).code, 'validation_failed');
  }
  assert.deepEqual(json(await h.get('/api/settings')), whole);
});

test('settings: read by every role and key, changed by admins and full keys only', async (t) => {
  const h = await build(t);
  assert.equal((await h.get('/api/settings', h.tenant.readKey)).statusCode, 200);
  const readPut = await h.put('/api/settings', { locale: 'en' }, h.tenant.readKey);
  assert.deepEqual([readPut.statusCode, json(readPut).code], [403, 'forbidden']);
  for (const role of ['viewer', 'employee'] as const) {
    const s = await userSession(h, h.tenant.businessId, role);
    const get = await h.req({ method: 'GET', url: '/api/settings', key: null, headers: s.read });
    assert.equal(get.statusCode, 200, `${role} reads: ${get.body}`);
    const put = await h.req({
      method: 'PUT',
      url: '/api/settings',
      key: null,
      headers: s.write,
      payload: { locale: 'en' },
    });
    assert.deepEqual([put.statusCode, json(put).code], [403, 'forbidden'], `${role} writes: ${put.body}`);
  }
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const put = await h.req({
    method: 'PUT',
    url: '/api/settings',
    key: null,
    headers: admin.write,
    payload: { locale: 'en' },
  });
  assert.equal(put.statusCode, 200, put.body);
  assert.equal(json(put).locale, 'en');
  // another business keeps its own
  const other = await h.newTenant();
  assert.equal(json(await h.get('/api/settings', other.fullKey)).locale, 'es-AR');
});

test('two partial PUTs at the same time, of different fields, both stay (no lost update)', async (t) => {
  const h = await build(t);
  // each round: one PUT sets the locale, the other the reminders' switch, at once; each reads the
  // saved record and writes it back with its change, so the second must read after the first wrote
  for (let k = 0; k < 8; k++) {
    const locale = k % 2 === 0 ? 'en' : 'es-AR';
    const enabled = k % 2 === 0;
    const [a, b] = await Promise.all([
      h.put('/api/settings', { locale }),
      h.put('/api/settings', { reminders: { enabled } }),
    ]);
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(b.statusCode, 200, b.body);
    const now = json(await h.get('/api/settings'));
    assert.deepEqual([now.locale, now.reminders.enabled], [locale, enabled], `round ${k}: both changes stay`);
  }
});
