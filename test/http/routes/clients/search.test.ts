// The client search (docs/api.md, "List clients"): what q finds, in what order and how it pages,
// read from client_search (migration 051), which the database keeps as clients are created and edited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, type Harness } from '../../../helpers/app.ts';

type Client = { id: string; updated_at: string } & Record<string, unknown>;

const ids = async (h: Harness, q: string, more = '') => {
  const res = await h.get(`/api/clients?q=${encodeURIComponent(q)}${more}`, h.tenant.readKey);
  assert.equal(res.statusCode, 200, res.body);
  return (json(res).items as Client[]).map((c) => c.id);
};

test('q finds a name either way round, folded, an email fragment, and nothing across the name and the email', async (t) => {
  const h = await build(t);
  const add = async (body: Record<string, unknown>) => {
    const res = await h.post('/api/clients', body);
    assert.equal(res.statusCode, 201, res.body);
    return json(res) as Client;
  };
  const ana = await add({ dni: '30111222', first_name: 'Ana', last_name: 'Gómez', email: 'ana@example.com' });
  const jose = await add({ dni: '30111333', first_name: 'José', last_name: 'Pérez', email: 'jp_100%@mail.com' });
  const maria = await add({ dni: '40111444', first_name: 'María José', last_name: 'NÚÑEZ' });

  assert.deepEqual(await ids(h, 'ana gom'), [ana.id], 'first then last');
  assert.deepEqual(await ids(h, 'GOMEZ ANA'), [ana.id], 'last then first, any case');
  assert.deepEqual(await ids(h, '  gómez  '), [ana.id], 'accents and the spaces around q');
  assert.deepEqual(await ids(h, 'nunez maria'), [maria.id], 'ñ and ú fold too');
  // newest first: María José was created after José
  assert.deepEqual(await ids(h, 'jose'), [maria.id, jose.id], 'a first name in two clients');
  assert.deepEqual(await ids(h, 'example.co'), [ana.id], 'a fragment of the email');
  // % and _ are the characters themselves, not LIKE's wildcards
  assert.deepEqual(await ids(h, '100%@'), [jose.id], 'a literal %');
  assert.deepEqual(await ids(h, 'jp_1'), [jose.id], 'a literal _');
  assert.deepEqual(await ids(h, 'a%a'), [], 'no wildcard %');
  assert.deepEqual(await ids(h, 'an_'), [], 'no wildcard _');
  // the text is "first last first" chr(1) email: no fragment runs from the name into the email,
  // nor from the last name into the email
  assert.deepEqual(await ids(h, 'ana ana@'), [], 'name and email are apart');
  assert.deepEqual(await ids(h, 'gomez ana@'), [], 'last name and email are apart');
  // a DNI is matched from its start, a name anywhere
  assert.deepEqual(await ids(h, '30111'), [jose.id, ana.id], 'a DNI prefix');
  assert.deepEqual(await ids(h, '111222'), [], 'not the middle of a DNI');
});

test('an edit is found by its new name, email, DNI and CUIT and no longer by the old ones', async (t) => {
  const h = await build(t);
  const made = await h.post('/api/clients', {
    dni: '25000111',
    first_name: 'Laura',
    last_name: 'Sosa',
    email: 'laura@viejo.com',
    cuit: '27250001113',
  });
  assert.equal(made.statusCode, 201, made.body);
  const c = json(made) as Client;
  for (const q of ['sosa', 'laura@viejo', '25000', '27-2500'])
    assert.deepEqual(await ids(h, q), [c.id], `before the edit: ${q}`);

  const edited = await h.put(`/api/clients/${c.id}`, {
    ...c,
    last_name: 'Benítez',
    email: 'laura@nuevo.com',
    dni: '26000222',
    cuit: '27260002223',
  });
  assert.equal(edited.statusCode, 200, edited.body);
  for (const q of ['sosa', 'laura@viejo', '25000', '27-2500']) assert.deepEqual(await ids(h, q), [], `old: ${q}`);
  for (const q of ['benitez laura', 'laura@nuevo', '26000', '27-2600'])
    assert.deepEqual(await ids(h, q), [c.id], `new: ${q}`);

  // an edit of another field leaves the search as it was
  assert.equal((await h.put(`/api/clients/${c.id}`, { ...(json(edited) as Client), city: 'Rosario' })).statusCode, 200);
  assert.deepEqual(await ids(h, 'benitez'), [c.id], 'after an edit of the city');
});

test('a search pages newest first with the exact total; with updated_since, oldest change first', async (t) => {
  const h = await build(t);
  const made: Client[] = [];
  for (let i = 0; i < 5; i++) {
    made.push(json(await h.post('/api/clients', { dni: `5000000${i}`, first_name: `N${i}`, last_name: 'Acosta' })));
    await h.post('/api/clients', { dni: `6000000${i}`, first_name: `N${i}`, last_name: 'Medina' });
  }
  const newestFirst = made.map((c) => c.id).reverse();
  const pages = [];
  for (const offset of [0, 2, 4, 6]) {
    const page = json(await h.get(`/api/clients?q=acosta&limit=2&offset=${offset}`));
    assert.equal(page.total, 5, `total at offset ${offset}`);
    assert.deepEqual([page.limit, page.offset], [2, offset]);
    pages.push(...(page.items as Client[]).map((c) => c.id));
  }
  assert.deepEqual(pages, newestFirst, 'the pages one after another are the matches newest first, each once');

  // the third one edited: with updated_since it comes last (oldest change first), the others in creation order
  const since = made[0]!.updated_at;
  const third = made[2]!;
  assert.equal((await h.put(`/api/clients/${third.id}`, { ...third, city: 'Salta' })).statusCode, 200);
  const synced = json(await h.get(`/api/clients?q=acosta&updated_since=${encodeURIComponent(since)}&limit=3&offset=0`));
  assert.equal(synced.total, 5);
  const rest = json(await h.get(`/api/clients?q=acosta&updated_since=${encodeURIComponent(since)}&limit=3&offset=3`));
  assert.deepEqual(
    [...synced.items, ...rest.items].map((c: Client) => c.id),
    [made[0]!.id, made[1]!.id, made[3]!.id, made[4]!.id, third.id],
  );
});

test("a search finds only the business's own clients", async (t) => {
  const h = await build(t);
  const other = await h.newTenant();
  const mine = json(await h.post('/api/clients', { dni: '70000001', first_name: 'Eva', last_name: 'Quiroga' }));
  assert.equal(
    (await h.post('/api/clients', { dni: '70000001', first_name: 'Eva', last_name: 'Quiroga' }, other.fullKey))
      .statusCode,
    201,
  );
  for (const q of ['quiroga', '7000'])
    assert.deepEqual(
      json(await h.get(`/api/clients?q=${q}`)).items.map((c: Client) => c.id),
      [mine.id],
      q,
    );
});
