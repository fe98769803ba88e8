/**
 * Body layouts of the nine record types (docs/protocol.md "Record bodies")
 * and the one mapping between the domains' JSON (lat, lon, difficulty,
 * terrain, distanceM, times in ms) and the wire's integers (latE7, lonE7,
 * difficultyX10, terrainX10, distanceCm, times in seconds). Pure.
 *
 * Publishing is strict: a body with a field the layout does not name is
 * refused, so nothing the layout leaves out (owner contact fields, e-mail,
 * anything personal) can reach the wire by accident. Receiving ignores
 * fields it does not know (a later version may add some) and checks the
 * ones it does.
 *
 * @example
 *   const body = cacheToWire(cache);   // { name, type, ..., latE7: 375123456, ... }
 *   cacheFromWire(body).lat            // 37.5123456, exactly what went in
 */
import type { CborValue } from "./cbor.ts";
import { isB64urlKey, isInstanceId, parseGid, RECORD_TYPES, SYNC_KINDS, type GidKind, type RecordKind } from "./record.ts";
import { isCallsign, normalizeCall } from "../callsign.ts";
import { validateEndpoint } from "./endpoints.ts";
import { FIND_LOG_KINDS, WIRE_FIND_KINDS, type FindLogKind, type WireFindKind } from "../log-kinds.ts";

// ---------------------------------------------------------------- scaled fields

/** Degrees to 1e-7 degree units, rounded to the nearest unit. */
export const toE7 = (deg: number): number => scale(deg, 1e7, "a coordinate");
export const fromE7 = (e7: number): number => e7 / 1e7;
/** Difficulty or terrain (1 to 5 in halves) to tenths. */
export const toX10 = (x: number): number => scale(x, 10, "a rating");
export const fromX10 = (x10: number): number => x10 / 10;
/** Metres to centimetres. */
export const toCm = (m: number): number => scale(m, 100, "a distance");
export const fromCm = (cm: number): number => cm / 100;
/** Unix milliseconds (JSON) to unix seconds (wire), rounded down. */
export const toSeconds = (ms: number): number => Math.floor(ms / 1000);
export const fromSeconds = (s: number): number => s * 1000;

function scale(x: number, factor: number, what: string): number {
  if (typeof x !== "number" || !Number.isFinite(x)) throw new RangeError(`${what} must be a finite number`);
  // x * factor is within a rounding error of the exact product; Math.round then
  // gives the nearest unit, and n / factor maps back to the double nearest that
  // decimal, so every value with at most log10(factor) decimals survives both ways.
  const n = Math.round(x * factor);
  if (!Number.isSafeInteger(n)) throw new RangeError(`${what} is out of range`);
  return n === 0 ? 0 : n; // never -0
}

// ---------------------------------------------------------------- layouts

export interface CacheBody {
  name: string;
  type: string;
  size: string;
  difficultyX10: number;
  terrainX10: number;
  latE7: number;
  lonE7: number;
  status: string;
  hint?: string;
  /** absent when the cache is unlisted */
  description?: string;
  /** attributes (src/lib/cache-attributes.ts) as signed Groundspeak ids, +id yes, -id no; absent when none */
  attributes?: number[];
  unlisted?: boolean;
  ownerCall?: string;
  /** account gid `origin:account:id` of the owner */
  ownerAccount?: string;
  /** unix seconds */
  placedAt?: number;
  /** `true` while a needs-maintenance or needs-archive log is open (absent otherwise) */
  needsMaintenance?: boolean;
  /** event caches: when it takes place (unix seconds) and its IANA time zone */
  eventStartAt?: number;
  eventEndAt?: number;
  timeZone?: string;
  /** the cache's public waypoints (never its final): at most MAX_WAYPOINTS */
  waypoints?: WaypointBody[];
}

/** A waypoint of a cache (parking, a stage, ...) inside its cache record. */
export interface WaypointBody {
  kind: string;
  name: string;
  latE7?: number;
  lonE7?: number;
  note?: string;
}

/** Waypoints a cache record carries at most. */
export const MAX_WAYPOINTS = 30;

