// ARCA's login tickets (migration 017): one per WSAA, certificate and service, the latest kept.
// Credentials: read only by the tax authority client (src/registries/taxAuthority.ts), never
// answered nor logged.
import type { Executor } from '../connection.ts';

export interface TicketKey {
  wsaaUrl: string;
  certSha256: string;
  service: string;
}

export interface StoredTicket {
  token: string;
  sign: string;
  expiresAt: Date;
}

export async function readTicket(db: Executor, key: TicketKey): Promise<StoredTicket | undefined> {
  const row = await db
    .selectFrom('arca_tickets')
    .select(['token', 'sign', 'expires_at'])
    .where('wsaa_url', '=', key.wsaaUrl)
    .where('cert_sha256', '=', key.certSha256)
    .where('service', '=', key.service)
    .executeTakeFirst();
  return row && { token: row.token, sign: row.sign, expiresAt: new Date(row.expires_at) };
}

/** Keeps the ticket unless the one stored lasts longer (another process logged in later). */
export async function writeTicket(db: Executor, key: TicketKey, cuit: string, t: StoredTicket): Promise<void> {
  await db
    .insertInto('arca_tickets')
    .values({
      wsaa_url: key.wsaaUrl,
      cert_sha256: key.certSha256,
      service: key.service,
      cuit,
      token: t.token,
      sign: t.sign,
      expires_at: t.expiresAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['wsaa_url', 'cert_sha256', 'service'])
        .doUpdateSet((eb) => ({
          cuit: eb.ref('excluded.cuit'),
          token: eb.ref('excluded.token'),
          sign: eb.ref('excluded.sign'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .whereRef('arca_tickets.expires_at', '<', 'excluded.expires_at'),
    )
    .execute();
}
