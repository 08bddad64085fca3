// The registries a verification asks, as local servers the tests start: the central bank's debtor
// registry answering in its documented JSON (BCRA Central de Deudores v1.0), and ARCA's WSAA and
// padrón A13 answering in their documented SOAP. The fake WSAA checks the login request's CMS
// signature with pkijs against the certificate it was told to trust, as ARCA does with the
// certificate it issued. Certificates are generated here, self-signed, with pkijs.
import type { TestContext } from 'node:test';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { withCheckDigit } from '../../src/domain/cuit.ts';
import { cryptoEngine } from '../../src/registries/cms.ts';
import { type Harness, json } from '../helpers/app.ts';

// ------------------------------------------------------------------ a local HTTP server

export interface Local {
  url: string;
}

/** An HTTP server on a loopback port, closed (held requests cut) when the test ends. */
export async function startServer(
  t: TestContext,
  handle: (req: IncomingMessage, body: string, res: ServerResponse) => unknown,
): Promise<Local> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => void handle(req, body, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}` };
}

let next = 0;
/** A valid CUIT no other test of this process uses: 20-3xxxxxxx-d (people) or 30-… (companies). */
export function newCuit(kind: '20' | '30' = '20'): string {
  for (;;) {
    const body = String(10_000_000 + ((process.pid * 7919 + next++ * 104_729) % 89_999_999)).padStart(8, '0');
    const cuit = withCheckDigit(kind + body);
    if (cuit) return cuit;
  }
}

/** A client of the harness's tenant with that cuit (or none). */
export async function clientWith(h: Harness, cuit: string | null, key?: string): Promise<{ id: string }> {
  const res = await h.post(
    '/api/clients',
    { dni: `v${randomBytes(6).toString('hex')}`, first_name: 'Ana', ...(cuit ? { cuit } : {}) },
    key,
  );
  if (res.statusCode !== 201) throw new Error(`client not created: ${res.statusCode} ${res.body}`);
  return json(res);
}

// ------------------------------------------------------------------ the central bank's registry

export type BcraScenario =
  | { kind: 'found'; name: string; current: Period[]; history: Period[]; checks?: Check[] }
  | { kind: 'not_found' }
  | { kind: 'malformed' }
  | { kind: 'wrong_shape' }
  | { kind: 'slow' }
  | { kind: 'status'; status: number; retryAfter?: string };

export interface Period {
  periodo: string;
  entidades: {
    entidad: string;
    situacion: number;
    monto: number;
    diasAtrasoPago?: number;
    refinanciaciones?: boolean;
    procesoJud?: boolean;
  }[];
}
export interface Check {
  causal: string;
  entidad: number;
  nroCheque: number;
  monto: number;
  fechaPago: string | null;
}

const NOT_FOUND = { status: 404, errorMessages: ['No se encontró datos para la identificación ingresada.'] };

/** Answers /centraldedeudores/v1.0/Deudas[/Historicas|/ChequesRechazados]/{cuit} per the CUIT's scenario. */
export async function centralBank(t: TestContext) {
  const scenarios = new Map<string, BcraScenario>();
  const hits: string[] = [];
  const local = await startServer(t, (req, _body, res) => {
    const m = /^\/centraldedeudores\/v1\.0\/Deudas\/(?:(Historicas|ChequesRechazados)\/)?(\d{11})$/.exec(req.url ?? '');
    if (!m || req.method !== 'GET') {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 400, errorMessages: ['bad request'] }));
      return;
    }
    const [, part, cuit] = m as unknown as [string, 'Historicas' | 'ChequesRechazados' | undefined, string];
    hits.push(req.url!);
    const s = scenarios.get(cuit) ?? { kind: 'not_found' };
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    switch (s.kind) {
      case 'slow':
        return; // never answers: the verification's deadline ends it
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":200,"results":{"denominacion":');
        return;
      case 'wrong_shape':
        return send(200, {
          status: 200,
          results: {
            denominacion: 'X',
            periodos: [{ periodo: '202512', entidades: [{ entidad: 'B', situacion: 'uno', monto: 'mucho' }] }],
          },
        });
      case 'status':
        return send(
          s.status,
          { status: s.status, errorMessages: ['Servicio no disponible'] },
          s.retryAfter ? { 'retry-after': s.retryAfter } : {},
        );
      case 'not_found':
        return send(404, NOT_FOUND);
      case 'found': {
        const results = { identificacion: Number(cuit), denominacion: s.name };
        if (part === undefined) return send(200, { status: 200, results: { ...results, periodos: s.current } });
        if (part === 'Historicas') return send(200, { status: 200, results: { ...results, periodos: s.history } });
        if (!s.checks?.length) return send(404, NOT_FOUND);
        const causales = [...new Set(s.checks.map((c) => c.causal))].map((causal) => ({
          causal,
          entidades: [...new Set(s.checks!.filter((c) => c.causal === causal).map((c) => c.entidad))].map(
            (entidad) => ({
              entidad,
              detalle: s
                .checks!.filter((c) => c.causal === causal && c.entidad === entidad)
                .map((c) => ({
                  nroCheque: c.nroCheque,
                  fechaRechazo: '2025-10-01',
                  monto: c.monto,
                  fechaPago: c.fechaPago,
                  fechaPagoMulta: null,
                  estadoMulta: 'IMPAGA',
                  ctaPersonal: true,
                  denomJuridica: null,
                  enRevision: false,
                  procesoJud: false,
                })),
            }),
          ),
        }));
        return send(200, { status: 200, results: { ...results, causales } });
      }
    }
  });
  return { url: local.url, scenarios, hits };
}

// ------------------------------------------------------------------ certificates

export interface TestCert {
  certPem: string;
  /** PKCS#1 ("RSA PRIVATE KEY"), as openssl genrsa writes the keys ARCA certifies */
  keyPem: string;
}

const pemOf = (label: string, der: ArrayBuffer | Buffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der as ArrayBuffer)
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END ${label}-----\n`;