export interface FindBody {
  /** gid of the cache (any origin) */
  cache: string;
  /** `note` for every kind beyond these three, which `logKind` then names */
  kind: WireFindKind;
  /** the log's kind when it is none of find, dnf, note: e.g. needs-maintenance */
  logKind?: string;
  /** unix seconds */
  loggedAt: number;
  /** finder's callsign; absent once the find is withdrawn (account erased) */
  call?: string;
  account?: string;
  text?: string;
  /** trust tier, e.g. A */
  tier?: string;
  /** e.g. withdrawn */
  state?: string;
  /** distance of the corroborating position from the cache */
  distanceCm?: number;
}

export interface KeyBody {
  call: string;
  /** base64url Ed25519 public key */
  key: string;
  account?: string;
  createdAt: number;
  revokedAt?: number;
}

export interface BulletinBody {
  from: string;
  category: string;
  area?: string;
  subject: string;
  text: string;
  bid?: string;
  postedAt: number;
}

/** A tombstone's body is empty: its gid is the global record id it deletes. */
export type TombstoneBody = Record<string, never>;

export interface AccountMoveBody {
  /** the account on the origin (`origin:account:id`) */
  from: string;
  /** the account it moved to, on another instance */
  to: string;
}

export interface PeerBody {
  /** equals the record's origin: an instance describes only itself */
  instance: string;
  /** typed endpoints, `transport:address;priority` (endpoints.ts) */
  endpoints: string[];
  caps?: string[];
  /**
   * A have-list (`<instance>:peer:have` only): pairs of sync record type and
   * the highest cursor of that feed, flattened, by type: [1, 523, 2, 1200].
   */
  have?: number[];
}

/** A trackable (type 8): made once, never changed; its state comes from its moves. */
export interface TrackableBody {
  /** the public code on its tag, e.g. SVT4K2Z9Q */
  ref: string;
  name: string;
  goal?: string;
  description?: string;
  /** absent once the owner's account is erased */
  ownerCall?: string;
  ownerAccount?: string;
  /** hex scrypt of the tracking code salted with the ref (docs/protocol.md "Trackables") */
  codeHash: string;
  /** unix seconds */
  createdAt: number;
}

/** A move of a trackable (type 9), signed by the instance where it was logged. */
export interface TrackableMoveBody {
  /** gid of the trackable (any origin) */
  trackable: string;
  kind: "drop" | "retrieve" | "grab" | "discover" | "visit" | "note" | "missing";
  /** the mover; absent once the mover's account is erased */
  call?: string;
  account?: string;
  /** gid of the cache it went into, came out of or visited */
  cache?: string;
  /** the cache's position then: the journey and its distance need no cache record */
  latE7?: number;
  lonE7?: number;
  text?: string;
  tier?: string;
  /** when it happened, unix seconds */
  at: number;
}

export interface Bodies {
  trackable: TrackableBody;
  "trackable-move": TrackableMoveBody;
  cache: CacheBody;
  find: FindBody;
  key: KeyBody;
  bulletin: BulletinBody;
  tombstone: TombstoneBody;
  "account-move": AccountMoveBody;
  peer: PeerBody;
}

type Field =
  | { t: "text"; max: number; min?: number; req?: true; pattern?: RegExp }
  | { t: "token"; req?: true; oneOf?: readonly string[] }
  | { t: "int"; min: number; max: number; req?: true }
  /** a list of at most `max` integers, none 0, each within ±`abs` */
  | { t: "ints"; abs: number; max: number; req?: true }
  | { t: "bool"; req?: true }
  | { t: "call"; req?: true }
  | { t: "gid"; kinds: readonly GidKind[]; req?: true }
  | { t: "key"; req?: true }
  | { t: "instance"; req?: true }
  | { t: "list"; of: "endpoint" | "token"; max: number; req?: true }
  /** a list of maps, each checked against its own layout (unknown keys: as for a body) */
  | { t: "maps"; of: Readonly<Record<string, Field>>; max: number; req?: true }
  | { t: "have"; req?: true };

const TOKEN = /^[a-z0-9][a-z0-9-]{0,23}$/;
/** The record types a have-list names: those of the sync feeds. */
const HAVE_TYPES: readonly number[] = SYNC_KINDS.map((k) => RECORD_TYPES[k]).sort((a, b) => a - b);
const SECONDS = { t: "int", min: 0, max: 2 ** 40 } as const;
const ACCOUNT = { t: "gid", kinds: ["account"] } as const;

