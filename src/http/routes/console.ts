// The staff console (docs/console.md): `/app` and every path under it answer the console's one
// HTML page (the browser's router draws the page the path names); `/app/assets/*` are the scripts
// and styles `npm run build` wrote into dist/console with hashed names, read into memory at start
// with their brotli and gzip forms. `/` leads to the console. The console calls only the public
// API with the session cookie: nothing here reads the database.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../types.ts';

/** The built console: beside the built server (dist/console), or the build's output seen from src/. */
const CANDIDATES = ['../../console', '../../../dist/console'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

interface Asset {
  type: string;
  raw: Buffer;
  br: Buffer | null;
  gzip: Buffer | null;
}

// The page runs only its own files: no inline script or style, no other origin, no framing.
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "frame-src 'self' blob:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

function load(dir: string) {
  const read = (p: string) => (existsSync(p) ? readFileSync(p) : null);
  const assets = new Map<string, Asset>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      if (name.endsWith('.br') || name.endsWith('.gz')) continue;
      const p = join(assetDir, name);
      assets.set(name, {
        type: TYPES[extname(name)] ?? 'application/octet-stream',
        raw: readFileSync(p),
        br: read(`${p}.br`),
        gzip: read(`${p}.gz`),
      });
    }
  }
  return { html: readFileSync(join(dir, 'index.html')), assets };
}

/** The encoding the request accepts, best first: brotli, gzip, none (q=0 refuses one). */
function encodingFor(req: FastifyRequest, a: Asset): 'br' | 'gzip' | null {
  const header = String(req.headers['accept-encoding'] ?? '');
  const accepted = new Set(
    header
      .split(',')
      .map((p) => p.trim().split(';'))
      .filter(([, q]) => !q || !/^\s*q\s*=\s*0(\.0*)?\s*$/i.test(q))
      .map(([name]) => name!.trim().toLowerCase()),
  );
  if (a.br && accepted.has('br')) return 'br';
  if (a.gzip && (accepted.has('gzip') || accepted.has('*'))) return 'gzip';
  return null;
}

export default async function consoleRoutes(app: App) {
  const dir = CANDIDATES.find((d) => existsSync(join(d, 'index.html')));
  const built = dir ? load(dir) : null;

  const page = async (_req: FastifyRequest, reply: FastifyReply) => {
    if (!built)
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send('The console is not built: run npm run build.\n');
    // the page names the current hashed files: it is asked for again every time
    return reply
      .headers(PAGE_HEADERS)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(built.html);
  };

  app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/app', 302));
  app.get('/app', { schema: { hide: true } }, page);
  app.get('/app/*', { schema: { hide: true } }, async (req, reply) => {
    const path = req.url.split('?')[0]!;
    if (!path.startsWith('/app/assets/')) return page(req, reply);
    const asset = built?.assets.get(decodeURIComponent(path.slice('/app/assets/'.length)));
    if (!asset)
      return reply.code(404).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('Not found\n');
    const encoding = encodingFor(req, asset);
    reply
      .type(asset.type)
      .header('vary', 'Accept-Encoding')
      .header('cross-origin-resource-policy', 'same-origin')
      // the name changes with the content: a year, never revalidated
      .header('cache-control', 'public, max-age=31536000, immutable');
    if (encoding) reply.header('content-encoding', encoding);
    return reply.send(encoding === 'br' ? asset.br : encoding === 'gzip' ? asset.gzip : asset.raw);
  });
}