/** A self-signed RSA certificate for `cuit`, valid from yesterday until `days` from now. */
export async function testCertificate(cuit: string, days = 365): Promise<TestCert> {
  const alg = {
    name: 'RSASSA-PKCS1-v1_5',
    hash: 'SHA-256',
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
  };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = new pkijs.Certificate();
  cert.version = 2;
  // a positive serial in minimal DER: random bytes as they come are negative half the time, and
  // now and then start with a redundant 00 or FF byte, which OpenSSL refuses to parse
  const serial = randomBytes(8);
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  cert.serialNumber = new asn1js.Integer({ valueHex: serial });
  for (const name of [cert.subject, cert.issuer]) {
    name.typesAndValues.push(
      new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: 'lending-tests' }) }),
    );
    name.typesAndValues.push(
      new pkijs.AttributeTypeAndValue({
        type: '2.5.4.5',
        value: new asn1js.PrintableString({ value: `CUIT ${cuit}` }),
      }),
    );
  }
  cert.notBefore.value = new Date(Date.now() - 86_400_000);
  cert.notAfter.value = new Date(Date.now() + days * 86_400_000);
  await cert.subjectPublicKeyInfo.importKey(keys.publicKey, cryptoEngine);
  await cert.sign(keys.privateKey, 'SHA-256', cryptoEngine);
  const pkcs8 = pemOf('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return {
    certPem: pemOf('CERTIFICATE', cert.toSchema().toBER(false)),
    keyPem: String(createPrivateKey(pkcs8).export({ type: 'pkcs1', format: 'pem' })),
  };
}

/**
 * What a CMS SignedData carries, checked with pkijs: its content, and whether its first signature
 * verifies with `certPem` and the certificate it carries is that one.
 */
export async function openCms(base64: string, certPem: string): Promise<{ content: string; verified: boolean }> {
  const info = pkijs.ContentInfo.fromBER(Buffer.from(base64, 'base64'));
  const signed = new pkijs.SignedData({ schema: info.content });
  const content = Buffer.from(signed.encapContentInfo.eContent?.getValue() ?? new ArrayBuffer(0)).toString('utf8');
  const trusted = pkijs.Certificate.fromBER(new Uint8Array(new X509Certificate(certPem).raw));
  const expected = Buffer.from(new X509Certificate(certPem).raw);
  const carried = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  if (!carried.some((c) => Buffer.from(c.toSchema().toBER(false)).equals(expected)))
    return { content, verified: false };
  try {
    const r = await signed.verify(
      { signer: 0, trustedCerts: [trusted], checkChain: false, extendedMode: true },
      cryptoEngine,
    );
    return { content, verified: r.signatureVerified === true };
  } catch {
    return { content, verified: false };
  }
}

// ------------------------------------------------------------------ ARCA: WSAA and padrón A13

export type Persona =
  | { kind: 'person'; apellido: string; nombre: string; estadoClave: string }
  | { kind: 'company'; razonSocial: string; estadoClave: string }
  | { kind: 'not_found' }
  | { kind: 'fault'; message: string }
  | { kind: 'status'; status: number; retryAfter?: string };

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, ignoreAttributes: true });
const builder = new XMLBuilder({ ignoreAttributes: false });
const envelope = (ns: string, body: unknown) =>
  builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    [`${ns}:Envelope`]: { [`@_xmlns:${ns}`]: 'http://schemas.xmlsoap.org/soap/envelope/', [`${ns}:Body`]: body },
  }) as string;
const fault = (code: string, message: string) =>
  envelope('soapenv', { 'soapenv:Fault': { faultcode: code, faultstring: message } });

/**
 * WSAA (POST /ws/services/LoginCms) and padrón A13 (POST /sr-padron/webservices/personaServiceA13).
 * WSAA trusts `trusted` only, issues tickets for 12 hours from the TRA's time, and refuses a
 * second login while a ticket it issued is valid (coe.alreadyAuthenticated), as ARCA does. The
 * padrón answers only a ticket WSAA issued, for `representada`.
 */
