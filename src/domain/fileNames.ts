// The names client files are shown and downloaded under. A name never reaches the storage path
// (that is made of ids); these rules keep it safe to show, to put in a URL path segment and in a
// Content-Disposition header, and let a clash get a numbered suffix: "dni.pdf", "dni (1).pdf".

/** at most this many UTF-8 bytes, the common file-system limit for one name */
export const MAX_FILE_NAME_BYTES = 255;
const MAX_EXT_BYTES = 32;

const utf8Len = (s: string) => Buffer.byteLength(s, 'utf8');

// Control, format (bidi overrides that disguise an extension, zero-width), line and paragraph
// separators, lone surrogates.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** Cuts s to at most max UTF-8 bytes without splitting a code point. */
function cutBytes(s: string, max: number): string {
  if (utf8Len(s) <= max) return s;
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    const n = utf8Len(ch);
    if (bytes + n > max) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** stem and extension (with its dot); a leading dot does not start an extension: ".env" has none */
export function splitExtension(name: string): { stem: string; ext: string } {
  const i = name.lastIndexOf('.');
  if (i <= 0 || i === name.length - 1 || utf8Len(name.slice(i)) > MAX_EXT_BYTES) return { stem: name, ext: '' };
  return { stem: name.slice(0, i), ext: name.slice(i) };
}

function fit(stem: string, tail: string): string {
  return cutBytes(stem, MAX_FILE_NAME_BYTES - utf8Len(tail)).trimEnd() + tail;
}

/**
 * The uploaded name made safe: its last path segment (a browser may send "C:\\scans\\dni.pdf"),
 * NFC, without control or invisible characters, whitespace collapsed, no leading or trailing
 * spaces or trailing dots, at most 255 UTF-8 bytes (the stem is cut, the extension kept).
 * Nothing usable left ("", ".", "..", "///"): `file.<fallbackExt>`.
 */
export function safeFileName(raw: string | null | undefined, fallbackExt: string): string {
  let s = (raw ?? '').normalize('NFC');
  s = s.split(/[/\\]/).pop() ?? '';
  // tabs and line breaks separate words: a space; other invisible characters just go
  s = s.replace(/\s+/gu, ' ').replace(UNSAFE, '').replace(/ {2,}/g, ' ');
  s = s.trim().replace(/[. ]+$/u, '');
  if (s === '') return `file.${fallbackExt}`;
  const { stem, ext } = splitExtension(s);
  return fit(stem, ext);
}

/** The n-th alternative of a name: "dni.pdf" → "dni (n).pdf", still within the length limit. */
export function numberedName(name: string, n: number): string {
  if (n === 0) return name;
  const { stem, ext } = splitExtension(name);
  return fit(stem, ` (${n})${ext}`);
}

/**
 * Whether a name taken from a URL can be a stored name at all: anything with a separator,
 * a control character, "." or ".." names no file, whatever the database holds.
 */
export function isPlausibleFileName(name: string): boolean {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\\')) return false;
  if (utf8Len(name) > MAX_FILE_NAME_BYTES) return false;
  return !new RegExp(UNSAFE.source, 'u').test(name);
}

/** Content-Disposition for a download: RFC 6266 with the RFC 5987 UTF-8 form of the name. */
export function attachmentDisposition(name: string): string {
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename*=UTF-8''${encoded}`;
}
