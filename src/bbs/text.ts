/**
 * Message text as it travels between BBSes: the routing header (`R:` lines,
 * newest first, one added by every BBS the message passes), then a blank
 * line, then the body. Stored with LF line ends; CR on the wire (CRLF inside
 * compressed messages, as FBB does). Pure.
 */

/** Subjects and bodies are text: no control characters but tab and line ends. */
const FORBIDDEN = /[\x00-\x08\x0b-\x1f\x7f]/;

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * A forwarded message's bytes as text: UTF-8 when valid, else Latin-1 byte for
 * byte (each byte the code point of its value), so text sent on again as
 * Latin-1 (encodeText) is the bytes that came in. src/lib/text.ts decodeText reads
 * files and request bodies instead, where 0x80-0x9F are Windows-1252's
 * characters (the euro sign, quotes) as the tools that write them mean them.
 */
export function decodeWireText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    let s = "";
    for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode(...bytes.subarray(i, i + 8192));
    return s;
  }
}

export function encodeText(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/**
 * A subject as it goes on the wire: its UTF-8 bytes (like the body), at most
 * `max` of them, cut before a character rather than inside one; returned one
 * character per byte, for the session's byte-for-character line writer.
 * (Each character's low byte alone would turn "—" or "€" into a control
 * character the partner refuses, and the message could never be delivered.)
 */
export function wireTitle(subject: string, max = 80): string {
  let b = encodeText(subject);
  if (b.length > max) {
    let end = max;
    while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
    b = b.subarray(0, end);
  }
  let s = "";
  for (const c of b) s += String.fromCharCode(c);
  return s;
}

export function hasControlChars(text: string): boolean {
  return FORBIDDEN.test(text);
}

export interface SplitText {
  /** R: lines, newest first */
  route: string[];
  body: string;
}

/** Separates leading R: lines (and the blank line after them) from the body. */
export function splitRouteLines(text: string): SplitText {
  const lines = normalizeNewlines(text).split("\n");
  const route: string[] = [];
  let i = 0;
  while (i < lines.length && /^R:\d{6}\/\d{4}/.test(lines[i]!)) route.push(lines[i++]!.trimEnd());
  if (route.length > 0 && i < lines.length && lines[i]!.trim() === "") i++;
  return { route, body: lines.slice(i).join("\n") };
}

/** The text a message travels with: R: lines, a blank line, the body (LF line ends). */
export function transferText(route: string[], body: string): string {
  const b = body.endsWith("\n") ? body : body + "\n";
  return route.length ? route.join("\n") + "\n\n" + b : b;
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Our routing line, FBB's layout:
 * `R:261121/2342Z @:N0GW.#TST.USA.NOAM #:12 [svc-gateway] $:12_N0GW`
 */
export function routeLine(atMs: number, ha: string, number: number, qth: string, bid: string): string {
  const d = new Date(atMs);
  const date = `${pad(d.getUTCFullYear() % 100)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`;
  return `R:${date}/${time}Z @:${ha} #:${number} [${qth.replace(/[[\]\r\n]/g, "")}] $:${bid}`;
}

export interface RouteInfo {
  /** unix ms of the line's date */
  at: number | null;
  /** the hierarchical address after @: */
  ha: string | null;
  /** the QTH in brackets */
  qth: string | null;
  /** the zip after Z: */
  zip: string | null;
  bid: string | null;
}

/**
 * A BBS date `YYMMDD` (and `HHMM`) as unix ms, or null when it is no date.
 * Two-digit years slide: a year more than 50 years ahead of `now` is last
 * century's (FBB's `930123` is 1993, not 2093), so older news stays older.
 */
export function bbsDate(yy: number, mm: number, dd: number, hh = 0, mi = 0, now = Date.now()): number | null {
  if (mm < 1 || mm > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59) return null;
  let year = 2000 + yy;
  if (year > new Date(now).getUTCFullYear() + 50) year -= 100;
  const t = Date.UTC(year, mm - 1, dd, hh, mi);
  return new Date(t).getUTCDate() === dd ? t : null;
}

/** Reads the fields of one R: line; FBB and most BBSes write `@:HA`, some `@HA`. */
export function parseRouteLine(line: string, now = Date.now()): RouteInfo {
  const date = /^R:(\d{2})(\d{2})(\d{2})\/(\d{2})(\d{2})/.exec(line);
  let at: number | null = null;
  if (date) {
    const [, yy, mm, dd, hh, mi] = date.map(Number) as number[];
    at = bbsDate(yy!, mm!, dd!, hh!, mi!, now);
  }
  const ha = /\s@:?([A-Z0-9#.]+)/i.exec(line)?.[1]?.toUpperCase() ?? null;
  const qth = /\[([^\]]*)\]/.exec(line)?.[1]?.trim() ?? null;
  const zip = /\sZ:(\S+)/i.exec(line)?.[1] ?? null;
  const bid = /\s\$:(\S+)/.exec(line)?.[1]?.toUpperCase() ?? null;
  return { at, ha, qth: qth || null, zip, bid };
}

/** Strips `Re:` / `RE^2:` prefixes so replies find their thread. */
export function threadSubject(subject: string): string {
  let s = subject.trim();
  for (;;) {
    const m = /^re(?:\^\d+)?\s*:\s*/i.exec(s);
    if (!m) return s.toUpperCase();
    s = s.slice(m[0].length);
  }
}
