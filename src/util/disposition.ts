/**
 * `Content-Disposition: attachment` for any file name (RFC 6266 with the RFC 5987 `filename*`):
 * an ASCII fallback for old clients in `filename`, the exact name in UTF-8 in `filename*`.
 * Node sends header values as Latin-1, so a raw non-ASCII name would be mangled (`ł` became
 * `B`) or refused outright (CJK names threw, a 500).
 */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  if (fallback === name) return `attachment; filename="${name}"`;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

/** RFC 5987 value-chars: attr-char as is, every other UTF-8 byte percent-encoded. */
function encodeRfc5987(s: string): string {
  return encodeURIComponent(s).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
