// The verification settings (src/config.ts): defaults, ARCA's endpoints per environment and their
// overrides, and every unusable value stopping start-up with one line that never repeats a key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARCA_ENDPOINTS, ConfigError, loadConfig } from '../../src/config.ts';
import { testCertificate } from './helpers.ts';

const CUIT = '20111111112';

test('verification settings: defaults, and no ARCA without its certificate', () => {
  const c = loadConfig({});
  assert.deepEqual(c.verification, {
    ttlHours: 24,
    timeoutMs: 10_000,
    bcraApiUrl: 'https://api.bcra.gob.ar',
    arca: null,
  });
  const set = loadConfig({
    VERIFICATION_TTL_HOURS: '0',
    VERIFICATION_TIMEOUT_MS: '250',
    BCRA_API_URL: 'http://127.0.0.1:8080/',
  });
  assert.equal(set.verification.ttlHours, 0);
  assert.equal(set.verification.timeoutMs, 250);
  assert.equal(set.verification.bcraApiUrl, 'http://127.0.0.1:8080');
});

test('ARCA: PEM text or files; ARCA_ENV picks the endpoints, ARCA_WSAA_URL and ARCA_PADRON_URL override them', async (t) => {
  const cert = await testCertificate(CUIT);
  const base = { ARCA_CERT: cert.certPem, ARCA_KEY: cert.keyPem, ARCA_CUIT: '20-11111111-2' };
  const homo = loadConfig(base).verification.arca!;
  assert.equal(homo.cuit, CUIT);
  assert.equal(homo.env, 'homologacion');
  assert.equal(homo.wsaaUrl, 'https://wsaahomo.afip.gov.ar/ws/services/LoginCms');
  assert.equal(homo.padronUrl, 'https://awshomo.afip.gov.ar/sr-padron/webservices/personaServiceA13');
  const prod = loadConfig({ ...base, ARCA_ENV: 'produccion' }).verification.arca!;
  assert.deepEqual([prod.wsaaUrl, prod.padronUrl], [ARCA_ENDPOINTS.produccion.wsaa, ARCA_ENDPOINTS.produccion.padron]);
  assert.equal(prod.wsaaUrl, 'https://wsaa.afip.gov.ar/ws/services/LoginCms');
  const local = loadConfig({ ...base, ARCA_WSAA_URL: 'http://127.0.0.1:1/w', ARCA_PADRON_URL: 'http://127.0.0.1:1/p' });
  assert.equal(local.verification.arca!.wsaaUrl, 'http://127.0.0.1:1/w');
  assert.equal(local.verification.arca!.padronUrl, 'http://127.0.0.1:1/p');
  // an env file writes newlines as \n
  const escaped = loadConfig({ ...base, ARCA_CERT: cert.certPem.trim().replace(/\n/g, '\\n') });
  assert.equal(escaped.verification.arca!.certPem, homo.certPem);

  const dir = mkdtempSync(join(tmpdir(), 'lending-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'c.pem'), cert.certPem);
  writeFileSync(join(dir, 'k.pem'), cert.keyPem);
  const files = loadConfig({ ...base, ARCA_CERT: join(dir, 'c.pem'), ARCA_KEY: join(dir, 'k.pem') });
  assert.equal(files.verification.arca!.certPem, homo.certPem);
  // the key is a KeyObject: the configuration prints without it
  assert.equal(JSON.stringify(files).includes(cert.keyPem.split('\n')[1]!), false);
});

test('ARCA: an unusable value stops start-up with one line that names it and never shows the key', async (t) => {
  const cert = await testCertificate(CUIT);
  const other = await testCertificate(CUIT);
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  const base = { ARCA_CERT: cert.certPem, ARCA_KEY: cert.keyPem, ARCA_CUIT: CUIT };
  const dir = mkdtempSync(join(tmpdir(), 'lending-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cases: [Record<string, string>, RegExp][] = [
    [{ ARCA_CERT: cert.certPem }, /^ARCA_CERT, ARCA_KEY and ARCA_CUIT go together: ARCA_KEY and ARCA_CUIT not set$/],
    [{ ...base, ARCA_CUIT: '20111111113' }, /^ARCA_CUIT=20111111113 is not a CUIT/],
    [{ ...base, ARCA_ENV: 'test' }, /^ARCA_ENV=test is not homologacion or produccion$/],
    [
      { ...base, ARCA_CERT: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' },
      /^ARCA_CERT is not a PEM certificate/,
    ],
    [
      { ...base, ARCA_KEY: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' },
      /^ARCA_KEY is not an unencrypted PEM private key$/,
    ],
    [{ ...base, ARCA_KEY: other.keyPem }, /^ARCA_KEY is not the private key of ARCA_CERT$/],
    [{ ...base, ARCA_KEY: String(ec) }, /^ARCA_KEY must be an RSA key/],
    [{ ...base, ARCA_KEY: join(dir, 'missing.key') }, /^ARCA_KEY: cannot read the file .*missing\.key \(ENOENT\)/],
    [{ ...base, ARCA_WSAA_URL: 'ftp://x' }, /^ARCA_WSAA_URL=ftp:\/\/x must be an http or https URL$/],
    [{ BCRA_API_URL: 'not a url' }, /^BCRA_API_URL=not a url is not a URL$/],
    [{ VERIFICATION_TTL_HOURS: '-1' }, /^VERIFICATION_TTL_HOURS=-1 is not a whole number$/],
    [{ VERIFICATION_TIMEOUT_MS: '0' }, /^VERIFICATION_TIMEOUT_MS=0 is out of range/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError, String(err));
        assert.match(err.message, message);
        assert.equal(err.message.includes('\n'), false, 'one line');
        for (const key of [cert.keyPem, other.keyPem, String(ec)])
          assert.equal(err.message.includes(key.split('\n')[1]!), false, 'the key is not repeated');
        return true;
      },
      JSON.stringify(Object.keys(env)),
    );
  }
});
