import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MAX_FILE_NAME_BYTES,
  attachmentDisposition,
  isPlausibleFileName,
  numberedName,
  safeFileName,
  splitExtension,
} from '../../src/domain/fileNames.ts';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

test('safeFileName: examples', () => {
  const cases: Array<[string | undefined, string]> = [
    ['dni.pdf', 'dni.pdf'],
    ['/etc/passwd', 'passwd'],
    ['..\\..\\win.ini', 'win.ini'],
    ['a/b/../c.png', 'c.png'],
    ['..', 'file.pdf'],
    ['.', 'file.pdf'],
    ['...', 'file.pdf'],
    ['', 'file.pdf'],
    [undefined, 'file.pdf'],
    ['   ', 'file.pdf'],
    ['report.pdf...', 'report.pdf'],
    ['.env', '.env'],
    ['tab\there.pdf', 'tab here.pdf'],
    ['new\nline.pdf', 'new line.pdf'],
    ['bell\u0007.pdf', 'bell.pdf'],
    ['rtl\u202Efdp.exe', 'rtlfdp.exe'],
    ['zero\u200Bwidth.pdf', 'zerowidth.pdf'],
    ['Jose\u0301.pdf', 'José.pdf'], // NFC
  ];
  for (const [raw, expected] of cases) assert.equal(safeFileName(raw, 'pdf'), expected, JSON.stringify(raw));
});

test('safeFileName: always safe, short enough, stable', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (raw) => {
      const s = safeFileName(raw, 'png');
      assert.ok(isPlausibleFileName(s), JSON.stringify(s));
      assert.ok(bytes(s) <= MAX_FILE_NAME_BYTES, 'holds: bytes(s) <= MAX_FILE_NAME_BYTES');
      assert.equal(s, s.trim());
      assert.equal(safeFileName(s, 'png'), s, 'idempotent');
      for (let n = 1; n < 200; n += 37) {
        const alt = numberedName(s, n);
        assert.ok(isPlausibleFileName(alt) && bytes(alt) <= MAX_FILE_NAME_BYTES, JSON.stringify(alt));
        assert.notEqual(alt, s);
      }
    }),
  );
});

test('numberedName keeps the extension and the byte limit', () => {
  assert.equal(numberedName('dni.pdf', 0), 'dni.pdf');
  assert.equal(numberedName('dni.pdf', 1), 'dni (1).pdf');
  assert.equal(numberedName('dni (1).pdf', 1), 'dni (1) (1).pdf');
  assert.equal(numberedName('archive.tar.gz', 3), 'archive.tar (3).gz');
  assert.equal(numberedName('.env', 2), '.env (2)');
  const long = 'ñ'.repeat(126) + '.pdf'; // 252 + 4 bytes… cut to fit
  const alt = numberedName(safeFileName(long, 'pdf'), 12);
  assert.ok(alt.endsWith(' (12).pdf') && bytes(alt) <= 255, alt);
  assert.deepEqual(splitExtension('noext'), { stem: 'noext', ext: '' });
});

test('isPlausibleFileName refuses what a stored name never is', () => {
  for (const bad of ['', '.', '..', 'a/b', 'a\\b', 'a\u0000b', 'x'.repeat(256), '\u202E'])
    assert.equal(isPlausibleFileName(bad), false, JSON.stringify(bad));
  for (const ok of ['dni.pdf', 'a..b', '..a', 'ñandú (1).pdf']) assert.equal(isPlausibleFileName(ok), true, ok);
});

test('attachmentDisposition encodes per RFC 5987', () => {
  assert.equal(attachmentDisposition('dni.pdf'), "attachment; filename*=UTF-8''dni.pdf");
  assert.equal(
    attachmentDisposition("it's (1) *ñ.pdf"),
    "attachment; filename*=UTF-8''it%27s%20%281%29%20%2A%C3%B1.pdf",
  );
  assert.equal(attachmentDisposition('a"b;c\\d.pdf'), "attachment; filename*=UTF-8''a%22b%3Bc%5Cd.pdf");
});
