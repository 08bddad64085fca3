// Shared steps of the file tests: upload through the real routes, list what FILES_DIR holds.
import { readdirSync, existsSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from './app.ts';
import { json } from './app.ts';
import { fileForm, multipart, type Part } from './file-fixtures.ts';

export async function newClient(h: Harness, key?: string): Promise<{ id: string }> {
  const res = await h.req({
    method: 'POST',
    url: '/api/clients',
    payload: { dni: `f-${Math.random().toString(36).slice(2, 12)}` },
    key,
  });
  if (res.statusCode !== 201) throw new Error(`client not created: ${res.statusCode} ${res.body}`);
  return json(res);
}

export function uploadParts(
  h: Harness,
  url: string,
  parts: Part[],
  key?: string | null,
): Promise<LightMyRequestResponse> {
  const f = multipart(parts);
  return h.req({ method: 'POST', url, payload: f.payload, headers: { 'content-type': f.contentType }, key });
}

/** POST /api/clients/{id}/files with one file in field `file`. */
export function upload(
  h: Harness,
  clientId: string,
  name: string,
  data: Buffer | string,
  opts: { key?: string | null; contentType?: string } = {},
) {
  const f = fileForm(name, data, opts.contentType);
  return h.req({
    method: 'POST',
    url: `/api/clients/${clientId}/files`,
    payload: f.payload,
    headers: { 'content-type': f.contentType },
    key: opts.key,
  });
}

/** POST /upload/{token}: no API key. */
export function uploadByLink(h: Harness, token: string, name: string, data: Buffer | string) {
  const f = fileForm(name, data);
  return h.app.inject({
    method: 'POST',
    url: `/upload/${token}`,
    payload: f.payload,
    headers: { 'content-type': f.contentType },
  });
}

/** Every file under FILES_DIR (temporary ones included), relative paths. */
export function storedFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((d) => d.isFile())
    .map((d) => `${(d.parentPath ?? (d as unknown as { path: string }).path).slice(dir.length + 1)}/${d.name}`)
    .sort();
}
