/**
 * APRS-IS server-side filters, as aprsc documents them: space-separated terms,
 * a packet passes when some term matches it and no `-` term does.
 *
 *   r/lat/lon/km        position within km of a point
 *   p/aa/bb             source call starts with aa or bb
 *   b/call1/call2       source call is one of these (`*` wildcard)
 *   o/name1/name2       object or item name is one of these (`*` wildcard)
 *   t/poimqstunw[/call/km]  packet type (position, object, item, message, query,
 *                       status, telemetry, user-defined, NWS, weather), optionally
 *                       only from stations within km of call's last position
 *   s/pri/alt/over      symbol: codes of the primary table, of the alternate
 *                       table, and the overlays allowed with the alternate codes
 *   d/digi1/digi2       digipeated by one of these (a used hop; `*` wildcard)
 *   a/latN/lonW/latS/lonE  position inside the box
 *   e/call1/call2       entered APRS-IS at this station (the call after the q construct)
 *   u/dest1/dest2       destination (to-call) is one of these (`*` wildcard)
 *   m/km                position within km of the client's own last position
 *   f/call/km           position within km of call's last position
 *
 * Range terms match packets that carry a position. Positions of m/, f/ and
 * t/.../call/km references come from the station registry (see `refs`).
 * Terms not understood are ignored (listed in `unknown`), as aprsc does.
 * Wildcard patterns match in linear time (globMatcher), and a filter is bounded
 * (parseFilter): a client cannot make matching slow.
 */
import type { AprsPacket } from "../lib/aprs/types.ts";

/** What a filter looks at in a packet. */
export interface FilterPacket {
  src: string;
  dst: string | null;
  /** path elements after the destination (before and after the q construct) */
  path: string[];
  packet: AprsPacket | null;
}

export interface LatLon {
  lat: number;
  lon: number;
}

type Test = (p: FilterPacket, f: Filter) => boolean;

interface Term {
  negative: boolean;
  test: Test;
}

export interface Filter {
  /** the filter as given */
  text: string;
  terms: Term[];
  /** callsigns whose position a term needs (m/: the login; f/, t/...call/km) */
  refs: Set<string>;
  /** their last known positions, kept up to date by the server */
  positions: Map<string, LatLon>;
  /** terms that were not understood */
  unknown: string[];
}

const R_KM = 6371.0088;
const rad = (d: number) => (d * Math.PI) / 180;

