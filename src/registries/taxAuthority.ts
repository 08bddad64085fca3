// ARCA's taxpayer register (padrón A13), reached through WSAA with the installation's certificate.
//
// 1. The login ticket: a loginTicketRequest (TRA) for the service ws_sr_padron_a13, signed as CMS
//    with ARCA_CERT/ARCA_KEY (cms.ts), sent to WSAA's LoginCms; the answer's token and sign open
//    the service until its expirationTime (about 12 hours). WSAA refuses a second login for the
//    same certificate and service while a ticket is valid, so the ticket is kept: in this
//    process's memory, and in the database through the TicketStore the caller gives (every
//    process, and a restarted one, finds it there). Concurrent verifications of one process share
//    one login; when WSAA still answers "already authenticated" (another process logged in
//    meanwhile) the store is read again.
// 2. getPersona(token, sign, cuitRepresentada = ARCA_CUIT, idPersona): the persona, or the SOAP
//    fault "No existe persona con ese Id" (not found).
//
// The token and sign never appear in an error message, a log line or a verification's raw answer.
import { X509Certificate, createHash } from 'node:crypto';
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import type { ArcaConfig } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { type TaxAuthoritySummary, taxAuthoritySummary } from '../domain/verification.ts';
import { signCms } from './cms.ts';
import { type Deadline, call, retryAfterSeconds, upstreamError } from './upstream.ts';

export const PADRON_SERVICE = 'ws_sr_padron_a13';
const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const WSAA_NS = 'http://wsaa.view.sua.dvadac.desein.afip.gov';
const A13_NS = 'http://a13.soap.ws.server.puc.sr/';
/** A ticket is not used in its last minute: the call it opens must arrive before it expires. */
const EXPIRY_MARGIN_MS = 60_000;
/** The TRA's own validity around now (WSAA's clock may differ from ours by a few minutes). */
const TRA_SKEW_MS = 10 * 60_000;

export interface Ticket {
  token: string;
  sign: string;
  expiresAt: Date;
}

export interface TicketKey {
  wsaaUrl: string;
  certSha256: string;
  service: string;
}

/** Where tickets outlive the process (the database's arca_tickets). */
export interface TicketStore {
  read(key: TicketKey): Promise<Ticket | undefined>;
  write(key: TicketKey, ticket: Ticket): Promise<void>;
}

export interface TaxAuthorityAnswer {
  found: boolean;
  summary: TaxAuthoritySummary | null;
  /** getPersona's answer as received (the SOAP envelope's text) */
  raw: { get_persona: string };
}

type Node = Record<string, unknown>;

const parser = new XMLParser({
  removeNSPrefix: true,
  parseTagValue: false,
  ignoreAttributes: true,
  isArray: (name) => name === 'domicilio' || name === 'actividad',
});
const builder = new XMLBuilder({ ignoreAttributes: false });

/** The parsed XML, or null when the text is not well-formed XML. */
function parseXml(text: string): Node | null {
  if (XMLValidator.validate(text) !== true) return null;
  return parser.parse(text) as Node;
}

const at = (node: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((n, k) => (n && typeof n === 'object' ? (n as Node)[k] : undefined), node);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v.trim() : undefined);

/** A SOAP fault's code and message, when the envelope carries one. */
function faultOf(doc: Node | null): { code: string; message: string } | null {
  const fault = at(doc, 'Envelope', 'Body', 'Fault');
  if (!fault) return null;
  return { code: str(at(fault, 'faultcode')) ?? '', message: str(at(fault, 'faultstring')) ?? 'no message' };
}

const soapRequest = (body: Node) =>
  builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    'soapenv:Envelope': { '@_xmlns:soapenv': SOAP_NS, 'soapenv:Header': '', 'soapenv:Body': body },
  }) as string;

/** WSAA's xsd:dateTime: to the second, in UTC. */
const xsdTime = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

export class TaxAuthority {
  private readonly memory = new Map<string, Ticket>();
  private readonly logins = new Map<string, Promise<Ticket>>();
  private readonly certSha256: string;
  private readonly certValidTo: Date;

  private readonly config: ArcaConfig;
  private readonly store: TicketStore;

  constructor(config: ArcaConfig, store: TicketStore) {
    this.config = config;
    this.store = store;
    const cert = new X509Certificate(config.certPem);
    this.certSha256 = createHash('sha256').update(cert.raw).digest('hex');
    this.certValidTo = new Date(cert.validTo);
  }

  /** What the register says about the CUIT (11 digits), as of `now`. */
  async ask(cuit: string, d: Deadline, now: Date): Promise<TaxAuthorityAnswer> {
    if (now > this.certValidTo)
      throw new AppError(
        'not_configured',
        `the ARCA certificate (ARCA_CERT) expired on ${this.certValidTo.toISOString().slice(0, 10)}: renew it with ARCA`,
      );
    const ticket = await this.ticket(PADRON_SERVICE, d, now);
    return this.getPersona(ticket, cuit, d, now);
  }

  // ------------------------------------------------------------------ the login ticket

  private key(service: string): TicketKey {
    return { wsaaUrl: this.config.wsaaUrl, certSha256: this.certSha256, service };
  }

  private usable = (t: Ticket | undefined, now: Date): t is Ticket =>
    !!t && t.expiresAt.getTime() - EXPIRY_MARGIN_MS > now.getTime();

