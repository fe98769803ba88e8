/**
 * GET /api/spots: off (404 spots_disabled) unless SPOTS_ENABLED; on, the
 * stations heard lately and the finds logged, newest first, by 6-character
 * locator only; since and limit; bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";

const INGEST = "ingest-secret-0123456789";
let on: Running;
let off: Running;
const ingest = (r: Running, packets: string[], heardAt: number) => r.post("/ingest", { heardAt, packets }, { headers: { "x-ingest-secret": INGEST } });

beforeAll(async () => {
  on = await startInProcess({ INGEST_SECRET: INGEST, SPOTS_ENABLED: "true" });
  off = await startInProcess({ INGEST_SECRET: INGEST });
  const now = Date.now();
  for (const r of [on, off]) {
    await ingest(r, ["N0SPOT-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>mobile"], now - 10 * 60_000);
    await ingest(r, ["N0EARLY>APRS:!4100.00N/07300.00W-home"], now - 2 * 3_600_000);
    await ingest(
      r,
      [";TOWER    *092345z4230.00N/07115.00Wr an object is not a spot"].map((l) => `N0OBJ>APRS:${l}`),
      now - 60_000,
    );
    const owner = signedInUser(r.gw, "N0OWN", { verified: true });
    const finder = signedInUser(r.gw, "N0FND", { verified: true });
    const cache = await (
      await r.post(
        "/api/caches",
        { name: "Spot Box", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 42.5, lon: -71.5 },
        { headers: { cookie: owner.cookie } },
      )
    ).json();
    await r.post(`/api/caches/${cache.id}/logs`, { kind: "find" }, { headers: { cookie: finder.cookie } });
    await r.post(`/api/caches/${cache.id}/logs`, { kind: "note", text: "notes are not spots" }, { headers: { cookie: finder.cookie } });
  }
});
afterAll(async () => {
  await on.stop();
  await off.stop();
});

describe("GET /api/spots", () => {
  test("off unless SPOTS_ENABLED: 404 spots_disabled, and /api/config says so", async () => {
    const r = await off.get("/api/spots");
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: "spots_disabled", message: expect.stringContaining("SPOTS_ENABLED") });
    expect((await (await off.get("/api/config")).json()).spotsEnabled).toBe(false);
    expect((await (await on.get("/api/config")).json()).spotsEnabled).toBe(true);
  });

  test("on: the last hour's stations and finds, newest first, with a locator and never an exact position", async () => {
    const r = await on.get("/api/spots");
    expect(r.status).toBe(200);
    const { spots, since } = await r.json();
    expect(since).toBeGreaterThan(Date.now() - 3_600_000 - 60_000);
    expect(spots).toEqual([
      {
        kind: "find",
        call: "N0FND",
        ts: expect.any(Number),
        grid: "FN42gm",
        cache: { id: expect.any(Number), gid: expect.stringMatching(/:cache:/), name: "Spot Box", type: "traditional" },
      },
      { kind: "station", call: "N0SPOT-9", ts: expect.any(Number), grid: "FN42ho", source: "rf", igate: "W1AW-10" },
    ]);
    expect(JSON.stringify(spots)).not.toContain("lat");
  });

  test("since reaches back (at most a day); limit; bad values are a 400", async () => {
    const all = (await (await on.get(`/api/spots?since=${Date.now() - 3 * 3_600_000}`)).json()).spots;
    expect(all.map((s: { call: string }) => s.call)).toEqual(["N0FND", "N0SPOT-9", "N0EARLY"]);
    const clamped = await (await on.get(`/api/spots?since=0`)).json();
    expect(clamped.since).toBeGreaterThan(Date.now() - 24 * 3_600_000 - 60_000);
    expect((await (await on.get("/api/spots?limit=1")).json()).spots.length).toBe(1);
    for (const bad of ["limit=0", "limit=501", "limit=x", "since=yesterday"]) expect((await on.get(`/api/spots?${bad}`)).status).toBe(400);
    // Not a whole number at all: the route's schema names the parameter.
    expect(await (await on.get("/api/spots?since=yesterday")).json()).toMatchObject({ error: "invalid", field: "query.since" });
  });
});
