/**
 * `bun run bench radio-play`: playing from a radio (src/radio-play/).
 *  1. Commands answered per second: APRS messages to RADIO_CALL (HELP, NEAR,
 *     INFO, HINT, LOGS, FOUND) from many players through the service as the
 *     ingest pipeline hands them over (the `aprsMessage` listener: dedupe,
 *     rate, answer over the game's services, split, encode, ack), over 2,000
 *     caches, each answer acked by the player's radio; the radio's sender a
 *     stub that always has room. Yardstick: decoding the same lines (APRS).
 *  2. Airtime of cache objects on a busy channel: an hour of virtual time,
 *     one position heard per second from 200 stations moving over the caches'
 *     area, through the real ingest pipeline; the objects go through a token
 *     bucket of RADIO_TX_PER_MINUTE. Airtime per frame at 1200 baud: TXDELAY
 *     300 ms + the AX.25 frame's bytes (flags, FCS, ~5% bit stuffing). The
 *     channel's own positions, by the same measure, are the reference.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { decode } from "../src/lib/aprs/index.ts";
import { generateKeyPair } from "../src/lib/fed/keys.ts";
import { ingestLines } from "../src/stations/ingest.ts";
import { TokenBucket } from "../src/radio-node/tx.ts";
import { onMessage, playStats } from "../src/radio-play/service.ts";
import { setSender } from "../src/radio-play/senders.ts";
import { encodeFrame, parseTnc2 } from "../radio/index.ts";
import { table } from "./lib/stats.ts";
import { aprsPos } from "../test/helpers/aprs.ts";

const CALL = "N0GW-10";
const CENTER = [48.1, 11.5] as const;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

/** A valid callsign for player `i`: N0PAA-7, N1PAA-7, ... */
const player = (i: number, tag = "P") => {
  const k = (i / 10) | 0;
  return `N${i % 10}${tag}${String.fromCharCode(65 + (((k / 26) % 26) | 0))}${String.fromCharCode(65 + (k % 26))}`;
};

/** Seconds on a 1200 baud channel for one frame (TXDELAY 300 ms, 2 flags, ~5% stuffing). */
function airtime(line: string): number {
  const r = parseTnc2(line);
  if (!r.ok) return 0;
  const bytes = encodeFrame(r.value).length + 2 + 2; // + FCS + flags
  return 0.3 + (bytes * 8 * 1.05) / 1200;
}

async function gateway(env: Record<string, string>, clock: { now(): number }) {
  const dir = mkdtempSync(join(tmpdir(), "bench-play-"));
  const gw = createGateway({
    config: configFor(dir, {
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "error",
      KISS_PORTS: "off",
      INSTANCE: "bench",
      FED_PRIVATE_KEY: generateKeyPair().privateKey,
      RADIO_CALL: CALL,
      RADIO_PATH: "WIDE1-1",
      ...env,
    }),
    log: createLogger("error"),
    clock,
  });
  const now = clock.now();
  const rnd = rng(7);
  const ins = gw.db.query(
    `INSERT INTO caches (owner_call, name, type, size, difficulty, terrain, lat, lon, status, hint, description, placed_at, created_at, updated_at, search)
     VALUES ('N0OWN', ?, 'traditional', 'small', ?, ?, ?, ?, 'active', 'under the stone', 'A box.', ?, ?, ?, ?)`,
  );
  gw.db.transaction(() => {
    for (let i = 0; i < 2000; i++) {
      const name = `Cache ${i}`;
      ins.run(
        name,
        1 + (i % 9) / 2,
        1 + ((i >> 3) % 9) / 2,
        CENTER[0] + (rnd() - 0.5) * 0.5,
        CENTER[1] + (rnd() - 0.5) * 0.7,
        now,
        now,
        now,
        name.toLowerCase(),
      );
    }
  })();
  gw.db.query("INSERT INTO users (id, created_at) VALUES (1, ?)").run(now);
  gw.db.query("INSERT INTO callsigns (user_id, call, active, verified_at, created_at) VALUES (1, 'N0GW', 1, ?, ?)").run(now, now);
  return { gw, dir };
}

