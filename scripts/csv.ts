// CSV text read back the RFC 4180 way, by csv-parse (the parser the payment imports use): by
// scripts/figures.ts (the exports of a snapshot) and by the export tests
// (test/http/routes/reports/helpers.ts). figures.ts runs against any version of the server, so
// this imports nothing of the app.
import { parse } from 'csv-parse/sync';

/** The records of a CSV text: quoted fields may hold commas, doubled quotes and line breaks; CRLF or LF end a record; every record has the header's number of fields (or this throws). */
export function parseCsv(text: string): string[][] {
  return parse(text, { bom: true, record_delimiter: ['\r\n', '\n'] }) as string[][];
}
