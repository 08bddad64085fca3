// Business slugs (migration 016): made from the name when none is given (accents folded, other
// characters hyphens, unique with -2, -3, …), whoever inserts the business; given with
// `businesses create --slug` (checked, 409 when taken); shown by `businesses list`; and the
// businesses already there get theirs when the migration runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { migrate } from '../../src/db/migrate.ts';
import { createBusiness } from '../../src/services/businesses.ts';
import { build, json } from '../helpers/app.ts';
import { operatorSession, userSession } from '../helpers/sessions.ts';
import { aLead, submit } from '../http/routes/leads/helpers.ts';
import { cli } from '../helpers/cli.ts';
import { embeddedBefore } from '../helpers/db.ts';

test('a business gets a slug from its name: folded, hyphenated, unique', async (t) => {
  const h = await build(t);
  const tag = randomUUID().slice(0, 6);
  const slug = async (name: string) => (await createBusiness(h.db, { name })).slug;
  assert.equal(await slug(`Créditos del Sur ${tag}`), `creditos-del-sur-${tag}`);
  assert.equal(await slug(`Créditos del Sur ${tag}`), `creditos-del-sur-${tag}-2`);
  assert.equal(await slug(`  CRÉDITOS -- del   SUR!! ${tag} `), `creditos-del-sur-${tag}-3`);
  assert.equal(await slug(`Ñandú & Cía ${tag}`), `nandu-cia-${tag}`);
  // a name that ends in a number takes it; the next of the base goes past it
  assert.equal(await slug(`Acme ${tag} 7`), `acme-${tag}-7`);
  assert.equal(await slug(`Acme ${tag}`), `acme-${tag}`);
  assert.equal(await slug(`Acme ${tag}`), `acme-${tag}-8`);
  // long names are cut at 50 characters, without a trailing hyphen
  assert.equal(await slug(`${tag} ${'x'.repeat(41)} yyyyyy`), `${tag}-${'x'.repeat(41)}-y`);
  assert.equal(await slug(`${tag} ${'x'.repeat(42)} yyyyyy`), `${tag}-${'x'.repeat(42)}`);
  // nothing usable in the name
  assert.match(await slug('¡¿?!'), /^business(-\d+)?$/);
  // every slug has the form the public address takes
  const rows = await sql<{ slug: string }>`SELECT slug FROM businesses`.execute(h.db.kysely);
  for (const r of rows.rows) assert.match(r.slug, /^[a-z0-9]+(-[a-z0-9]+)*$/);

  // SQL by hand gets one too, and a slug given is kept
  const byHand = await sql<{
    slug: string;
  }>`INSERT INTO businesses (name) VALUES (${`By hand ${tag}`}) RETURNING slug`.execute(h.db.kysely);
  assert.equal(byHand.rows[0]!.slug, `by-hand-${tag}`);
});

test('a slug given: checked, unique (409), used by the public form', async (t) => {
  const h = await build(t, { env: { LEADS_RATE_LIMIT_PER_HOUR: '0' } });
  const slug = `prestamos-${randomUUID().slice(0, 8)}`;
  const b = await createBusiness(h.db, { name: 'Préstamos', slug });
  assert.equal(b.slug, slug);
  await assert.rejects(createBusiness(h.db, { name: 'Other', slug }), { code: 'conflict' });
  for (const bad of ['Upper', 'a--b', '-a', 'a-', 'a_b', 'ñ', '', 'x'.repeat(64), 'a b'])
    await assert.rejects(createBusiness(h.db, { name: 'Bad', slug: bad }), { code: 'validation_failed' }, bad);

  // the form of that business stores its lead there
  const res = await submit(h, slug, aLead());
  assert.equal(res.statusCode, 201, res.body);
  const stored = await sql<{ business_id: string }>`SELECT business_id FROM leads WHERE id = ${json(res).id}`.execute(
    h.db.kysely,
  );
  assert.equal(stored.rows[0]!.business_id, b.id);
});

