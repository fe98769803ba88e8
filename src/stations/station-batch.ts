/**
 * Station rows, written once per station per ingest batch. The batch folds
 * a station's packets into one set of changes in memory, then writes them
 * with one UPDATE that merges them into the stored row (no read first), or,
 * when the station has no row yet, one INSERT. The map index is touched only
 * when the batch carried a position, the weather and telemetry-definition
 * columns only when it carried those.
 *
 * The merge rules are the registry's (what GET /api/stations shows); applying
 * a batch at once gives the same row as applying its packets one by one:
 *   position  a position packet: the newest position wins (an older packet
 *             heard late does not move the station back; of equal times the
 *             later one); symbol, comment, device and messaging keep their
 *             last known value when a packet does not carry them; kind and
 *             owner are the last position packet's
 *   heard     any other packet: status and device when carried; the symbol
 *             only if the station has none yet
 *   both      count the packet, refresh last heard, and how it was heard
 *             (source, IGate, path: the last packet's)
 *   wx        the newest weather report wins; refreshes last heard
 *   defs      PARM/UNIT/EQNS/BITS, merged by the caller
 * Callsigns match without regard to ASCII case (the column is COLLATE NOCASE).
 */
import type { Database, Statement } from "../core/store/sqlite.ts";

/** What a position packet says about its station. */
export interface PositionFields {
  kind: string;
  owner: string | null;
  alive: number;
  lat: number;
  lon: number;
  ambiguity: number | null;
  symbol: string | null;
  course: number | null;
  speedKmh: number | null;
  altM: number | null;
  comment: string | null;
  device: string | null;
  messaging: number | null;
}

/** How a packet was heard. */
export interface HeardBy {
  source: string;
  igate: string | null;
  path: string | null;
}

/** One station's changes in this batch. */
interface Changes {
  call: string;
  /** the batch's first change for this station: it makes a new row */
  first: "position" | "heard" | "wx" | "defs";
  firstTs: number;
  /** how the first change, a weather report, was heard (a new row's source until a packet says) */
  wxBy: HeardBy | null;
  /** packets counted (positions and other packets) */
  packets: number;
  /** latest time heard by a position, other packet or weather report; null if none */
  lastHeard: number | null;
  /** the newest position packet (of equal times, the later) */
  pos: (PositionFields & { ts: number }) | null;
  /** kind and owner of the last position packet */
  kind: string | null;
  owner: string | null;
  /** last non-null values carried */
  posSymbol: string | null;
  heardSymbol: string | null;
  comment: string | null;
  device: string | null;
  messaging: number | null;
  status: string | null;
  /** how the last position or other packet was heard */
  by: HeardBy | null;
  /** the newest weather report */
  wx: { json: string; ts: number } | null;
  /** telemetry definitions to store (JSON) */
  defs: string | null;
}

