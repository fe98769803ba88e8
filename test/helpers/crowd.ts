/**
 * A crowded map for the map tests and `bun run bench map`: thousands of
 * stations heard through the real ingest (APRS position packets with a mix of
 * symbols, overlays included) and thousands of caches through the real
 * catalog import, clumped around a few towns in a region like real traffic.
 */
import type { Gateway } from "../../src/hosts/gateway.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { upsertCatalogCache } from "../../src/game/catalog-caches.ts";

/** Symbols seen on a busy map: cars, houses, digis, IGates, weather, people, aircraft, boats... */
export const CROWD_SYMBOLS = [
  "/>",
  "/-",
  "/[",
  "/b",
  "/k",
  "/_",
  "/#",
  "I&",
  "/O",
  "/'",
  "/Y",
  "/$",
  "/;",
  "/v",
  "/j",
  "/u",
  "/s",
  "/^",
  "/X",
  "/r",
  "S#",
  "\\>",
  "/y",
  "/a",
  "/<",
  "\\-",
  "/%",
  "\\Q",
];

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

/** A callsign-like name for the i-th station: two letters, a digit, three letters, an SSID. */
export function crowdCall(i: number): string {
  const L = (k: number) => String.fromCharCode(65 + (k % 26));
  return `${L(i)}${L(Math.floor(i / 26))}${Math.floor(i / 676) % 10}${L(Math.floor(i / 6760))}${L(i * 7)}${L(i * 13)}-${(i % 15) + 1}`;
}

/** A coordinate as APRS writes it: degrees and minutes to two decimals, then the hemisphere. */
export const ddm = (v: number, deg: number, pos: string, neg: string) => {
  const hundredths = Math.round(Math.abs(v) * 6000);
  const d = Math.floor(hundredths / 6000);
  const m = (hundredths % 6000) / 100;
  return `${String(d).padStart(deg, "0")}${m.toFixed(2).padStart(5, "0")}${v >= 0 ? pos : neg}`;
};

export interface Region {
  lat: number;
  lon: number;
  /** half height and half width of the region, degrees */
  dLat: number;
  dLon: number;
}

/** Points in the region: most around a handful of towns, the rest spread out. */
export function crowdPoints(n: number, r: Region, seed: number): Array<{ lat: number; lon: number }> {
  const rnd = rng(seed);
  const towns = Array.from({ length: 8 }, () => ({ lat: r.lat + (rnd() - 0.5) * 1.6 * r.dLat, lon: r.lon + (rnd() - 0.5) * 1.6 * r.dLon }));
  return Array.from({ length: n }, (_, i) => {
    if (i % 3 === 2) return { lat: r.lat + (rnd() - 0.5) * 2 * r.dLat, lon: r.lon + (rnd() - 0.5) * 2 * r.dLon };
    const t = towns[i % towns.length]!;
    // roughly normal around the town
    const g = () => (rnd() + rnd() + rnd() - 1.5) / 1.5;
    return {
      lat: Math.max(r.lat - r.dLat, Math.min(r.lat + r.dLat, t.lat + g() * r.dLat * 0.15)),
      lon: Math.max(r.lon - r.dLon, Math.min(r.lon + r.dLon, t.lon + g() * r.dLon * 0.15)),
    };
  });
}

/** Ingests `n` stations, each one position packet, through the ingest (as APRS-IS). */
export function ingestCrowd(gw: Gateway, n: number, r: Region, opts: { seed?: number; heardAt?: number } = {}): string[] {
  const at = opts.heardAt ?? Date.now();
  const calls: string[] = [];
  const lines = crowdPoints(n, r, opts.seed ?? 7).map((p, i) => {
    const call = crowdCall(i);
    calls.push(call);
    const sym = CROWD_SYMBOLS[i % CROWD_SYMBOLS.length]!;
    return { line: `${call}>APRS,TCPIP*,qAC,T2TEST:!${ddm(p.lat, 2, "N", "S")}${sym[0]}${ddm(p.lon, 3, "E", "W")}${sym[1]}crowd ${i}`, heardAt: at - i };
  });
  for (let k = 0; k < lines.length; k += 2000) {
    const rep = ingestLines(gw, lines.slice(k, k + 2000), { source: "aprsis" });
    if (rep.positions !== Math.min(2000, lines.length - k)) throw new Error(`crowd ingest stored ${rep.positions} positions: ${JSON.stringify(rep.errors)}`);
  }
  return calls;
}

/** Imports `n` caches into the catalog, as a GPX import does. */
export function importCrowdCaches(gw: Gateway, n: number, r: Region, opts: { seed?: number } = {}): void {
  const types = ["traditional", "multi", "mystery", "letterbox", "virtual", "event", "earth", "webcam"];
  const pts = crowdPoints(n, r, opts.seed ?? 11);
  gw.db.transaction(() => {
    pts.forEach((p, i) =>
      upsertCatalogCache(gw, "catalog", null, {
        code: `GCX${i.toString(36).toUpperCase()}`,
        name: `Crowd cache ${i}`,
        type: types[i % types.length]!,
        size: "small",
        difficulty: 1.5,
        terrain: 2,
        lat: Math.round(p.lat * 1e5) / 1e5,
        lon: Math.round(p.lon * 1e5) / 1e5,
        status: "active",
        hint: null,
        description: "",
        placedAt: null,
        placedBy: "N0CROWD",
      }),
    );
  })();
}
