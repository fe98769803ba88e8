/**
 * What one visitor can throw at the HTTP surface: a flood of writes from one
 * session, and bodies nested deep enough to overflow a recursive walker.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";

let g: Running;
beforeAll(async () => {
  g = await startInProcess({ RATE_LIMIT_WRITES_PER_MINUTE: "10" });
});
afterAll(() => g.stop());

const put = (cookie: string, body: string) => g.get("/api/prefs", { method: "PUT", headers: { cookie, "content-type": "application/json" }, body });

describe("session writes are rate-limited per account", () => {
  test("PUT /api/prefs: the eleventh write in a minute is 429 and changes nothing; reads and other accounts go on", async () => {
    const u = signedInUser(g.gw, "N0FLD");
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push((await put(u.cookie, JSON.stringify({ units: i % 2 ? "imperial" : "metric", n: i }))).status);
    expect(codes).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
    const last = await put(u.cookie, JSON.stringify({ units: "nautical" }));
    expect(last.status).toBe(429);
    expect(last.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await last.json()).error).toBe("rate_limited");
    // Reads still work and show the tenth write, not the refused ones.
    const read = await g.get("/api/prefs", { headers: { cookie: u.cookie } });
    expect(read.status).toBe(200);
    expect((await read.json()).prefs).toMatchObject({ units: "imperial", n: 9 });
    // Another route's writes share the account's bucket.
    expect((await g.post("/api/views", { name: "Home", lat: 1, lon: 2, zoom: 3 }, { headers: { cookie: u.cookie } })).status).toBe(429);
    // Another account is not held up by this one.
    const other = signedInUser(g.gw, "N0OK");
    expect((await put(other.cookie, JSON.stringify({ units: "metric" }))).status).toBe(200);
  });
});

describe("bad JSON of any depth is a 400", () => {
  test("100,000 levels of nesting under the size cap answer 400 bad_json, on public and session routes; 64 levels parse", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    for (const [path, init] of [
      ["/api/decode", {}],
      ["/auth/email/start", {}],
    ] as const) {
      const r = await g.post(path, deep, init);
      expect(r.status).toBe(400);
      expect((await r.json()).error).toBe("bad_json");
    }
    const u = signedInUser(g.gw, "N0DEEP");
    const objects = '{"a":'.repeat(50_000) + "1" + "}".repeat(50_000);
    const r = await put(u.cookie, objects);
    expect(r.status).toBe(400);
    expect((await r.json()).message).toContain("deeper than 64");
    // Brackets inside strings do not count, and 64 real levels are fine: the route answers about the content.
    const fine = await put(u.cookie, JSON.stringify({ note: "[".repeat(1000), nest: JSON.parse("[".repeat(60) + "]".repeat(60)) }));
    expect(fine.status).not.toBe(500);
    expect((await fine.json()).error).not.toBe("bad_json");
    expect((await g.get("/health")).status).toBe(200);
  });
});
