// What the lead tests share: a tenant's slug, the public form's request, a valid lead.
import type { LightMyRequestResponse } from 'fastify';
import { randomUUID } from 'node:crypto';
import { getBusiness } from '../../../../src/db/repositories/businesses.ts';
import type { Harness } from '../../../helpers/app.ts';

export async function slugOf(h: Harness, businessId: string): Promise<string> {
  const b = await getBusiness(h.db.kysely, businessId);
  if (!b) throw new Error(`no business ${businessId}`);
  return b.slug;
}

/** POST /public/{slug}/leads without a key, from an address (127.0.0.1 unless told). */
export function submit(h: Harness, slug: string, body: unknown, from?: string): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: 'POST',
    url: `/public/${slug}/leads`,
    payload: body as object,
    ...(from ? { remoteAddress: from } : {}),
  });
}

/** A valid lead with a dni of its own. */
export function aLead(extra: Record<string, unknown> = {}) {
  return {
    first_name: 'Carlos',
    last_name: 'Pérez',
    dni: `${Math.floor(10_000_000 + Math.random() * 89_999_999)}-${randomUUID().slice(0, 4)}`,
    phone: '+54 11 5555-4321',
    email: 'carlos.perez@example.com',
    amount_requested: 250000,
    message: 'I would like to pay it in 12 months.',
    ...extra,
  };
}