async function commands() {
  let t = Date.now();
  const clock = { now: () => t };
  const { gw, dir } = await gateway({}, clock);
  const rnd = rng(3);
  const PLAYERS = 2000;
  // every player was heard somewhere in the area
  const positions = Array.from(
    { length: PLAYERS },
    (_, i) => `${player(i)}-7>APK005,WIDE1-1:${aprsPos(CENTER[0] + (rnd() - 0.5) * 0.4, CENTER[1] + (rnd() - 0.5) * 0.6, ">")}`,
  );
  ingestLines(gw, positions, { source: "rf" });
  const sent: string[] = [];
  setSender(gw, "rf", (line) => (sent.push(line), "sent"));
  const code = (id: number) => "SV" + id.toString(36).toUpperCase().padStart(4, "0");
  const KINDS: Record<string, (i: number) => string> = {
    HELP: () => "HELP",
    NEAR: () => "NEAR 3",
    INFO: (i) => `INFO ${code(1 + (i % 2000))}`,
    HINT: (i) => `HINT ${code(1 + (i % 2000))}`,
    LOGS: (i) => `LOGS ${code(1 + (i % 2000))}`,
    FOUND: (i) => `FOUND ${code(1 + (i % 2000))} TFTC`,
  };
  const rows: Array<Record<string, string | number>> = [];
  let seq = 0;
  for (const [kind, text] of Object.entries(KINDS)) {
    const lines: string[] = [];
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < 1000 && n < 20_000) {
      const i = seq++;
      const src = `${player(i % PLAYERS)}-7`;
      t += 400; // each player sends one command in 800 s: none is rate-limited
      const msg = text(i);
      lines.push(`${src}>APK005,WIDE1-1::${CALL.padEnd(9, " ")}:${msg}{${(i % 99_999) + 1}`);
      const from = sent.length;
      onMessage(gw, { src, addressee: CALL, kind: "message", text: msg, msgId: String((i % 99_999) + 1), ts: t, source: "rf", proof: "radio" });
      // the player's radio acks each answer
      for (const l of sent.slice(from)) {
        const id = /\{(R\w{4})$/.exec(l)?.[1];
        if (id) onMessage(gw, { src, addressee: CALL, kind: "ack", text: "", msgId: id, ts: t, source: "rf", proof: "radio" });
      }
      n++;
    }
    const perS = Math.round(n / ((performance.now() - t0) / 1000));
    const d0 = performance.now();
    let dn = 0;
    while (performance.now() - d0 < 300) for (const l of lines.slice(0, 1000)) decode(l), dn++;
    const decodeRate = Math.round(dn / ((performance.now() - d0) / 1000));
    rows.push({ command: kind, "answered/s": perS, "decode/s (yardstick)": decodeRate, ratio: (perS / decodeRate).toFixed(4) });
  }
  const s = playStats(gw);
  console.log("\nradio-play: commands answered per second (2,000 caches, 2,000 players, answers acked)");
  console.log(table(rows));
  console.log(`  ${s.commands} commands, ${s.replies} answer messages, ${s.acks} acks, ${s.logged} logged, ${s.limited} rate-limited`);
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
}

async function objects(perMinute: number) {
  let t = Date.now();
  const clock = { now: () => t };
  const { gw, dir } = await gateway({ CACHE_OBJECTS: "on", CACHE_OBJECTS_RADIUS_KM: "5", RADIO_TX_PER_MINUTE: String(perMinute) }, clock);
  const bucket = new TokenBucket(perMinute, t);
  let objects = 0;
  let kills = 0;
  let objAir = 0;
  let held = 0;
  setSender(gw, "rf", (line) => {
    if (!bucket.take(t)) return (held++, "rate-limited");
    if (line.includes("_", line.indexOf(";") + 10) && line[line.indexOf(";") + 10] === "_") kills++;
    else objects++;
    objAir += airtime(line);
    return "sent";
  });
  const rnd = rng(11);
  const stations = Array.from({ length: 200 }, (_, i) => ({
    call: `${player(i, "S")}-9`,
    lat: CENTER[0] + (rnd() - 0.5) * 0.5,
    lon: CENTER[1] + (rnd() - 0.5) * 0.7,
  }));
  let channelAir = 0;
  const start = t;
  for (let s = 0; s < 3600; s++) {
    t = start + s * 1000;
    const st = stations[s % stations.length]!;
    // they move: about 15 m/s
    st.lat += (rnd() - 0.5) * 0.004;
    st.lon += (rnd() - 0.5) * 0.006;
    const line = `${st.call}>APK005,WIDE1-1,WIDE2-1:${aprsPos(st.lat, st.lon, ">")}moving`;
    channelAir += airtime(line);
    ingestLines(gw, [line], { source: "rf", heardAt: t });
    // a cache archived now and then: its object is killed
    if (s % 300 === 150) gw.db.query("UPDATE caches SET status = 'archived' WHERE id = (SELECT min(id) FROM caches WHERE status = 'active')").run();
  }
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
  return {
    RADIO_TX_PER_MINUTE: perMinute,
    "objects/h": objects,
    "kills/h": kills,
    "held (budget)": held,
    "object airtime s/h": objAir.toFixed(0),
    "share of the hour": `${((objAir / 3600) * 100).toFixed(1)}%`,
    "channel positions s/h (reference)": channelAir.toFixed(0),
    "objects vs channel": `${((objAir / channelAir) * 100).toFixed(1)}%`,
  };
}

export async function run() {
  await commands();
  const rows = [await objects(6), await objects(20)];
  console.log("\nradio-play: airtime of cache objects, an hour of a busy channel (1 position/s from 200 stations over 2,000 caches, radius 5 km)");
  console.log(table(rows));
}