test('the command line: businesses create --slug, and businesses list shows the slug', async (t) => {
  const h = await build(t);
  const slug = `cli-${randomUUID().slice(0, 8)}`;
  const made = await cli(h, 'businesses', 'create', '--name', 'Desde la consola', '--slug', slug, '--json');
  assert.equal(made.code, 0, made.err);
  assert.equal(JSON.parse(made.out).slug, slug);
  const auto = await cli(h, 'businesses', 'create', '--name', `Sin Slug ${slug}`, '--json');
  assert.equal(auto.code, 0, auto.err);
  assert.equal(JSON.parse(auto.out).slug, `sin-slug-${slug}`);

  const list = await cli(h, 'businesses', 'list', '--json');
  assert.equal(list.code, 0, list.err);
  assert.ok(
    (JSON.parse(list.out) as { slug: string }[]).some((b) => b.slug === slug),
    'holds: (JSON.parse(list.out) as { slug: string }[]).some((b) => b.slug === slug)',
  );
  const human = await cli(h, 'businesses', 'list');
  assert.match(human.out.split('\n')[0]!, /\bslug\b/, 'a slug column');
  assert.match(human.out, new RegExp(`\\b${slug}\\b`));

  // a bad or taken slug: a usage error (exit 2) that says why; nothing is created
  const taken = await cli(h, 'businesses', 'create', '--name', 'Again', '--slug', slug);
  assert.equal(taken.code, 2);
  assert.match(taken.err, /slug .* belongs to another business/);
  const bad = await cli(h, 'businesses', 'create', '--name', 'Bad', '--slug', 'Not A Slug');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /not a slug/);
});

test('migration 016 gives the businesses already there unique slugs from their names, oldest first', async (t) => {
  // its own embedded database, left before 016 by hand
  const db = await embeddedBefore(t, '016');
  const k = db.kysely;
  const names = ['Demo Créditos', 'Demo Créditos', 'demo  créditos', 'Demo Créditos 2', '***', 'Financiera Ñandú'];
  for (const [i, name] of names.entries())
    await sql`INSERT INTO businesses (name, created_at) VALUES (${name}, ${new Date(Date.UTC(2025, 0, 1 + i))})`.execute(
      k,
    );

  await migrate(db);
  const rows = await sql<{ name: string; slug: string }>`SELECT name, slug FROM businesses ORDER BY created_at`.execute(
    k,
  );
  assert.deepEqual(
    rows.rows.map((r) => r.slug),
    ['demo-creditos', 'demo-creditos-2', 'demo-creditos-3', 'demo-creditos-2-2', 'business', 'financiera-nandu'],
  );
  // the column is required, unique and of the right form from now on
  await assert.rejects(sql`UPDATE businesses SET slug = 'business' WHERE name = 'Financiera Ñandú'`.execute(k));
  await assert.rejects(sql`UPDATE businesses SET slug = 'Not-OK' WHERE name = 'Financiera Ñandú'`.execute(k));
  await assert.rejects(sql`UPDATE businesses SET slug = NULL WHERE name = 'Financiera Ñandú'`.execute(k));
});

test("a business's users see its slug in GET /auth/me, the platform's operators in GET /admin/businesses", async (t) => {
  const h = await build(t);
  const slug = (
    await sql<{ slug: string }>`SELECT slug FROM businesses WHERE id = ${h.tenant.businessId}`.execute(h.db.kysely)
  ).rows[0]!.slug;
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const me = await h.app.inject({ method: 'GET', url: '/auth/me', headers: admin.read });
  assert.equal(me.statusCode, 200, me.body);
  assert.equal(json(me).business.slug, slug);
  const operator = await operatorSession(h);
  const list = await h.app.inject({ method: 'GET', url: '/admin/businesses', headers: operator.read });
  assert.equal(list.statusCode, 200, list.body);
  assert.equal((json(list) as { id: string; slug: string }[]).find((b) => b.id === h.tenant.businessId)?.slug, slug);
});
