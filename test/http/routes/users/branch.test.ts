// A user's branch (docs/users.md): the counter they work at. A credit they grant and a payment
// they take without a branch_id are recorded at it; an explicit branch_id or null wins; a branch
// deleted since is ignored; an API key's requests keep the defaults they had.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../../../helpers/app.ts';
import { userSession } from '../../../helpers/sessions.ts';
import { client, plan } from '../../../helpers/book.ts';

test("a signed-in user's branch is where their credits and payments are recorded unless the body says otherwise", async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  const norte = json(await h.post('/api/branches', { name: 'Norte' }));
  const sur = json(await h.post('/api/branches', { name: 'Sur' }));
  const admin = await userSession(h, bid, 'admin');
  const clerk = await userSession(h, bid, 'employee');
  const put = await h.app.inject({
    method: 'PUT',
    url: `/api/users/${clerk.id}`,
    headers: admin.write,
    payload: { branch_id: norte.id },
  });
  assert.equal(put.statusCode, 200, put.body);
  const p = await plan(h, { installments_count: 3 });
  const c = await client(h);
  const as = (who: typeof clerk, method: 'POST', url: string, payload: object) =>
    h.app.inject({ method, url, headers: who.write, payload });

  // granted at the counter: the clerk's branch
  const granted = await as(clerk, 'POST', `/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 900 });
  assert.equal(granted.statusCode, 201, granted.body);
  assert.equal(json(granted).credit.branch_id, norte.id);
  assert.ok(
    json(granted).ledgerEntries.every((e: any) => e.branch_id === norte.id),
    'holds: json(granted).ledgerEntries.every((e) => e.branch_id === norte.id)',
  );
  // an explicit branch, or none, wins
  const elsewhere = await as(clerk, 'POST', `/api/clients/${c.id}/credits`, {
    credit_config_id: p.id,
    amount: 900,
    branch_id: sur.id,
  });
  assert.equal(json(elsewhere).credit.branch_id, sur.id);
  const none = await as(clerk, 'POST', `/api/clients/${c.id}/credits`, {
    credit_config_id: p.id,
    amount: 900,
    branch_id: null,
  });
  assert.equal(json(none).credit.branch_id, null);
  // an admin without a branch, and an API key: no branch, as before
  const byAdmin = await as(admin, 'POST', `/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 900 });
  assert.equal(json(byAdmin).credit.branch_id, null);
  const byKey = json(await h.post(`/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 900 }));
  assert.equal(byKey.credit.branch_id, null);

  // a payment on Sur's credit taken at the clerk's counter: Norte's cash
  const creditId = json(elsewhere).credit.id;
  const paid = await as(clerk, 'POST', `/api/credits/${creditId}/payments`, { amount: 100 });
  assert.equal(paid.statusCode, 201, paid.body);
  assert.ok(
    json(paid)
      .ledgerEntries.filter((e: any) => e.type === 'payment')
      .every((e: any) => e.branch_id === norte.id),
    "every payment is recorded at the user's branch (Norte)",
  );
  // with a key, the credit's branch; with null, none
  await h.post(`/api/credits/${creditId}/payments`, { amount: 100 });
  await as(clerk, 'POST', `/api/credits/${creditId}/payments`, { amount: 100, branch_id: null });
  const payments = json(await h.get(`/api/credits/${creditId}/payments`));
  assert.deepEqual(
    payments.map((x: any) => x.branch_id),
    [norte.id, sur.id, null],
  );

  // the clerk's branch closes: their payments fall back to the credit's branch
  assert.equal((await h.del(`/api/branches/${norte.id}`)).statusCode, 200);
  await as(clerk, 'POST', `/api/credits/${creditId}/payments`, { amount: 100 });
  const after = json(await h.get(`/api/credits/${creditId}/payments`));
  assert.equal(after.at(-1).branch_id, sur.id);
  const later = await as(clerk, 'POST', `/api/clients/${c.id}/credits`, { credit_config_id: p.id, amount: 900 });
  assert.equal(later.statusCode, 201, later.body);
  assert.equal(json(later).credit.branch_id, null);
});