const LAYOUTS: Readonly<Record<RecordKind, Readonly<Record<string, Field>>>> = {
  cache: {
    name: { t: "text", min: 1, max: 100, req: true },
    type: { t: "token", req: true },
    size: { t: "token", req: true },
    difficultyX10: { t: "int", min: 10, max: 50, req: true },
    terrainX10: { t: "int", min: 10, max: 50, req: true },
    latE7: { t: "int", min: -900_000_000, max: 900_000_000, req: true },
    lonE7: { t: "int", min: -1_800_000_000, max: 1_800_000_000, req: true },
    status: { t: "token", req: true },
    hint: { t: "text", max: 1000 },
    attributes: { t: "ints", abs: 1000, max: 80 },
    description: { t: "text", max: 20_000 },
    unlisted: { t: "bool" },
    ownerCall: { t: "call" },
    ownerAccount: ACCOUNT,
    placedAt: SECONDS,
    needsMaintenance: { t: "bool" },
    eventStartAt: SECONDS,
    eventEndAt: SECONDS,
    timeZone: { t: "text", min: 1, max: 64, pattern: /^[A-Za-z][A-Za-z0-9_+/-]*$/ },
    waypoints: {
      t: "maps",
      max: MAX_WAYPOINTS,
      of: {
        kind: { t: "token", req: true },
        name: { t: "text", min: 1, max: 100, req: true },
        latE7: { t: "int", min: -900_000_000, max: 900_000_000 },
        lonE7: { t: "int", min: -1_800_000_000, max: 1_800_000_000 },
        note: { t: "text", max: 500 },
      },
    },
  },
  find: {
    cache: { t: "gid", kinds: ["cache"], req: true },
    kind: { t: "token", oneOf: WIRE_FIND_KINDS, req: true },
    logKind: { t: "token" },
    loggedAt: { ...SECONDS, req: true },
    call: { t: "call" },
    account: ACCOUNT,
    text: { t: "text", max: 4000 },
    tier: { t: "token" },
    state: { t: "token" },
    distanceCm: { t: "int", min: 0, max: 2 ** 40 },
  },
  key: {
    call: { t: "call", req: true },
    key: { t: "key", req: true },
    account: ACCOUNT,
    createdAt: { ...SECONDS, req: true },
    revokedAt: SECONDS,
  },
  bulletin: {
    from: { t: "call", req: true },
    category: { t: "text", min: 1, max: 6, pattern: /^[A-Z0-9]+$/, req: true },
    area: { t: "text", max: 40, pattern: /^[A-Z0-9.#]*$/ },
    subject: { t: "text", max: 80, req: true },
    text: { t: "text", max: 20_000, req: true },
    bid: { t: "text", max: 12, pattern: /^[\x21-\x7e]*$/ },
    postedAt: { ...SECONDS, req: true },
  },
  tombstone: {},
  "account-move": {
    from: { ...ACCOUNT, req: true },
    to: { ...ACCOUNT, req: true },
  },
  trackable: {
    ref: { t: "text", min: 4, max: 16, pattern: /^[A-Z0-9]+$/, req: true },
    name: { t: "text", min: 1, max: 100, req: true },
    goal: { t: "text", max: 1000 },
    description: { t: "text", max: 4000 },
    ownerCall: { t: "call" },
    ownerAccount: ACCOUNT,
    codeHash: { t: "text", min: 64, max: 64, pattern: /^[0-9a-f]+$/, req: true },
    createdAt: { ...SECONDS, req: true },
  },
  "trackable-move": {
    trackable: { t: "gid", kinds: ["trackable"], req: true },
    kind: { t: "token", oneOf: ["drop", "retrieve", "grab", "discover", "visit", "note", "missing"], req: true },
    call: { t: "call" },
    account: ACCOUNT,
    cache: { t: "gid", kinds: ["cache"] },
    latE7: { t: "int", min: -900_000_000, max: 900_000_000 },
    lonE7: { t: "int", min: -1_800_000_000, max: 1_800_000_000 },
    text: { t: "text", max: 4000 },
    tier: { t: "token" },
    at: { ...SECONDS, req: true },
  },
  peer: {
    instance: { t: "instance", req: true },
    endpoints: { t: "list", of: "endpoint", max: 16, req: true },
    caps: { t: "list", of: "token", max: 16 },
    have: { t: "have" },
  },
};

/** Each layout's fields as a list, made once (checkBody runs for every frame applied). */
const FIELDS = Object.fromEntries(Object.entries(LAYOUTS).map(([kind, layout]) => [kind, Object.entries(layout)])) as Record<
  RecordKind,
  Array<[string, Field]>
>;

function checkField(name: string, f: Field, v: CborValue, mode: "publish" | "receive"): string | null {
  switch (f.t) {
    case "text":
      if (typeof v !== "string") return `${name} must be text`;
      if (v.length < (f.min ?? 0) || v.length > f.max) return `${name} must be ${f.min ?? 0}-${f.max} characters`;
      if (f.pattern && !f.pattern.test(v)) return `${name} has characters it may not have`;
      return null;
    case "token":
      if (typeof v !== "string" || !TOKEN.test(v)) return `${name} must be a lower-case token`;
      if (f.oneOf && !f.oneOf.includes(v)) return `${name} must be one of ${f.oneOf.join(", ")}`;
      return null;
    case "int":
      if (typeof v !== "number" || v < f.min || v > f.max) return `${name} must be an integer from ${f.min} to ${f.max}`;
      return null;
    case "ints":
      if (!Array.isArray(v) || v.length > f.max) return `${name} must be a list of at most ${f.max} integers`;
      for (const x of v)
        if (typeof x !== "number" || !Number.isInteger(x) || x === 0 || Math.abs(x) > f.abs)
          return `${name} entries must be integers from -${f.abs} to ${f.abs}, not 0`;
      return null;
    case "bool":
      return typeof v === "boolean" ? null : `${name} must be true or false`;
    case "call":
      return typeof v === "string" && isCallsign(v) && v === normalizeCall(v) ? null : `${name} must be a callsign in capitals`;
    case "gid": {
      const g = typeof v === "string" ? parseGid(v) : null;
      return g && f.kinds.includes(g.kind) ? null : `${name} must be a ${f.kinds.join(" or ")} gid`;
    }
    case "key":
      return typeof v === "string" && isB64urlKey(v) ? null : `${name} must be a base64url Ed25519 key`;
    case "instance":
      return typeof v === "string" && isInstanceId(v) ? null : `${name} must be an instance id`;
    case "have": {
      // (type, cursor) pairs, one per sync feed at most, by type
      if (!Array.isArray(v) || v.length % 2 !== 0 || v.length > 2 * HAVE_TYPES.length)
        return `${name} must be (type, cursor) pairs, at most ${HAVE_TYPES.length}`;
      for (let i = 0; i < v.length; i += 2) {
        const t = v[i];
        const c = v[i + 1];
        if (typeof t !== "number" || !HAVE_TYPES.includes(t) || (i > 0 && t <= (v[i - 2] as number)))
          return `${name} types must be sync record types, each once, ascending`;
        if (typeof c !== "number" || !Number.isSafeInteger(c) || c < 0) return `${name} cursors must be whole numbers`;
      }
      return null;
    }
    case "list": {
      if (!Array.isArray(v) || v.length > f.max) return `${name} must be a list of at most ${f.max}`;
      for (const x of v) {
        if (typeof x !== "string") return `${name} entries must be text`;
        if (f.of === "token" ? !TOKEN.test(x) : !validateEndpoint(x).ok) return `${name} entry "${x}" is not a valid ${f.of}`;
      }
      return null;
    }
    case "maps": {
      if (!Array.isArray(v) || v.length > f.max) return `${name} must be a list of at most ${f.max}`;
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (x === null || typeof x !== "object" || Array.isArray(x) || x instanceof Uint8Array || x instanceof Map)
          return `${name}[${i}] must be a map with text keys`;
        const problem = checkMap(`${name}[${i}].`, f.of, x, mode);
        if (problem) return problem;
      }
      return null;
    }
  }
}

/** A map inside a body (an entry of a "maps" field) against its layout, as checkBody does a body. */
function checkMap(
  prefix: string,
  layout: Readonly<Record<string, Field>>,
  m: Record<string, CborValue | undefined>,
  mode: "publish" | "receive",
): string | null {
  for (const [name, f] of Object.entries(layout)) {
    const v = m[name];
    if (v === undefined) {
      if (f.req) return `${prefix}${name} is required`;
      continue;
    }
    const problem = checkField(prefix + name, f, v, mode);
    if (problem) return problem;
  }
  if (mode === "publish") for (const name of Object.keys(m)) if (m[name] !== undefined && !(name in layout)) return `${prefix}${name} is not a field here`;
  return null;
}

/**
 * Checks a body against its layout. "publish" also refuses fields the layout
 * does not name; "receive" ignores them. Returns the problem, or null.
 */
export function checkBody(kind: RecordKind, body: Record<string, CborValue | undefined>, mode: "publish" | "receive"): string | null {
  const layout = LAYOUTS[kind];
  for (const [name, f] of FIELDS[kind]) {
    const v = body[name];
    if (v === undefined) {
      if (f.req) return `${name} is required`;
      continue;
    }
    const problem = checkField(name, f, v, mode);
    if (problem) return problem;
  }
  if (mode === "publish") {
    for (const name of Object.keys(body)) {
      if (body[name] !== undefined && !(name in layout)) return `${name} is not a field of a ${kind} record`;
    }
  }
  if (kind === "cache" && body.unlisted === true && body.description !== undefined) return "an unlisted cache withholds its description";
  return null;
}

// ---------------------------------------------------------------- domain JSON <-> wire

/** What every form of a cache has alike (its row, its JSON, a body, a catalog entry): its name, kind, ratings and place. */
export interface CacheBasics {
  name: string;
  type: string;
  size: string;
  difficulty: number;
  terrain: number;
  lat: number;
  lon: number;
}

/** A cache as the game's JSON has it (extra fields, e.g. owner contact, are never copied). */
export interface CacheJson extends CacheBasics {
  status: string;
  hint?: string | null;
  description?: string | null;
  /** signed attribute ids, +id yes, -id no (src/lib/cache-attributes.ts) */
  attributes?: number[];
  unlisted?: boolean;
  ownerCall?: string | null;
  ownerAccount?: string | null;
  /** unix ms */
  placedAt?: number | null;
  needsMaintenance?: boolean;
  /** event caches: unix ms, and the IANA zone */
  eventStartAt?: number | null;
  eventEndAt?: number | null;
  timeZone?: string | null;
}

const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/** The cache body for the wire: scaled integers, description withheld when unlisted, nothing else copied. */
export function cacheToWire(c: CacheJson): CacheBody {
  return {
    name: c.name,
    type: c.type,
    size: c.size,
    difficultyX10: toX10(c.difficulty),
    terrainX10: toX10(c.terrain),
    latE7: toE7(c.lat),
    lonE7: toE7(c.lon),
    status: c.status,
    hint: opt(c.hint),
    description: c.unlisted ? undefined : opt(c.description),
    attributes: c.attributes?.length ? [...c.attributes] : undefined,
    unlisted: c.unlisted ? true : undefined,
    ownerCall: opt(c.ownerCall),
    ownerAccount: opt(c.ownerAccount),
    placedAt: c.placedAt == null ? undefined : toSeconds(c.placedAt),
    needsMaintenance: c.needsMaintenance ? true : undefined,
    eventStartAt: c.eventStartAt == null ? undefined : toSeconds(c.eventStartAt),
    eventEndAt: c.eventEndAt == null ? undefined : toSeconds(c.eventEndAt),
    timeZone: opt(c.timeZone),
  };
}

export function cacheFromWire(b: CacheBody): CacheJson {
  return {
    name: b.name,
    type: b.type,
    size: b.size,
    difficulty: fromX10(b.difficultyX10),
    terrain: fromX10(b.terrainX10),
    lat: fromE7(b.latE7),
    lon: fromE7(b.lonE7),
    status: b.status,
    hint: b.hint ?? null,
    description: b.description ?? null,
    attributes: b.attributes ?? [],
    unlisted: b.unlisted === true,
    ownerCall: b.ownerCall ?? null,
    ownerAccount: b.ownerAccount ?? null,
    placedAt: b.placedAt === undefined ? null : fromSeconds(b.placedAt),
    ...(b.needsMaintenance === true ? { needsMaintenance: true } : {}),
    ...(b.eventStartAt !== undefined && b.eventEndAt !== undefined && b.timeZone !== undefined
      ? { eventStartAt: fromSeconds(b.eventStartAt), eventEndAt: fromSeconds(b.eventEndAt), timeZone: b.timeZone }
      : {}),
  };
}

/** A cache's waypoint as the game's JSON has it (degrees). */
export interface WaypointJson {
  kind: string;
  name: string;
  lat: number | null;
  lon: number | null;
  note: string | null;
}

/** Waypoints for the wire: undefined when there are none (the field is left out). */
export function waypointsToWire(ws: readonly WaypointJson[]): WaypointBody[] | undefined {
  if (!ws.length) return undefined;
  return ws.map((w) => ({
    kind: w.kind,
    name: w.name,
    latE7: w.lat === null || w.lon === null ? undefined : toE7(w.lat),
    lonE7: w.lat === null || w.lon === null ? undefined : toE7(w.lon),
    note: opt(w.note),
  }));
}

export function waypointsFromWire(ws: readonly WaypointBody[] | undefined): WaypointJson[] {
  return (ws ?? []).map((w) => ({
    kind: w.kind,
    name: w.name,
    lat: w.latE7 === undefined || w.lonE7 === undefined ? null : fromE7(w.latE7),
    lon: w.latE7 === undefined || w.lonE7 === undefined ? null : fromE7(w.lonE7),
    note: w.note ?? null,
  }));
}

export interface FindJson {
  cache: string;
  kind: FindLogKind;
  /** unix ms */
  loggedAt: number;
  call?: string | null;
  account?: string | null;
  text?: string | null;
  tier?: string | null;
  state?: string | null;
  distanceM?: number | null;
}

export function findToWire(f: FindJson): FindBody {
  return {
    cache: f.cache,
    // a kind beyond find/dnf/note travels as a note naming it: an older peer shows a note instead of refusing the record
    kind: (WIRE_FIND_KINDS as readonly string[]).includes(f.kind) ? (f.kind as WireFindKind) : "note",
    logKind: (WIRE_FIND_KINDS as readonly string[]).includes(f.kind) ? undefined : f.kind,
    loggedAt: toSeconds(f.loggedAt),
    call: opt(f.call),
    account: opt(f.account),
    text: opt(f.text),
    tier: opt(f.tier),
    state: opt(f.state),
    distanceCm: f.distanceM == null ? undefined : toCm(f.distanceM),
  };
}

export function findFromWire(b: FindBody): FindJson {
  return {
    cache: b.cache,
    // logKind names the kind of a `note`; one this version does not know stays a note
    kind: b.kind === "note" && (FIND_LOG_KINDS as readonly string[]).includes(b.logKind ?? "") ? (b.logKind as FindLogKind) : b.kind,
    loggedAt: fromSeconds(b.loggedAt),
    call: b.call ?? null,
    account: b.account ?? null,
    text: b.text ?? null,
    tier: b.tier ?? null,
    state: b.state ?? null,
    distanceM: b.distanceCm === undefined ? null : fromCm(b.distanceCm),
  };
}

/** Bodies without scaled fields: JSON times in ms, the rest as on the wire. */
export function bodyToJson(kind: RecordKind, body: Record<string, CborValue>): Record<string, unknown> {
  if (kind === "cache") {
    const b = body as unknown as CacheBody;
    return { ...cacheFromWire(b), ...(b.waypoints ? { waypoints: waypointsFromWire(b.waypoints) } : {}) };
  }
  if (kind === "find") return { ...findFromWire(body as unknown as FindBody) };
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(LAYOUTS[kind])) {
    const v = body[name];
    if (v === undefined) continue;
    out[name] = f.t === "int" && /At$/.test(name) ? fromSeconds(v as number) : v;
  }
  return out;
}
