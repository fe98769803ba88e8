/**
 * BBS addressing, written once: message types, BIDs, the to-field and the
 * hierarchical address `CALL@BBS.#REGION.CC.CONT` (W0RLI/FBB style). Pure.
 *
 *   N0ABC@N0BBS.#NCA.CA.USA.NOAM   personal mail to N0ABC at its home BBS
 *   ALL@WW                         a bulletin in category ALL, flooded world-wide
 *   12345@NTSCA                    NTS traffic
 *
 * Every element is 1-6 of A-Z 0-9 (a region may start with #); an address
 * has at most 6 elements and 40 characters. The first element of a personal
 * address is the home BBS's callsign.
 */
import { isBaseCallsign } from "../lib/callsign.ts";

export type MessageType = "P" | "B" | "T";

/** Machine carrier traffic: hidden from the human bulletin listing. */
export const SVCFED_CATEGORY = "SVCFED";

const ELEMENT = /^#?[A-Z0-9]{1,6}$/;
const TO_FIELD = /^[A-Z0-9]{1,6}$/;
/** BIDs/MIDs: up to 12 printable characters, no blanks (FBB's limit). */
const BID = /^[\x21-\x7e]{1,12}$/;

export interface HierarchicalAddress {
  /** addressee (P), category (B), NTS destination (T) */
  to: string;
  /** the @ part, e.g. N0BBS.#NCA.CA.USA.NOAM; null when absent */
  at: string | null;
}

export type Check<T> = { ok: true; value: T } | { ok: false; message: string };

const fail = (message: string): Check<never> => ({ ok: false, message });

export function isMessageType(raw: unknown): raw is MessageType {
  return raw === "P" || raw === "B" || raw === "T";
}

/** Upper-cases and validates a BID/MID. */
export function checkBid(raw: unknown): Check<string> {
  if (typeof raw !== "string") return fail("a BID must be text");
  const bid = raw.trim().toUpperCase();
  if (!BID.test(bid)) return fail(`"${raw}" is not a BID (1-12 printable characters, no spaces)`);
  return { ok: true, value: bid };
}

/** Validates the @ part alone: `N0BBS.#NCA.CA.USA.NOAM`, `WW`, `EU`. */
export function checkRoute(raw: string): Check<string> {
  const at = raw.trim().toUpperCase();
  if (at.length === 0) return fail("the @ part is empty");
  if (at.length > 40) return fail(`the @ part "${raw}" is longer than 40 characters`);
  const parts = at.split(".");
  if (parts.length > 6) return fail(`the @ part "${raw}" has more than 6 elements`);
  for (const p of parts) {
    if (!ELEMENT.test(p)) return fail(`"${p || "(empty)"}" in "${raw}" is not an address element (1-6 letters or digits, a region may start with #)`);
  }
  if (parts[0]!.startsWith("#")) return fail(`"${raw}" starts with a region; the first element is a BBS callsign or an area`);
  return { ok: true, value: at };
}

/**
 * Parses `TO[@ROUTE]` for a message of `type`. Personal mail must be
 * addressed to a callsign; its route, when given, must start with a BBS
 * callsign.
 */
export function parseAddress(raw: unknown, type: MessageType): Check<HierarchicalAddress> {
  if (typeof raw !== "string") return fail("an address must be text, e.g. N0ABC@N0BBS.#NCA.CA.USA.NOAM");
  const text = raw.trim().toUpperCase();
  if (text.length === 0) return fail("the address is empty");
  const atSign = text.indexOf("@");
  if (atSign !== text.lastIndexOf("@")) return fail(`"${raw}" has more than one @`);
  const to = atSign < 0 ? text : text.slice(0, atSign);
  const atRaw = atSign < 0 ? null : text.slice(atSign + 1);
  const toCheck = checkTo(to, type);
  if (!toCheck.ok) return toCheck;
  let at: string | null = null;
  if (atRaw !== null) {
    const r = checkRoute(atRaw);
    if (!r.ok) return r;
    at = r.value;
    if (type === "P" && !isBaseCallsign(at.split(".")[0]!)) {
      return fail(`personal mail is routed to a BBS callsign first, e.g. ${to}@N0BBS.#NCA.CA.USA.NOAM; "${at.split(".")[0]}" is not a callsign`);
    }
  }
  return { ok: true, value: { to: toCheck.value, at } };
}

/** Service addressees personal mail may use besides callsigns (FBB's). */
const SERVICE_NAMES: ReadonlySet<string> = new Set(["SYSOP", "WP"]);

/** Validates the to-field for a type: a callsign (P), category (B), NTS destination (T). */
export function checkTo(raw: string, type: MessageType): Check<string> {
  const to = raw.trim().toUpperCase();
  if (!TO_FIELD.test(to)) {
    return fail(`"${raw}" is not a valid ${type === "B" ? "bulletin category" : "addressee"} (1-6 letters or digits)`);
  }
  if (type === "P" && !isBaseCallsign(to) && !SERVICE_NAMES.has(to)) {
    return fail(`"${raw}" is not a callsign; personal mail is addressed to a base callsign like N0ABC (or SYSOP, WP)`);
  }
  return { ok: true, value: to };
}

/** `TO@AT` or `TO` */
export function formatAddress(to: string, at: string | null): string {
  return at ? `${to}@${at}` : to;
}

/** The elements of a route, most specific first: N0BBS, #NCA, CA, USA, NOAM. */
export function routeElements(at: string | null): string[] {
  return at ? at.split(".") : [];
}

/** A routing pattern: one address element, optionally ending in `*`, or `*` alone. */
export function checkPattern(raw: unknown): Check<string> {
  if (typeof raw !== "string") return fail("a pattern must be text");
  const p = raw.trim().toUpperCase();
  if (p === "*") return { ok: true, value: p };
  if (!/^#?[A-Z0-9]{1,6}\*?$/.test(p))
    return fail(`"${raw}" is not a pattern (an address element such as N0BBS, #NCA, USA, NOAM or WW, optionally ending in *, or * alone)`);
  return { ok: true, value: p };
}

/** Whether a pattern matches one element. */
export function patternMatches(pattern: string, element: string): boolean {
  if (pattern === "*") return true;
  if (pattern.endsWith("*")) return element.startsWith(pattern.slice(0, -1));
  return element === pattern;
}
