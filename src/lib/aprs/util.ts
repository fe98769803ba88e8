/** Small shared pieces of the APRS decoder: failures, rounding, unit conversions. */
import type { DecodeErrorCode } from "./types.ts";

/** Thrown inside the decoder only; decode() turns it into a DecodeResult. */
export class DecodeFail {
  constructor(
    readonly code: DecodeErrorCode,
    readonly message: string,
  ) {}
}

export const fail = (code: DecodeErrorCode, message: string): never => {
  throw new DecodeFail(code, message);
};

export const KNOT_KMH = 1.852;
export const MPH_KMH = 1.609344;
export const FT_M = 0.3048;
export const INCH_MM = 25.4;

export const round = (x: number, places: number) => {
  const f = 10 ** places;
  return Math.round(x * f) / f;
};
/** Coordinates to 1e-7 degree, the resolution of the signed-record wire format. */
export const r7 = (x: number) => Math.round(x * 1e7) / 1e7;

/** A base-91 digit ('!'..'{') or -1. */
export function b91(code: number): number {
  return code >= 33 && code <= 123 ? code - 33 : -1;
}

/** Whether s[i..i+n) are all ASCII digits. */
export function digits(s: string, i: number, n: number): boolean {
  if (i + n > s.length) return false;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Integer from s[i..i+n) known to be digits. */
export function int(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = i; k < i + n; k++) v = v * 10 + (s.charCodeAt(k) - 48);
  return v;
}

/** Trims spaces, CR and LF at both ends; undefined when nothing is left. */
export function cleanText(s: string): string | undefined {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 32) a++;
  while (b > a && s.charCodeAt(b - 1) <= 32) b--;
  return b > a ? s.slice(a, b) : undefined;
}