export async function arca(t: TestContext, trusted: TestCert, representada: string) {
  const persons = new Map<string, Persona>();
  const logins: { service: string; at: Date }[] = [];
  const calls: { token: string; idPersona: string }[] = [];
  const tickets = new Map<string, Date>(); // token → expiry
  let refusals = 0;
  const local = await startServer(t, async (req, body, res) => {
    const send = (status: number, xml: string, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'text/xml; charset=utf-8', ...headers }).end(xml);
    const doc = parser.parse(body) as any;
    if (req.url === '/ws/services/LoginCms') {
      const cms = doc?.Envelope?.Body?.loginCms?.in0;
      if (typeof cms !== 'string') return send(500, fault('ns1:xml.bad', 'No se pudo interpretar el XML'));
      const opened = await openCms(cms, trusted.certPem);
      if (!opened.verified) {
        refusals++;
        return send(500, fault('ns1:cms.cert.untrusted', 'Certificado no emitido por AC de confianza'));
      }
      const tra = (parser.parse(opened.content) as any).loginTicketRequest;
      const generated = new Date(tra.header.generationTime);
      const expires = new Date(tra.header.expirationTime);
      // the TRA says "now" as its sender sees it: its validity is 10 minutes either side
      const now = new Date((generated.getTime() + expires.getTime()) / 2);
      if ([...tickets.values()].some((e) => e > now))
        return send(
          500,
          fault('ns1:coe.alreadyAuthenticated', 'El CEE ya posee un TA valido para el acceso al WSN solicitado'),
        );
      const token = randomBytes(48).toString('base64');
      const sign = randomBytes(24).toString('base64');
      const expiration = new Date(now.getTime() + 12 * 3600_000);
      tickets.set(token, expiration);
      logins.push({ service: String(tra.service), at: now });
      const ticket = builder.build({
        '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8', '@_standalone': 'yes' },
        loginTicketResponse: {
          '@_version': '1.0',
          header: {
            source: 'CN=wsaahomo, O=AFIP, C=AR, SERIALNUMBER=CUIT 33693450239',
            destination: `SERIALNUMBER=CUIT ${representada}, CN=lending-tests`,
            uniqueId: tra.header.uniqueId,
            generationTime: now.toISOString(),
            expirationTime: expiration.toISOString(),
          },
          credentials: { token, sign },
        },
      }) as string;
      return send(
        200,
        envelope('soapenv', {
          loginCmsResponse: { '@_xmlns': 'http://wsaa.view.sua.dvadac.desein.afip.gov', loginCmsReturn: ticket },
        }),
      );
    }
    if (req.url === '/sr-padron/webservices/personaServiceA13') {
      const q = doc?.Envelope?.Body?.getPersona;
      if (!q) return send(500, fault('soap:Server', 'No se pudo interpretar el mensaje'));
      if (!tickets.has(q.token)) return send(500, fault('soap:Server', 'Token o firma inválidos'));
      if (q.cuitRepresentada !== representada)
        return send(500, fault('soap:Server', 'La CUIT representada no está autorizada'));
      calls.push({ token: q.token, idPersona: q.idPersona });
      const p = persons.get(q.idPersona) ?? { kind: 'not_found' };
      if (p.kind === 'not_found') return send(500, fault('soap:Server', 'No existe persona con ese Id'));
      if (p.kind === 'fault') return send(500, fault('soap:Server', p.message));
      if (p.kind === 'status')
        return send(p.status, '<html>busy</html>', p.retryAfter ? { 'retry-after': p.retryAfter } : {});
      const common = {
        idPersona: q.idPersona,
        tipoClave: 'CUIT',
        estadoClave: p.estadoClave,
        domicilio: [
          {
            direccion: 'SAN MARTIN 50',
            localidad: 'MENDOZA',
            codigoPostal: '5500',
            descripcionProvincia: 'MENDOZA',
            tipoDomicilio: 'LEGAL/REAL',
          },
          {
            direccion: 'AV CORRIENTES 1234',
            localidad: 'CAPITAL FEDERAL',
            codigoPostal: '1043',
            descripcionProvincia: 'CIUDAD AUTONOMA BUENOS AIRES',
            idProvincia: '0',
            tipoDomicilio: 'FISCAL',
          },
        ],
        idActividadPrincipal: '620100',
        descripcionActividadPrincipal: 'SERVICIOS DE CONSULTORES EN INFORMÁTICA',
        periodoActividadPrincipal: '201904',
      };
      const persona =
        p.kind === 'person'
          ? { apellido: p.apellido, nombre: p.nombre, tipoPersona: 'FISICA', ...common }
          : { razonSocial: p.razonSocial, tipoPersona: 'JURIDICA', formaJuridica: 'SOC. ANONIMA', ...common };
      return send(
        200,
        envelope('soap', {
          'ns2:getPersonaResponse': {
            '@_xmlns:ns2': 'http://a13.soap.ws.server.puc.sr/',
            personaReturn: { metadata: { fechaHora: new Date().toISOString(), servidor: 'fake' }, persona },
          },
        }),
      );
    }
    send(404, '<html>not found</html>');
  });
  return {
    env: {
      ARCA_WSAA_URL: `${local.url}/ws/services/LoginCms`,
      ARCA_PADRON_URL: `${local.url}/sr-padron/webservices/personaServiceA13`,
    },
    persons,
    logins,
    calls,
    tickets,
    refusals: () => refusals,
  };
}
