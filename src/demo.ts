// The demo business: what a newcomer gets on `npm start` against an empty embedded database,
// and what `lending demo` creates on demand. Everything goes through the same repositories
// (and so the same audit triggers) as the API.
import type { Database } from './db/connection.ts';
import { withActor } from './db/connection.ts';
import { createBusiness } from './db/repositories/businesses.ts';
import { createApiKey } from './db/repositories/apiKeys.ts';
import { insertBranch } from './db/repositories/branches.ts';
import { insertClient } from './db/repositories/clients.ts';
import { insertCreditConfig } from './db/repositories/creditConfigs.ts';
import type { Business } from './db/schema.ts';

export interface DemoResult {
  business: Business;
  keys: { full: string; read: string };
}

/** Hook for the lending engine: adds credits and payments to a fresh demo business. */
export type DemoBook = (db: Database, businessId: string, ids: { clients: string[]; plans: string[]; branches: string[] }) => Promise<void>;
const bookBuilders: DemoBook[] = [];
export function addDemoBook(fn: DemoBook) {
  bookBuilders.push(fn);
}

const CLIENTS = [
  { first_name: 'María', last_name: 'González', dni: '28456789', sex: 'f', city: 'Córdoba', state: 'Córdoba', country: 'AR', phone: '+54 351 555-0101', email: 'maria.gonzalez@example.com' },
  { first_name: 'Juan', last_name: 'Pérez', dni: '30123456', sex: 'm', city: 'Rosario', state: 'Santa Fe', country: 'AR', phone: '+54 341 555-0102', email: 'juan.perez@example.com' },
  { first_name: 'Lucía', last_name: 'Fernández', dni: '35987654', sex: 'f', city: 'Mendoza', state: 'Mendoza', country: 'AR', phone: '+54 261 555-0103', email: null },
  { first_name: 'Carlos', last_name: 'Rodríguez', dni: '25333444', sex: 'm', city: 'La Plata', state: 'Buenos Aires', country: 'AR', phone: '+54 221 555-0104', email: 'carlos.r@example.com' },
  { first_name: 'Sofía', last_name: 'López', dni: '40111222', sex: 'f', city: 'Salta', state: 'Salta', country: 'AR', phone: null, email: 'sofia.lopez@example.com' },
] as const;

export async function createDemo(db: Database): Promise<DemoResult> {
  const business = await createBusiness(db.kysely, { name: 'Demo Créditos', timezone: 'America/Argentina/Buenos_Aires' });
  const bid = business.id;
  const ids = await withActor(db.kysely, 'cli', async (trx) => {
    const branches = [
      await insertBranch(trx, bid, { name: 'Casa Central', address: 'Av. Corrientes 1234, CABA', phone: '+54 11 5555-0100' }),
      await insertBranch(trx, bid, { name: 'Sucursal Norte', address: 'Av. Maipú 2500, Vicente López', phone: '+54 11 5555-0200' }),
    ];
    const plans = [
      await insertCreditConfig(trx, bid, {
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
      await insertCreditConfig(trx, bid, {
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
      await insertCreditConfig(trx, bid, { name: 'Pago único 30 días', interest_rate: '0.12', daily_punitory_rate: '0.004' }),
    ];
    const clients = [];
    for (const c of CLIENTS) clients.push(await insertClient(trx, bid, { ...c }));
    return { clients: clients.map((c) => c.id), plans: plans.map((p) => p.id), branches: branches.map((b) => b.id) };
  });
  for (const build of bookBuilders) await build(db, bid, ids);
  const full = await createApiKey(db.kysely, { businessId: bid, scope: 'full', name: 'demo full' });
  const read = await createApiKey(db.kysely, { businessId: bid, scope: 'read', name: 'demo read' });
  return { business, keys: { full: full.key, read: read.key } };
}
