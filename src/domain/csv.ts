// Reading CSV (RFC 4180): fields separated by commas, records by CRLF or LF, a field in double
// quotes may hold commas, line breaks and doubled quotes. A byte-order mark at the start is
// dropped. The project writes CSV with csv-stringify; this is its reading half, kept small and pure.

export interface CsvRecord {
  /** the physical line the record starts on (1-based) */
  line: number;
  fields: string[];
}

/** The records of a CSV text, or an error message naming the line of a malformed quote. */
export function parseCsv(text: string): { records: CsvRecord[] } | { error: string } {
  const records: CsvRecord[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  let line = 1;
  while (i < n) {
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          const q = text.indexOf('"', i);
          if (q === -1) return { error: `line ${start}: a quoted field is not closed` };
          const chunk = text.slice(i, q);
          for (const ch of chunk) if (ch === '\n') line++;
          field += chunk;
          if (text[q + 1] === '"') {
            field += '"';
            i = q + 2;
          } else {
            i = q + 1;
            break;
          }
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r')
          return { error: `line ${line}: text after a closing quote` };
      } else {
        let j = i;
        while (j < n && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++;
        field = text.slice(i, j);
        i = j;
      }
      fields.push(field);
      if (i < n && text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    line++;
    records.push({ line: start, fields });
  }
  return { records };
}
