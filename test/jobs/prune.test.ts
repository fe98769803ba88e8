import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { pruneAll, RETENTION } from "../../src/jobs/prune.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let g: Running;
beforeAll(async () => {
  g = await startInProcess({
    PACKETS_TTL_HOURS: "6",
    TOMBSTONE_TTL_DAYS: "10",
    MESSAGES_TTL_DAYS: "3",
    SENSOR_TTL_DAYS: "4",
    PORT_COUNTERS_TTL_DAYS: "2",
    MHEARD_TTL_DAYS: "5",
    RELAY_QUEUE_TTL_HOURS: "12",
  });
});
afterAll(() => g.stop());

/** Inserts one row `ageMs` old into the table of a retention rule (keyed by rule name). */
function insertAged(table: string, now: number, ageMs: number, tag: string) {
  const ts = now - ageMs;
  const db = g.gw.db;
  switch (table) {
    case "bbs_bulletins":
    case "bbs_mail":
      return db
        .query(
          "INSERT INTO bbs_messages (type, bid, from_call, to_call, subject, body, size, origin, delivery, created_at) VALUES (?, ?, ?, 'ALL', 's', 'b', 1, 'local', 'local', ?)",
        )
        .run(table === "bbs_mail" ? "P" : "B", `${table}${tag}`, tag, ts);
    case "bbs_bids":
      return db.query("INSERT INTO bbs_bids (bid, seen_at) VALUES (?, ?)").run(tag, ts);
    case "positions":
      return db.query("INSERT INTO positions (call, ts, lat, lon, source) VALUES (?, ?, 1, 2, 'aprsis')").run(tag, ts);
    case "packets":
      return db.query("INSERT INTO packets (ts, src, raw, source) VALUES (?, ?, x'41', 'rf')").run(ts, tag);
    case "aprs_messages":
      return db.query("INSERT INTO aprs_messages (ts, src, addressee, kind, text) VALUES (?, ?, 'X', 'message', 'hi')").run(ts, tag);
    case "sensor_readings":
      return db.query("INSERT INTO sensor_readings (call, ts, kind, data) VALUES (?, ?, 'wx', '{}')").run(tag, ts);
    case "port_counters":
      return db.query("INSERT INTO port_counters (port, ts) VALUES (?, ?)").run(tag, ts);
    case "mheard":
      return db.query("INSERT INTO mheard (port, call, first_ts, last_ts) VALUES ('p0', ?, ?, ?)").run(tag, ts, ts);
    case "tombstones":
      return db.query("INSERT INTO tombstones (gid, origin, v, at, received_at) VALUES (?, 'o', 1, 0, ?)").run(tag, ts);
    case "sessions":
      db.query("INSERT OR IGNORE INTO users (id, created_at) VALUES (1, 0)").run();
      return db.query("INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES (?, 1, 0, ?)").run(tag, ts);
    case "used_assertions":
      return db.query("INSERT INTO used_assertions (sig, expires_at) VALUES (?, ?)").run(tag, ts);
    case "webauthn_challenges":
      return db.query("INSERT INTO webauthn_challenges (challenge, kind, expires_at) VALUES (?, 'login', ?)").run(tag, ts);
    case "email_tokens":
      return db.query("INSERT INTO email_tokens (email, token_hash, code_hash, created_at, expires_at) VALUES (?, ?, '', 0, ?)").run(tag, tag, ts);
    case "published_tombstones":
      return db.query("INSERT INTO fed_feed (type, gid, v, at, payload, created_at) VALUES (5, ?, 1, 0, x'a0', ?)").run(tag, ts);
    case "callsign_challenges":
      db.query("INSERT OR IGNORE INTO users (id, created_at) VALUES (1, 0)").run();
      return db.query("INSERT INTO callsign_challenges (user_id, call, code, created_at, expires_at) VALUES (1, ?, 'X', 0, ?)").run(tag, ts);
    case "stations":
      return db.query("INSERT INTO stations (call, first_heard, last_heard) VALUES (?, ?, ?)").run(tag, ts, ts);
    case "aprs_outbox":
      return db.query("INSERT INTO aprs_outbox (kind, src, line, next_at, created_at) VALUES ('status', ?, 'x', ?, ?)").run(tag, ts, ts);
    case "emergencies":
      return db.query("INSERT INTO emergencies (call, ts, reason) VALUES (?, ?, 'symbol')").run(tag, ts);
    case "fed_quarantine":
      return db.query("INSERT INTO fed_quarantine (origin, reason, frames, first_at, last_at) VALUES (?, 'unknown', 1, ?, ?)").run(tag, ts, ts);
    case "box_commands":
      return db.query("INSERT INTO box_commands (box, kind, via, created_at) VALUES (?, 'ping', 'ingest', ?)").run(tag, ts);
    case "netrom_routes":
      db.query("INSERT INTO netrom_routes (dest, neighbour, quality, source, updated_at) VALUES (?, 'N0MAN', 100, 'manual', ?)").run(tag + "M", ts - 100 * DAY);
      return db.query("INSERT INTO netrom_routes (dest, neighbour, quality, source, updated_at) VALUES (?, 'N0NB', 100, 'heard', ?)").run(tag, ts);
    case "watch_digests":
      db.query("INSERT OR IGNORE INTO users (id, created_at) VALUES (1, 0)").run();
      return db
        .query("INSERT INTO watch_digests (user_id, channel, log_ids, state, created_at) VALUES (1, 'email', ?, 'sent', ?)")
        .run(JSON.stringify([tag]), ts);
    case "relay_queue":
      return db.query("INSERT INTO relay_queue (instance, state, query, created_at) VALUES (?, 'queued', '{}', ?)").run(tag, ts);
  }
  throw new Error(`no fixture for ${table}`);
}