function distanceKm(a: LatLon, b: LatLon): number {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * R_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** At most this many terms per filter; the rest are ignored (and the client told). */
export const MAX_FILTER_TERMS = 32;
/** A call or name pattern longer than this (after runs of `*` become one) is ignored. */
export const MAX_PATTERN_LENGTH = 16;
/** A filter's text is cut to this many characters (aprsc keeps 512-byte filter buffers). */
const MAX_FILTER_TEXT = 512;

/**
 * A matcher for the glob `p` (`*` any run of characters), upper case, for
 * upper-case values. Linear: the pieces between stars are found left to
 * right, each at its first place (the leftmost place is always a right choice
 * for `*`-only globs), so no input makes it backtrack.
 */
function globMatcher(p: string): (v: string) => boolean {
  const parts = p.split("*");
  if (parts.length === 1) return (v) => v === p;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter(Boolean);
  const least = first.length + last.length;
  return (v) => {
    if (v.length < least || !v.startsWith(first) || !v.endsWith(last)) return false;
    let at = first.length;
    const end = v.length - last.length;
    for (const part of middle) {
      const k = v.indexOf(part, at);
      if (k < 0 || k + part.length > end) return false;
      at = k + part.length;
    }
    return true;
  };
}

/** A call pattern with `*` wildcards as a matcher (case-insensitive); null when it is too long. */
function pattern(s: string): ((v: string) => boolean) | null {
  const u = s.toUpperCase().replace(/\*{2,}/g, "*");
  if (u.length > MAX_PATTERN_LENGTH) return null;
  const m = globMatcher(u);
  return (v) => m(v.toUpperCase());
}

const anyOf = (parts: string[]) => {
  const ms = parts.filter((x) => x.length).map(pattern);
  if (!ms.length || ms.some((m) => m === null)) return null;
  return (v: string | null | undefined) => !!v && ms.some((m) => m!(v));
};

const num = (s: string | undefined) => (s !== undefined && s !== "" && Number.isFinite(Number(s)) ? Number(s) : NaN);

const posOf = (p: FilterPacket): LatLon | null =>
  p.packet && p.packet.lat !== undefined && p.packet.lon !== undefined ? { lat: p.packet.lat, lon: p.packet.lon } : null;

const Q = /^q[A-Z][A-Za-z]$/;

/** The call after the q construct: where the packet entered APRS-IS. */
function entryCall(path: string[]): string | null {
  const i = path.findIndex((h) => Q.test(h));
  return i >= 0 ? (path[i + 1] ?? null) : null;
}

/** Digipeaters that repeated the packet: hops before the q construct up to the last one marked `*`. */
function usedDigis(path: string[]): string[] {
  const q = path.findIndex((h) => Q.test(h));
  const hops = q >= 0 ? path.slice(0, q) : path;
  let last = -1;
  hops.forEach((h, i) => h.endsWith("*") && (last = i));
  return hops.slice(0, last + 1).map((h) => h.replace(/\*$/, ""));
}

/** The type letters of t/ a packet answers to. */
function typeLetters(p: AprsPacket | null): string {
  if (!p) return "";
  let t = "";
  switch (p.type) {
    case "position":
      t = "p";
      break;
    case "weather":
      t = "w";
      break;
    case "object":
      t = "o";
      break;
    case "item":
      t = "i";
      break;
    case "message":
    case "ack":
    case "rej":
    case "bulletin":
    case "announcement":
      t = /^NWS[-_]/i.test(p.addressee ?? "") ? "mn" : "m";
      break;
    case "query":
      t = "q";
      break;
    case "status":
      t = "s";
      break;
    case "telemetry":
    case "telemetry-definitions":
      t = "t";
      break;
    case "user-defined":
      t = "u";
      break;
  }
  if (p.wx && !t.includes("w")) t += "w";
  if (p.type === "weather" && p.lat !== undefined) t += "p";
  if (p.telemetry && !t.includes("t")) t += "t";
  return t;
}

const within = (ref: LatLon | undefined, km: number) => (p: FilterPacket) => {
  const at = posOf(p);
  return !!at && !!ref && distanceKm(ref, at) <= km;
};

function parseTerm(raw: string, login: string, refs: Set<string>): Test | null {
  const parts = raw.split("/");
  const kind = parts[0]!.toLowerCase();
  const args = parts.slice(1);
  switch (kind) {
    case "r": {
      const [lat, lon, km] = [num(args[0]), num(args[1]), num(args[2])];
      if ([lat, lon, km].some(Number.isNaN) || Math.abs(lat) > 90 || Math.abs(lon) > 180 || km < 0) return null;
      return (p) => within({ lat, lon }, km)(p);
    }
    case "p": {
      const prefixes = args.filter(Boolean).map((a) => a.toUpperCase());
      if (prefixes.some((x) => x.length > MAX_PATTERN_LENGTH)) return null;
      return prefixes.length ? (p) => prefixes.some((x) => p.src.toUpperCase().startsWith(x)) : null;
    }
    case "b": {
      const m = anyOf(args);
      return m && ((p) => m(p.src));
    }
    case "o": {
      const m = anyOf(args);
      return m && ((p) => (p.packet?.type === "object" || p.packet?.type === "item") && m(p.packet.name?.trim()));
    }
    case "t": {
      const letters = (args[0] ?? "").toLowerCase();
      if (!/^[poimqstunw]+$/.test(letters)) return null;
      const call = args[1]?.toUpperCase();
      const km = num(args[2]);
      if (call && Number.isNaN(km)) return null;
      if (call) refs.add(call);
      return (p, f) => {
        const have = typeLetters(p.packet);
        if (![...have].some((l) => letters.includes(l))) return false;
        return !call || within(f.positions.get(call), km)(p);
      };
    }
    case "s": {
      const [pri = "", alt = "", over = ""] = args;
      if (!pri && !alt) return null;
      return (p) => {
        const sym = p.packet?.symbol;
        if (!sym || sym.length < 2) return false;
        const table = sym[0]!;
        const code = sym[1]!;
        if (table === "/") return pri.includes(code);
        if (!alt.includes(code)) return false;
        return over === "" || over.includes(table);
      };
    }
    case "d": {
      const m = anyOf(args);
      return m && ((p) => usedDigis(p.path).some((d) => m(d)));
    }
    case "a": {
      const [n, w, s, e] = args.map(num);
      if ([n, w, s, e].some((x) => x === undefined || Number.isNaN(x)) || n! < s! || e! < w!) return null;
      return (p) => {
        const at = posOf(p);
        return !!at && at.lat <= n! && at.lat >= s! && at.lon >= w! && at.lon <= e!;
      };
    }
    case "e": {
      const m = anyOf(args);
      return m && ((p) => m(entryCall(p.path)));
    }
    case "u": {
      const m = anyOf(args);
      return m && ((p) => m(p.dst));
    }
    case "m": {
      const km = num(args[0]);
      if (Number.isNaN(km) || km < 0 || !login) return null;
      refs.add(login);
      return (p, f) => within(f.positions.get(login), km)(p);
    }
    case "f": {
      const call = args[0]?.toUpperCase();
      const km = num(args[1]);
      if (!call || Number.isNaN(km) || km < 0) return null;
      refs.add(call);
      return (p, f) => within(f.positions.get(call), km)(p);
    }
  }
  return null;
}

/**
 * Parses a filter for a client logged in as `login` (m/ uses its position).
 * Bounded: the text is cut at MAX_FILTER_TEXT characters, terms past
 * MAX_FILTER_TERMS are ignored, and so is a term with a pattern longer than
 * MAX_PATTERN_LENGTH (all listed in `unknown`), so no filter makes matching
 * a packet cost more than a few hundred short comparisons.
 */
export function parseFilter(text: string, login: string): Filter {
  const f: Filter = { text: text.trim().slice(0, MAX_FILTER_TEXT).trim(), terms: [], refs: new Set(), positions: new Map(), unknown: [] };
  for (const word of f.text.split(/\s+/).filter(Boolean)) {
    if (f.terms.length >= MAX_FILTER_TERMS) {
      f.unknown.push(word);
      continue;
    }
    const negative = word.startsWith("-");
    const test = parseTerm(negative ? word.slice(1) : word, login.toUpperCase(), f.refs);
    if (test) f.terms.push({ negative, test });
    else f.unknown.push(word);
  }
  return f;
}

/** Whether `p` passes: some positive term matches and no negative one does. */
export function matchFilter(f: Filter, p: FilterPacket): boolean {
  let pass = false;
  for (const t of f.terms) {
    if (t.negative) {
      if (t.test(p, f)) return false;
    } else if (!pass && t.test(p, f)) pass = true;
  }
  return pass;
}
