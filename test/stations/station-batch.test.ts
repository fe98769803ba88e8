/**
 * The ingest pipeline writes each station once per batch. Applying a batch at
 * once must leave exactly the rows that applying its packets one at a time
 * leaves: random traffic from the corpus (positions, objects, weather,
 * telemetry definitions, statuses, messages), a few stations heard again and
 * again, times out of order, several IGates.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ingestLines } from "../../src/stations/ingest.ts";

const corpus = readFileSync(join(import.meta.dir, "../aprs/corpus.txt"), "latin1")
  .split("\n")
  .filter((l) => l && !l.startsWith("#"))
  .map((l) => l.replace(/<0x([0-9a-fA-F]{2})>/g, (_, h) => String.fromCharCode(parseInt(h, 16))));

/** mulberry32: the same traffic every run */
let seed = 7;
function rnd(n: number): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) % n;
}

/** Traffic of `calls` stations; the same station many times in one batch. */
function traffic(n: number, calls: number, t0: number, prefix: string) {
  const out: Array<{ line: string; heardAt: number; igate: string | null }> = [];
  for (let i = 0; i < n; i++) {
    const call = `${prefix}${rnd(calls)}TST-${rnd(3) + 1}`;
    // Some telemetry definitions for another of the stations: they may create its row.
    const defs = ["PARM.Battery,Temp", "UNIT.V,C", "EQNS.0,0.1,0,0,0.5,-20"][rnd(30)];
    const l = defs ? `X>APRS::${`${prefix}${rnd(calls)}TST-${rnd(3) + 1}`.padEnd(9)}:${defs}` : corpus[rnd(corpus.length)]!;
    // Times jump back and forth by minutes: late packets must not move a station back.
    out.push({ line: call + l.slice(l.indexOf(">")), heardAt: t0 + rnd(600) * 1000, igate: rnd(4) === 0 ? null : `W${rnd(3)}IG-10` });
  }
  return out;
}

let batched: Running;
let single: Running;
beforeAll(async () => {
  batched = await startInProcess();
  single = await startInProcess();
});
afterAll(async () => {
  await batched.stop();
  await single.stop();
});

const rows = (r: Running, table: string, order: string) => r.gw.db.query(`SELECT * FROM ${table} ORDER BY ${order}`).all() as Array<Record<string, unknown>>;
const withoutId = (rs: Array<Record<string, unknown>>) => rs.map(({ id: _id, ...rest }) => rest);

describe("station rows written once per batch", () => {
  test("a batch leaves the rows its packets leave one by one", () => {
    const t0 = Date.now() - 3_600_000;
    // Few stations heard often, many heard once or twice (new rows), and again.
    for (const [n, calls, prefix] of [
      [500, 8, "N"],
      [2000, 40, "N"],
      [600, 100, "Q"],
      [300, 2, "N"],
    ] as const) {
      const lines = traffic(n, calls, t0, prefix);
      ingestLines(batched.gw, lines, { source: "aprsis" });
      for (const l of lines) ingestLines(single.gw, [l], { source: "aprsis" });
    }
    const a = withoutId(rows(batched, "stations", "call"));
    const b = withoutId(rows(single, "stations", "call"));
    expect(a.length).toBeGreaterThan(80);
    expect(a.filter((r) => r.wx !== null).length).toBeGreaterThan(5);
    expect(a.filter((r) => r.telemetry_defs !== null).length).toBeGreaterThan(0);
    expect(a.filter((r) => r.kind === "object").length).toBeGreaterThan(0);
    expect(a).toEqual(b);
    // The map index finds the same stations.
    const box = "/api/stations?bbox=-180,-90,180,90&limit=5000";
    expect(withoutId(rows(batched, "positions", "id"))).toEqual(withoutId(rows(single, "positions", "id")));
    return Promise.all([batched.get(box), single.get(box)]).then(async ([x, y]) => expect(await x.json()).toEqual(await y.json()));
  });

  test("callsigns differing only in ASCII case are one station", () => {
    const t = Date.now();
    ingestLines(
      batched.gw,
      [
        { line: "N0CASE>APRS:;CaseObj  *092345z4220.00N/07102.00W>first", heardAt: t },
        { line: "N0CASE>APRS:;CASEOBJ  *092345z4221.00N/07102.00W>second", heardAt: t + 1 },
      ],
      { source: "aprsis" },
    );
    const r = batched.gw.db.query("SELECT call, lat, comment, packets FROM stations WHERE call = 'caseobj'").all();
    expect(r).toEqual([{ call: "CaseObj", lat: 42.35, comment: "second", packets: 2 }]);
  });
});
