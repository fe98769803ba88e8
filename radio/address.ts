/**
 * AX.25 addresses: up to six upper-case letters or digits and an SSID 0-15.
 * On the wire each is 7 bytes: the characters shifted left one bit and padded
 * with spaces, then the SSID byte `C RR SSID E` (C: command/response bit, or
 * has-been-repeated for a digipeater; RR: reserved, normally 11; E: set on the
 * last address of the field).
 */
import { fail, ok, RadioError, type Result } from "./errors.ts";

export interface Ax25Address {
  call: string;
  ssid: number;
  /** The two reserved bits as received, only when they are not the usual 0b11. */
  rr?: number;
}

const CALL = /^[A-Z0-9]{1,6}$/;

/**
 * Parses `CALL` or `CALL-SSID` in its one canonical spelling: upper case, SSID
 * 1-15 without a leading zero (SSID 0 is written without a suffix). Canonical
 * so that text and frame convert both ways byte for byte.
 */
export function parseAddress(text: string): Result<Ax25Address> {
  const dash = text.indexOf("-");
  const call = dash < 0 ? text : text.slice(0, dash);
  if (!CALL.test(call)) return fail("ax25-bad-address", `"${text}" is not an AX.25 address (1-6 of A-Z 0-9)`);
  if (dash < 0) return ok({ call, ssid: 0 });
  const s = text.slice(dash + 1);
  if (!/^(?:[1-9]|1[0-5])$/.test(s)) return fail("ax25-bad-address", `"${text}" has an SSID that is not 1-15`);
  return ok({ call, ssid: Number(s) });
}

/**
 * Like parseAddress but forgiving of how people type: trims, upper-cases and
 * accepts `-0`. For configuration and forms, not for frames.
 */
export function parseAddressLoose(text: string): Result<Ax25Address> {
  const t = text
    .trim()
    .toUpperCase()
    .replace(/-0+(?=\d)/, "-")
    .replace(/-0$/, "");
  return parseAddress(t);
}

/** `N0CALL-7`, or `N0CALL` for SSID 0. */
export function formatAddress(a: Ax25Address): string {
  return a.ssid ? `${a.call}-${a.ssid}` : a.call;
}

export function sameAddress(a: Ax25Address, b: Ax25Address): boolean {
  return a.call === b.call && a.ssid === b.ssid;
}

/** Throws unless `a` can be put on the air. */
export function checkAddress(a: Ax25Address): void {
  if (typeof a?.call !== "string" || !CALL.test(a.call)) throw new RadioError("ax25-bad-address", `callsign "${a?.call}" is not 1-6 of A-Z 0-9`);
  if (!Number.isInteger(a.ssid) || a.ssid < 0 || a.ssid > 15) throw new RadioError("ax25-bad-address", `SSID ${a.ssid} of ${a.call} is not 0-15`);
  if (a.rr !== undefined && (!Number.isInteger(a.rr) || a.rr < 0 || a.rr > 3))
    throw new RadioError("ax25-bad-address", `reserved bits ${a.rr} of ${a.call} are not 0-3`);
}

/** Writes the 7 address bytes at `at`. `bit7` is C or H; `last` sets the extension bit. */
export function writeAddress(out: Uint8Array, at: number, a: Ax25Address, bit7: boolean, last: boolean): void {
  checkAddress(a);
  for (let i = 0; i < 6; i++) out[at + i] = (i < a.call.length ? a.call.charCodeAt(i) : 0x20) << 1;
  out[at + 6] = (bit7 ? 0x80 : 0) | ((a.rr ?? 3) << 5) | (a.ssid << 1) | (last ? 1 : 0);
}

/** Reads 7 address bytes at `at`: the address, its bit 7 (C or H) and its extension bit. */
export function readAddress(buf: Uint8Array, at: number): Result<{ address: Ax25Address; bit7: boolean; last: boolean }> {
  let call = "";
  let padding = false;
  for (let i = 0; i < 6; i++) {
    const b = buf[at + i]!;
    if (b & 1) return fail("ax25-bad-address", `address ${at / 7 + 1} ends early (extension bit in byte ${i + 1})`);
    const c = b >> 1;
    if (c === 0x20) {
      padding = true;
      continue;
    }
    const alnum = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a);
    if (!alnum || padding) return fail("ax25-bad-address", `address ${at / 7 + 1} has ${alnum ? "a space inside" : `character 0x${c.toString(16)}`}`);
    call += String.fromCharCode(c);
  }
  if (!call) return fail("ax25-bad-address", `address ${at / 7 + 1} is blank`);
  const s = buf[at + 6]!;
  const address: Ax25Address = { call, ssid: (s >> 1) & 0x0f };
  const rr = (s >> 5) & 3;
  if (rr !== 3) address.rr = rr;
  return ok({ address, bit7: (s & 0x80) !== 0, last: (s & 1) === 1 });
}