  /** A valid ticket for the service: this process's, the database's, or a new login. */
  private async ticket(service: string, d: Deadline, now: Date): Promise<Ticket> {
    const key = this.key(service);
    const id = JSON.stringify(key);
    const mine = this.memory.get(id);
    if (this.usable(mine, now)) return mine;
    const pending = this.logins.get(id);
    if (pending) return pending;
    const p = (async () => {
      const stored = await this.store.read(key);
      if (this.usable(stored, now)) return stored;
      const fresh = await this.login(key, d, now);
      await this.store.write(key, fresh);
      return fresh;
    })();
    this.logins.set(id, p);
    try {
      const t = await p;
      this.memory.set(id, t);
      return t;
    } finally {
      this.logins.delete(id);
    }
  }

  private async login(key: TicketKey, d: Deadline, now: Date): Promise<Ticket> {
    const what = "ARCA's login service (WSAA)";
    const tra = builder.build({
      '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
      loginTicketRequest: {
        '@_version': '1.0',
        header: {
          uniqueId: Math.floor(now.getTime() / 1000) % 2 ** 32,
          generationTime: xsdTime(new Date(now.getTime() - TRA_SKEW_MS)),
          expirationTime: xsdTime(new Date(now.getTime() + TRA_SKEW_MS)),
        },
        service: key.service,
      },
    }) as string;
    const cms = await signCms(new TextEncoder().encode(tra), this.config.certPem, this.config.key, now);
    const a = await call(
      what,
      this.config.wsaaUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' },
        body: soapRequest({ 'wsaa:loginCms': { '@_xmlns:wsaa': WSAA_NS, 'wsaa:in0': cms } }),
      },
      d,
    );
    const doc = parseXml(a.text);
    const fault = faultOf(doc);
    if (fault) {
      if (/alreadyAuthenticated/i.test(fault.code)) {
        // another process (or an earlier run of this one) holds a valid ticket: it has stored it
        const stored = await this.store.read(key);
        if (stored && stored.expiresAt > now) return stored;
        throw upstreamError(
          `${what} says this certificate already holds a valid ticket for ${key.service} that this server does not have (is another installation using the same certificate?); it expires within 12 hours`,
        );
      }
      throw upstreamError(
        `${what} refused the login: ${fault.message} (${fault.code}); nothing was stored`,
        retryAfterSeconds(a.headers.get('retry-after'), now),
      );
    }
    if (a.status !== 200 || !doc)
      throw upstreamError(
        `${what} answered HTTP ${a.status}${doc ? '' : ' with something that is not XML'}; nothing was stored, retry later`,
        retryAfterSeconds(a.headers.get('retry-after'), now),
      );
    const inner = str(at(doc, 'Envelope', 'Body', 'loginCmsResponse', 'loginCmsReturn'));
    const ticket = inner ? parseXml(inner) : null;
    const token = str(at(ticket, 'loginTicketResponse', 'credentials', 'token'));
    const sign = str(at(ticket, 'loginTicketResponse', 'credentials', 'sign'));
    const expiration = Date.parse(str(at(ticket, 'loginTicketResponse', 'header', 'expirationTime')) ?? '');
    if (!token || !sign || Number.isNaN(expiration))
      throw upstreamError(`${what} answered in an unexpected format (no ticket); nothing was stored`);
    return { token, sign, expiresAt: new Date(expiration) };
  }

  // ------------------------------------------------------------------ getPersona

  private async getPersona(t: Ticket, cuit: string, d: Deadline, now: Date): Promise<TaxAuthorityAnswer> {
    const what = "ARCA's taxpayer register (padrón A13)";
    const a = await call(
      what,
      this.config.padronUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' },
        body: soapRequest({
          'a13:getPersona': {
            '@_xmlns:a13': A13_NS,
            token: t.token,
            sign: t.sign,
            cuitRepresentada: this.config.cuit,
            idPersona: cuit,
          },
        }),
      },
      d,
    );
    // whatever the register answers, the credentials sent are not repeated
    const hide = (s: string) => s.split(t.token).join('[token]').split(t.sign).join('[sign]');
    const doc = parseXml(a.text);
    const fault = faultOf(doc);
    if (fault) {
      if (/no existe persona/i.test(fault.message))
        return { found: false, summary: null, raw: { get_persona: hide(a.text) } };
      throw upstreamError(
        `${what} answered with a fault: ${hide(fault.message).slice(0, 300)}; nothing was stored`,
        retryAfterSeconds(a.headers.get('retry-after'), now),
      );
    }
    if (a.status !== 200 || !doc)
      throw upstreamError(
        `${what} answered HTTP ${a.status}${doc ? '' : ' with something that is not XML'}; nothing was stored, retry later`,
        retryAfterSeconds(a.headers.get('retry-after'), now),
      );
    const persona = at(doc, 'Envelope', 'Body', 'getPersonaResponse', 'personaReturn', 'persona');
    if (!persona || typeof persona !== 'object')
      throw upstreamError(`${what} answered in an unexpected format (no persona); nothing was stored`);
    return {
      found: true,
      summary: taxAuthoritySummary(persona as never, cuit),
      raw: { get_persona: hide(a.text) },
    };
  }
}

/** 503 not_configured: the register cannot be asked without ARCA_CERT, ARCA_KEY and ARCA_CUIT. */
export const notConfigured = () =>
  new AppError(
    'not_configured',
    "the tax authority is not configured on this server: set ARCA_CERT, ARCA_KEY and ARCA_CUIT (the business's ARCA certificate)",
  );
