// Client verifications (docs/verification.md): what the central bank's debtor registry or the tax
// authority's register says about a client's CUIT, stored with the registry's answer.
//
// The registry is asked outside any transaction (it may take up to the timeout, and the embedded
// database has one session); only its answer is written, in one short transaction with its audit
// entry and its event. A failure of the registry stores nothing. A verification of the same
// source and CUIT younger than VERIFICATION_TTL_HOURS is answered instead (200) unless refresh;
// "younger" is judged by the request's clock, which also stamps created_at. Two requests racing
// past that check may both ask the registry and both be stored: each is a true answer.
import type { VerificationConfig } from '../config.ts';
import { withActor } from '../db/connection.ts';
import { readTicket, writeTicket } from '../db/repositories/arcaTickets.ts';
import {
  type VerificationRow,
  freshVerification,
  insertVerification,
  listVerifications as verificationPage,
} from '../db/repositories/verifications.ts';
import type { Page, PageRequest } from '../db/repositories/page.ts';
import { unprocessable } from '../domain/errors.ts';
import type { CentralBankSummary, TaxAuthoritySummary } from '../domain/verification.ts';
import { askCentralBank } from '../registries/centralBank.ts';
import { TaxAuthority, notConfigured } from '../registries/taxAuthority.ts';
import { deadline } from '../registries/upstream.ts';
import { requireClient } from './clients.ts';
import type { ActorContext, Database } from './context.ts';
import { emit } from './events.ts';

export type VerificationSource = VerificationRow['source'];

/** The Verification record (src/domain/records.ts). */
export interface Verification {
  id: string;
  client_id: string;
  source: VerificationSource;
  cuit: string;
  status: 'found' | 'not_found';
  summary: CentralBankSummary | TaxAuthoritySummary | null;
  raw: unknown;
  created_by: string;
  created_at: Date;
}

/** The registries of one process: built once (the tax authority keeps its login ticket in memory). */
export interface Registries {
  config: VerificationConfig;
  taxAuthority: TaxAuthority | null;
}

export function registries(db: Database, config: VerificationConfig): Registries {
  const store = {
    read: (key: Parameters<typeof readTicket>[1]) => readTicket(db.kysely, key),
    write: (key: Parameters<typeof readTicket>[1], t: { token: string; sign: string; expiresAt: Date }) =>
      writeTicket(db.kysely, key, config.arca!.cuit, t),
  };
  return { config, taxAuthority: config.arca ? new TaxAuthority(config.arca, store) : null };
}

export const presentVerification = (r: VerificationRow): Verification => ({
  id: r.id,
  client_id: r.client_id,
  source: r.source,
  cuit: r.cuit,
  status: r.status,
  summary: r.summary as Verification['summary'],
  raw: r.raw,
  created_by: r.created_by,
  created_at: r.created_at,
});

export interface VerifyResult {
  /** false: a verification younger than the TTL was answered instead of asking the registry */
  created: boolean;
  verification: Verification;
}

/**
 * Asks the registry about the client's CUIT and stores its answer, or answers the client's
 * verification of the same source and CUIT younger than the TTL unless refresh. 404 for another
 * business's client, 422 for a client without a cuit, 503 when the tax authority is not
 * configured, 502 when the registry fails (nothing stored).
 */
export async function verifyClient(
  db: Database,
  reg: Registries,
  ctx: ActorContext,
  clientId: string,
  input: { source: VerificationSource; refresh?: boolean },
): Promise<VerifyResult> {
  const client = await requireClient(db.kysely, ctx.businessId, clientId);
  const cuit = client.cuit;
  if (!cuit)
    throw unprocessable('the client has no cuit: set it (PUT /api/clients/{id}) before verifying', [
      { path: '/cuit', message: 'required for a verification' },
    ]);
  if (input.source === 'tax_authority' && !reg.taxAuthority) throw notConfigured();

  const { ttlHours, timeoutMs, bcraApiUrl } = reg.config;
  if (!input.refresh && ttlHours > 0) {
    const since = new Date(ctx.now.getTime() - ttlHours * 3_600_000);
    const q = { clientId: client.id, source: input.source, cuit, since };
    if (await freshVerification(db.kysely, ctx.businessId, q)) {
      // read again in the transaction that stores an Idempotency-Key's answer, so a replay answers it
      return withActor(db.kysely, ctx, async (trx) => {
        const row = await freshVerification(trx, ctx.businessId, q);
        return { created: false, verification: presentVerification(row!) };
      });
    }
  }

  const d = deadline(timeoutMs);
  const answer =
    input.source === 'central_bank'
      ? await askCentralBank(bcraApiUrl, cuit, d, ctx.now)
      : await reg.taxAuthority!.ask(cuit, d, ctx.now);

  return withActor(db.kysely, ctx, async (trx) => {
    const row = await insertVerification(trx, ctx.businessId, {
      clientId: client.id,
      source: input.source,
      cuit,
      status: answer.found ? 'found' : 'not_found',
      summary: answer.summary,
      raw: answer.raw,
      createdBy: ctx.actor,
      createdAt: ctx.now,
    });
    const verification = presentVerification(row);
    emit(trx, ctx.businessId, 'verification.completed', verification);
    return { created: true, verification };
  });
}

/** A client's verifications, newest first (404 for another business's client). */
export async function listVerifications(
  db: Database,
  ctx: ActorContext,
  clientId: string,
  q: { source?: VerificationSource } & PageRequest,
): Promise<Page<Verification>> {
  await requireClient(db.kysely, ctx.businessId, clientId);
  const page = await verificationPage(db.kysely, ctx.businessId, clientId, q);
  return { ...page, items: page.items.map(presentVerification) };
}
