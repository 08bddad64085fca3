// Reading an import file (csv-parse): the line each record starts on, a byte-order mark, CRLF and
// LF, quoted fields with commas and line breaks, blank lines skipped, and a malformed quote refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readImportFile } from '../../src/services/paymentImports.ts';

test('each line keeps its number in the file, the header being line 1', () => {
  const text =
    '\uFEFFcredit,amount,external_reference\r\n12,100.50,"ref, with comma"\r\n\r\n13,20,"two\nlines"\n14,"1,5",x\n';
  const lines = readImportFile(text);
  assert.deepEqual(
    lines.map((l) => [l.line, l.credit, l.amount, l.external_reference]),
    [
      [2, '12', '100.50', 'ref, with comma'],
      [4, '13', '20', 'two\nlines'],
      [6, '14', '1,5', 'x'],
    ],
  );
});

test('a malformed quote is a 400 naming the file, and nothing is read', () => {
  for (const text of ['credit,amount\n12,"100\n', 'credit,amount\n12,"100"x\n'])
    assert.throws(
      () => readImportFile(text),
      (e: { code?: string; message?: string }) =>
        e.code === 'validation_failed' && /not a valid CSV file/.test(e.message ?? ''),
    );
});
