// CSV text read back the RFC 4180 way: by scripts/figures.ts (the exports of a snapshot) and by the
// export tests (test/http/routes/reports/helpers.ts). Only JavaScript itself: figures.ts runs
// against any version of the server and imports nothing of the app.

/** RFC 4180: quoted fields may hold commas, quotes (doubled) and line breaks; CRLF, LF or CR end a record. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
