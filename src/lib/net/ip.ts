/**
 * IP addresses and CIDR ranges, IPv4 and IPv6 alike: an address is a 128-bit
 * number, IPv4 as its IPv4-mapped IPv6 form (::ffff:a.b.c.d), so one range
 * check serves both and `::ffff:127.0.0.1` is the same address as `127.0.0.1`.
 *
 *   inRanges(parseIp("10.1.2.3")!, parseRanges("10.0.0.0/8,::1").ranges)  // true
 */

export interface IpRange {
  base: bigint;
  /** prefix length over 128 bits */
  bits: number;
  text: string;
}

const V4_MAPPED = 0xffffn << 32n;

function parseV4(s: string): bigint | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = (n << 8n) | BigInt(p);
  }
  return n;
}

/** An address as a 128-bit number (IPv4 mapped into ::ffff:0:0/96), or null when it is not one. */
export function parseIp(raw: string): bigint | null {
  let s = raw.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(":")) {
    const v4 = parseV4(s);
    return v4 === null ? null : V4_MAPPED | v4;
  }
  // IPv6; a dotted IPv4 ending (::ffff:1.2.3.4) becomes its two hex words.
  const lastColon = s.lastIndexOf(":");
  const last = s.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = parseV4(last);
    if (v4 === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const words = (h: string) => (h === "" ? [] : h.split(":"));
  const head = words(halves[0]!);
  const rest = halves.length === 2 ? words(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  let n = 0n;
  for (const w of [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(w)) return null;
    n = (n << 16n) | BigInt(parseInt(w, 16));
  }
  return n;
}

/** Whether a parsed address is IPv4 (mapped). */
export const isV4 = (ip: bigint) => ip >> 32n === 0xffffn;

/** `a.b.c.d/n`, `x::y/n` or a single address; IPv4 prefixes count within the mapped range. */
export function parseRange(raw: string): IpRange | null {
  const text = raw.trim();
  const slash = text.indexOf("/");
  const addr = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (addr === null) return null;
  const v4 = !text.slice(0, slash < 0 ? undefined : slash).includes(":");
  const max = v4 ? 32 : 128;
  let bits = max;
  if (slash >= 0) {
    const b = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(b) || Number(b) > max) return null;
    bits = Number(b);
  }
  const total = v4 ? bits + 96 : bits;
  const mask = total === 0 ? 0n : ((1n << BigInt(total)) - 1n) << BigInt(128 - total);
  return { base: addr & mask, bits: total, text };
}

/** Comma-separated ranges; `errors` names the entries that are not ranges. */
export function parseRanges(raw: string): { ranges: IpRange[]; errors: string[] } {
  const ranges: IpRange[] = [];
  const errors: string[] = [];
  for (const part of raw
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const r = parseRange(part);
    if (r) ranges.push(r);
    else errors.push(part);
  }
  return { ranges, errors };
}

export function inRange(ip: bigint, r: IpRange): boolean {
  const mask = r.bits === 0 ? 0n : ((1n << BigInt(r.bits)) - 1n) << BigInt(128 - r.bits);
  return (ip & mask) === r.base;
}

export const inRanges = (ip: bigint, ranges: readonly IpRange[]) => ranges.some((r) => inRange(ip, r));
