// `node --import tsx test/helpers/image.ts <file>`: writes the image of a freshly migrated embedded
// database to <file>. scripts/test.mjs makes one per run and every test process starts its
// in-memory database from it (TEST_PGLITE_IMAGE): PGlite's initdb was most of a test file's start.
// The migrations still run on it (nothing left to apply), so an image of older migrations is caught.
import { writeFileSync } from 'node:fs';
import { openEmbedded } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: image.ts <file>');
const db = await openEmbedded(null);
await migrate(db);
const image = await db.exclusive!((s) => s.dump());
writeFileSync(file, Buffer.from(await image.arrayBuffer()));
await db.close();
