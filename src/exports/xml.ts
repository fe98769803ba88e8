/** XML text for the exports: escaped, and without the characters XML 1.0 forbids. */

// Control characters other than tab, LF and CR, lone surrogates and U+FFFE/U+FFFF are not allowed in XML 1.0.
const INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function esc(s: string | number | null | undefined): string {
  if (s === null || s === undefined) return "";
  return String(s)
    .replace(INVALID, "")
    .replace(/[<>&'"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c]!);
}

/** ISO 8601 UTC without milliseconds, as GPX and KML tools expect. */
export const isoTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** RFC 822 date for RSS 2.0. */
export const rfc822 = (ms: number) => new Date(ms).toUTCString();