const ttls: Record<string, number> = {
  positions: 7 * DAY,
  packets: 6 * HOUR,
  aprs_messages: 3 * DAY,
  sensor_readings: 4 * DAY,
  port_counters: 2 * DAY,
  mheard: 5 * DAY,
  tombstones: 10 * DAY,
  published_tombstones: 10 * DAY,
  fed_quarantine: 30 * DAY,
  relay_queue: 12 * HOUR,
  stations: 7 * DAY,
  aprs_outbox: 7 * DAY,
  emergencies: 7 * DAY,
  box_commands: 30 * DAY,
  netrom_routes: 6 * HOUR,
  bbs_bulletins: 30 * DAY,
  bbs_mail: 180 * DAY,
  bbs_bids: 365 * DAY,
  watch_digests: 30 * DAY,
  // rows that carry their own expiry: kept until it passes
  sessions: 0,
  used_assertions: 0,
  webauthn_challenges: 0,
  email_tokens: 0,
  callsign_challenges: 0,
};

describe("pruning", () => {
  test("each table keeps rows younger than its TTL and loses older ones", async () => {
    const now = g.gw.clock.now();
    expect(Object.keys(ttls).sort()).toEqual(RETENTION.map((r) => r.name).sort());
    for (const [table, ttl] of Object.entries(ttls)) {
      insertAged(table, now, ttl - HOUR / 2, "KEEP"); // for expiry rows: expires in half an hour
      insertAged(table, now, ttl + HOUR / 2, "GONE");
    }
    const report = (await g.gw.scheduler.runNow("prune")) as Record<string, { deleted: number }>;
    for (const rule of RETENTION) {
      expect(report[rule.name]!.deleted).toBe(1);
      const tagCol =
        {
          packets: "src",
          aprs_messages: "src",
          port_counters: "port",
          tombstones: "gid",
          fed_feed: "gid",
          fed_quarantine: "origin",
          relay_queue: "instance",
          sessions: "id_hash",
          used_assertions: "sig",
          webauthn_challenges: "challenge",
          email_tokens: "email",
          aprs_outbox: "src",
          box_commands: "box",
          netrom_routes: "dest",
          bbs_messages: "from_call",
          bbs_bids: "bid",
          watch_digests: "json_extract(log_ids, '$[0]')",
        }[rule.table] ?? "call";
      const where = { bbs_bulletins: "WHERE type = 'B'", bbs_mail: "WHERE type = 'P'" }[rule.name] ?? "";
      const tags = (g.gw.db.query(`SELECT ${tagCol} AS tag FROM ${rule.table} ${where}`).all() as Array<{ tag: string }>).map((r) => r.tag).sort();
      // a route the sysop entered is never aged out
      expect({ table: rule.table, tags }).toEqual({ table: rule.table, tags: rule.table === "netrom_routes" ? ["GONEM", "KEEP", "KEEPM"] : ["KEEP"] });
    }
  });

  test("a heard callsign challenge (how the callsign was verified) is never pruned", async () => {
    const db = g.gw.db;
    const now = g.gw.clock.now();
    db.query("INSERT OR IGNORE INTO users (id, created_at) VALUES (1, 0)").run();
    db.query("INSERT INTO callsign_challenges (user_id, call, code, created_at, expires_at, heard_at) VALUES (1, 'N0HRD', 'X', 0, ?, ?)").run(
      now - 30 * DAY,
      now - 30 * DAY,
    );
    await pruneAll(db, g.gw.config, now);
    expect(db.query("SELECT call FROM callsign_challenges WHERE call = 'N0HRD'").all()).toEqual([{ call: "N0HRD" }]);
  });

  test("a position that corroborates a find is never pruned", async () => {
    const now = g.gw.clock.now();
    g.gw.db.query("INSERT INTO positions (call, ts, lat, lon, source, find_id) VALUES ('N0FIND', ?, 1, 2, 'rf', 42)").run(now - 400 * DAY);
    g.gw.db.query("INSERT INTO positions (call, ts, lat, lon, source) VALUES ('N0OLD', ?, 1, 2, 'rf')").run(now - 400 * DAY);
    await pruneAll(g.gw.db, g.gw.config, now);
    const calls = (g.gw.db.query("SELECT call FROM positions WHERE call LIKE 'N0%'").all() as Array<{ call: string }>).map((r) => r.call);
    expect(calls).toEqual(["N0FIND"]);
  });

  test("large tables are pruned in bounded batches, yielding to other work between them", async () => {
    const db = g.gw.db;
    const now = g.gw.clock.now();
    const ins = db.query("INSERT INTO packets (ts, src, raw, source) VALUES (?, 'BULK', x'41', 'rf')");
    db.transaction(() => {
      for (let i = 0; i < 20_000; i++) ins.run(now - 2 * DAY - i);
    })();
    // A request-like task queued while pruning runs must get its turn before pruning finishes.
    let seenMidway: number | null = null;
    const probe = new Promise<void>((resolve) =>
      setImmediate(() => {
        seenMidway = (db.query("SELECT count(*) AS n FROM packets WHERE src = 'BULK'").get() as { n: number }).n;
        resolve();
      }),
    );
    const report = await pruneAll(db, g.gw.config, now, { batchSize: 1000 });
    await probe;
    expect(report.packets!.deleted).toBe(20_000);
    expect(report.packets!.batches).toBe(20);
    expect(seenMidway).not.toBeNull();
    expect(seenMidway!).toBeGreaterThan(0);
    expect(seenMidway!).toBeLessThan(20_000);
    expect(db.query("SELECT count(*) AS n FROM packets WHERE src = 'BULK'").get()).toEqual({ n: 0 });
  });

  test("each batch passes the write gate: while it holds (a RESTART checkpoint, a WAL over its cap) the prune waits", async () => {
    const db = g.gw.db;
    const gate = g.gw.writeGate;
    const now = g.gw.clock.now();
    const ins = db.query("INSERT INTO packets (ts, src, raw, source) VALUES (?, 'GATED', x'41', 'rf')");
    db.transaction(() => {
      for (let i = 0; i < 5000; i++) ins.run(now - 2 * DAY - i);
    })();
    const left = () => (db.query("SELECT count(*) AS n FROM packets WHERE src = 'GATED'").get() as { n: number }).n;
    // the gate closes between two batches, as the checkpointer closes it
    let atHold = -1;
    setImmediate(() => {
      gate.hold();
      atHold = left();
    });
    const pruning = pruneAll(db, g.gw.config, now, { batchSize: 500, gate });
    await Bun.sleep(200);
    expect(atHold).toBeGreaterThan(0);
    expect(atHold).toBeLessThan(5000);
    expect(left()).toBe(atHold);
    gate.release();
    await pruning;
    expect(left()).toBe(0);
  });
});