const INSERT = `INSERT INTO stations (call, kind, owner, alive, lat, lon, ambiguity, symbol, course, speed_kmh, alt_m, comment, status, device, messaging,
    first_heard, last_heard, last_position_at, packets, source, igate, path, wx, wx_at, telemetry_defs)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const P = 1; // the batch carried a position
const H = 2; // ... a position or other packet (counted, how heard)
const W = 4; // ... weather
const D = 8; // ... telemetry definitions

/**
 * The merging UPDATE for a mix of changes. Parameters: ?1 call, ?2 packets,
 * ?3 last heard; position ?4 ts ?5 kind ?6 owner ?7 alive ?8 lat ?9 lon
 * ?10 ambiguity ?11 course ?12 speed ?13 altitude; ?14 position symbol
 * ?15 heard symbol ?16 comment ?17 device ?18 messaging ?19 status ?20 source
 * ?21 igate ?22 path; ?23 wx ?24 wx time; ?25 definitions.
 */
function updateSql(mask: number): string {
  const set: string[] = [];
  if (mask & H) {
    set.push("packets = packets + ?2", "last_heard = max(last_heard, ?3)", "source = ?20", "igate = ?21", "path = ?22");
    set.push("symbol = coalesce(?14, symbol, ?15)", "comment = coalesce(?16, comment)", "device = coalesce(?17, device)");
    set.push("messaging = coalesce(?18, messaging)", "status = coalesce(?19, status)");
  } else if (mask & W) {
    set.push("last_heard = max(last_heard, ?3)");
  }
  if (mask & P) {
    set.push("kind = ?5", "owner = ?6");
    const newer = "?4 >= coalesce(last_position_at, 0)";
    for (const [col, p] of [
      ["alive", 7],
      ["lat", 8],
      ["lon", 9],
      ["ambiguity", 10],
      ["course", 11],
      ["speed_kmh", 12],
      ["alt_m", 13],
    ] as const) {
      set.push(`${col} = CASE WHEN ${newer} THEN ?${p} ELSE ${col} END`);
    }
    set.push("last_position_at = max(coalesce(last_position_at, 0), ?4)");
  }
  if (mask & W) set.push("wx = CASE WHEN ?24 >= coalesce(wx_at, 0) THEN ?23 ELSE wx END", "wx_at = max(coalesce(wx_at, 0), ?24)");
  if (mask & D) set.push("telemetry_defs = ?25");
  return `UPDATE stations SET ${set.join(", ")} WHERE call = ?1`;
}

interface Statements {
  insert: Statement;
  defs: Statement;
  update: Map<number, Statement>;
}

const cache = new WeakMap<Database, Statements>();

function statements(db: Database): Statements {
  let s = cache.get(db);
  if (!s) {
    s = { insert: db.prepare(INSERT), defs: db.prepare("SELECT telemetry_defs AS defs FROM stations WHERE call = ?"), update: new Map() };
    cache.set(db, s);
  }
  return s;
}

/** SQLite's NOCASE folds ASCII letters only; so does this. */
function foldKey(call: string): string {
  for (let i = 0; i < call.length; i++) {
    const c = call.charCodeAt(i);
    if (c >= 97 && c <= 122) return call.replace(/[a-z]+/g, (s) => s.toUpperCase());
  }
  return call;
}

export class StationBatch {
  private readonly st: Statements;
  private readonly changes = new Map<string, Changes>();

  constructor(private readonly db: Database) {
    this.st = statements(db);
  }

  private of(call: string, ts: number, first: Changes["first"]): Changes {
    const key = foldKey(call);
    let c = this.changes.get(key);
    if (!c) {
      c = {
        call,
        first,
        firstTs: ts,
        wxBy: null,
        packets: 0,
        lastHeard: null,
        pos: null,
        kind: null,
        owner: null,
        posSymbol: null,
        heardSymbol: null,
        comment: null,
        device: null,
        messaging: null,
        status: null,
        by: null,
        wx: null,
        defs: null,
      };
      this.changes.set(key, c);
    }
    return c;
  }

  private counted(c: Changes, ts: number, by: HeardBy): void {
    c.packets++;
    if (c.lastHeard === null || ts > c.lastHeard) c.lastHeard = ts;
    c.by = by;
  }

  /** A position packet of `call` (a station, or an object/item by name). */
  position(call: string, ts: number, p: PositionFields, by: HeardBy): void {
    const c = this.of(call, ts, "position");
    this.counted(c, ts, by);
    if (!c.pos || ts >= c.pos.ts) c.pos = { ...p, ts };
    c.kind = p.kind;
    c.owner = p.owner;
    if (p.symbol !== null) c.posSymbol = p.symbol;
    if (p.comment !== null) c.comment = p.comment;
    if (p.device !== null) c.device = p.device;
    if (p.messaging !== null) c.messaging = p.messaging;
  }

  /** Any other packet from `call`. */
  heard(call: string, ts: number, by: HeardBy, status: string | null, device: string | null, symbol: string | null): void {
    const c = this.of(call, ts, "heard");
    this.counted(c, ts, by);
    if (status !== null) c.status = status;
    if (device !== null) c.device = device;
    if (c.heardSymbol === null) c.heardSymbol = symbol;
  }

  /** A weather report (JSON of the Weather object) heard or pushed at `ts`. */
  wx(call: string, ts: number, json: string, by: HeardBy): void {
    const c = this.of(call, ts, "wx");
    if (!c.wx || ts >= c.wx.ts) c.wx = { json, ts };
    if (c.lastHeard === null || ts > c.lastHeard) c.lastHeard = ts;
    if (c.first === "wx" && c.wxBy === null) c.wxBy = by;
  }

  /** The station's telemetry definitions (JSON), as this batch leaves them. */
  definitions(call: string): string | null {
    const c = this.changes.get(foldKey(call));
    if (c?.defs) return c.defs;
    return (this.st.defs.get(call) as { defs: string | null } | null)?.defs ?? null;
  }

  setDefinitions(call: string, ts: number, json: string): void {
    this.of(call, ts, "defs").defs = json;
  }

  /** Writes every station touched since the last flush. */
  flush(): void {
    for (const c of this.changes.values()) {
      const mask = (c.pos ? P : 0) | (c.packets > 0 ? H : 0) | (c.wx ? W : 0) | (c.defs !== null ? D : 0);
      let st = this.st.update.get(mask);
      if (!st) this.st.update.set(mask, (st = this.db.prepare(updateSql(mask))));
      const p = c.pos;
      const by = c.by;
      const args = [
        c.call,
        c.packets,
        c.lastHeard,
        p?.ts ?? null,
        c.kind,
        c.owner,
        p?.alive ?? null,
        p?.lat ?? null,
        p?.lon ?? null,
        p?.ambiguity ?? null,
        p?.course ?? null,
        p?.speedKmh ?? null,
        p?.altM ?? null,
        c.posSymbol,
        c.heardSymbol,
        c.comment,
        c.device,
        c.messaging,
        c.status,
        by?.source ?? null,
        by?.igate ?? null,
        by?.path ?? null,
        c.wx?.json ?? null,
        c.wx?.ts ?? null,
        c.defs,
      ];
      // A variant uses parameters ?1..?N; SQLite wants exactly N values.
      if (st.run(...args.slice(0, st.paramsCount)).changes > 0) continue;
      // No row yet: the batch's packets applied to an empty one, which the first of them created.
      const src = by ?? c.wxBy;
      this.st.insert.run(
        c.call,
        c.kind ?? "station",
        c.owner,
        p?.alive ?? 1,
        p?.lat ?? null,
        p?.lon ?? null,
        p?.ambiguity ?? null,
        c.posSymbol ?? c.heardSymbol,
        p?.course ?? null,
        p?.speedKmh ?? null,
        p?.altM ?? null,
        c.comment,
        c.status,
        c.device,
        c.messaging,
        c.firstTs,
        Math.max(c.firstTs, c.lastHeard ?? c.firstTs),
        p?.ts ?? null,
        c.packets,
        src?.source ?? null,
        src?.igate ?? null,
        src?.path ?? null,
        c.wx?.json ?? null,
        c.wx?.ts ?? null,
        c.defs,
      );
    }
    this.changes.clear();
  }
}
