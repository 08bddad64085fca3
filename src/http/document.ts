// The OpenAPI document without a server or a database: the routes and their schemas are all it
// is made of, so `npm run sdk` (scripts/sdk.ts) writes it and generates the client from it, and a
// test checks that the committed copy (sdk/openapi.json) is what the routes say now.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import type { Database } from '../services/context.ts';
import { DirectoryStorage } from '../storage/directory.ts';
import { buildApp } from './app.ts';

/** The document as GET /openapi.json serves it with the default settings (no PUBLIC_URL). */
export async function openapiDocument(): Promise<Record<string, unknown>> {
  // nothing is stored: the data directory is only named (the storage creates it on first write)
  const config = loadConfig({
    DATA_DIR: join(tmpdir(), 'lending-openapi-document'),
    LOG_LEVEL: 'silent',
    ACCRUAL_SCHEDULE: 'off',
  });
  // building the app registers routes and plugins; none of them touches the database until a request
  const db = {} as Database;
  const app = await buildApp({ db, config, storage: new DirectoryStorage(config.filesDir) });
  try {
    await app.ready();
    return structuredClone(app.swagger()) as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
