// The demo business: what a newcomer gets on `npm start` against an empty embedded database,
// and what `lending demo` creates on demand. Everything goes through the same services (and so
// the same rules and audit triggers) as the API.
import type { Business } from '../db/schema.ts';
import { actorContext, type Clock, type Database } from './context.ts';
import { systemClock } from '../domain/index.ts';
import { createBusiness } from './businesses.ts';
import { createKey } from './apiKeys.ts';
import { createBranch } from './branches.ts';
import { createClient } from './clients.ts';
import { createPlan } from './creditPlans.ts';
import { buildDemoBook } from './demoBook.ts';
import { createUser } from './users.ts';
import { setPasswordWithLink } from './sessions.ts';
import { randomBytes } from 'node:crypto';

export interface DemoResult {
  business: Business;
  keys: { full: string; read: string };
  /** the demo's administrator, to sign in to the console (/app): the password is shown once */
  admin: { email: string; password: string };
}

const CLIENTS = [
  {
    first_name: 'María',
    last_name: 'González',
    dni: '28456789',
    cuit: '27284567892',
    sex: 'f',
    city: 'Córdoba',
    state: 'Córdoba',
    country: 'AR',
    phone: '+54 351 555-0101',
    email: 'maria.gonzalez@example.com',
  },
  {
    first_name: 'Juan',
    last_name: 'Pérez',
    dni: '30123456',
    cuit: '20301234563',
    sex: 'm',
    city: 'Rosario',
    state: 'Santa Fe',
    country: 'AR',
    phone: '+54 341 555-0102',
    email: 'juan.perez@example.com',
  },
  {
    first_name: 'Lucía',
    last_name: 'Fernández',
    dni: '35987654',
    cuit: '27359876543',
    sex: 'f',
    city: 'Mendoza',
    state: 'Mendoza',
    country: 'AR',
    phone: '+54 261 555-0103',
    email: null,
  },
  {
    first_name: 'Carlos',
    last_name: 'Rodríguez',
    dni: '25333444',
    cuit: '20253334445',
    sex: 'm',
    city: 'La Plata',
    state: 'Buenos Aires',
    country: 'AR',
    phone: '+54 221 555-0104',
    email: 'carlos.r@example.com',
  },
  {
    first_name: 'Sofía',
    last_name: 'López',
    dni: '40111222',
    cuit: '27401112222',
    sex: 'f',
    city: 'Salta',
    state: 'Salta',
    country: 'AR',
    phone: null,
    email: 'sofia.lopez@example.com',
  },
] as const;

export async function createDemo(db: Database, clock: Clock = systemClock): Promise<DemoResult> {
  const business = await createBusiness(db, { name: 'Demo Créditos', timezone: 'America/Argentina/Buenos_Aires' });
  const bid = business.id;
  const ctx = actorContext({ businessId: bid, timezone: business.timezone }, 'cli', clock);
  const branches = [
    await createBranch(db, ctx, {
      name: 'Casa Central',
      address: 'Av. Corrientes 1234, CABA',
      phone: '+54 11 5555-0100',
    }),
    await createBranch(db, ctx, {
      name: 'Sucursal Norte',
      address: 'Av. Maipú 2500, Vicente López',
      phone: '+54 11 5555-0200',
    }),
  ];
  const plans = [
    await createPlan(db, ctx, {
      name: '3 cuotas mensuales',
      installments_count: 3,
      cut_type: 'monthly',
      payment_day: 10,
      days_until_first_payment: 20,
      interest_rate: '0.35',
      daily_punitory_rate: '0.005',
      grace_days: 3,
      punitory_cap_pct: '50',
      write_off_days: 180,
    }),
    await createPlan(db, ctx, {
      name: '6 cuotas fijas',
      installments_count: 6,
      cut_type: 'fixed',
      days_until_first_payment: 30,
      interest_rate: '0.6',
      daily_punitory_rate: '0.003',
      punitory_mode: 'compound',
      max_punitory_days: 90,
      write_off_days: 365,
    }),
    await createPlan(db, ctx, { name: 'Pago único 30 días', interest_rate: '0.12', daily_punitory_rate: '0.004' }),
    // declining balance at a nominal 120 % a year, VAT on interest and punitory, due dates moved
    // off weekends and holidays
    await createPlan(db, ctx, {
      name: '12 cuotas sistema francés',
      installments_count: 12,
      cut_type: 'monthly',
      payment_day: 5,
      amortization: 'french',
      interest_rate: '1.2',
      vat_rate: '0.21',
      business_day_rule: 'next',
      daily_punitory_rate: '0.002',
      grace_days: 2,
    }),
  ];
  const clients = [];
  for (const c of CLIENTS) clients.push(await createClient(db, ctx, { ...c }));
  const ids = { clients: clients.map((c) => c.id), plans: plans.map((p) => p.id), branches: branches.map((b) => b.id) };
  await buildDemoBook(db, ctx, ids, clock);
  const full = await createKey(db, { businessId: bid, scope: 'full', name: 'demo full' });
  const read = await createKey(db, { businessId: bid, scope: 'read', name: 'demo read' });
  // someone to sign in to the console as: an admin with a random password, set through the same
  // one-time link an invited user follows
  const email = 'admin@demo.example';
  const { link } = await createUser(db, ctx, { email, role: 'admin', name: 'Administración Demo' });
  const password = `demo-${randomBytes(12).toString('base64url')}`;
  await setPasswordWithLink(db, link.token, password, clock());
  return { business, keys: { full: full.key, read: read.key }, admin: { email, password } };
}
