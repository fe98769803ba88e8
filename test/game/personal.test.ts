/**
 * A player's own note and corrected coordinates of a cache (PUT
 * /api/caches/:id/personal): only they see them; their map (bbox), the near
 * list and their GPX put the cache at the corrected position, marked with the
 * original beside it, while everyone else sees it where its owner put it;
 * bad input changes nothing; their account export holds them; and the cache
 * page saves them from its form.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { contextFor, launchBrowser, PHONE } from "../helpers/chromium.ts";

let g: Running;
let hider: TestUser;
let solver: TestUser;
let other: TestUser;
let id = 0;
let far = 0;
const BOX = "8.40,47.30,8.60,47.50";
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const put = (u: TestUser | null, body: unknown, cache: number | string = id) =>
  g.get(`/api/caches/${cache}/personal`, {
    method: "PUT",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...(u ? { cookie: u.cookie } : {}) },
  });

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  hider = signedInUser(g.gw, "N0HID", { verified: true });
  solver = signedInUser(g.gw, "N0SOL", { verified: true });
  other = signedInUser(g.gw, "N0OTH", { verified: true });
  const hide = async (name: string, lat: number, lon: number) => {
    const r = await g.post("/api/caches", { name, type: "mystery", size: "small", difficulty: 4, terrain: 2, lat, lon }, as(hider));
    expect(r.status).toBe(201);
    return ((await r.json()) as { id: number }).id;
  };
  // the puzzle's posted coordinates, and another cache 2 km north of them
  id = await hide("The puzzle", 47.4, 8.5);
  far = await hide("Plain box", 47.418, 8.5);
}, 60_000);
afterAll(async () => {
  await g.stop();
});

type MapCache = { id: number; lat: number; lon: number; corrected?: boolean; original?: { lat: number; lon: number }; distanceM?: number };
const inBox = async (u: TestUser | null) => ((await (await g.get(`/api/caches?bbox=${BOX}`, u ? as(u) : {})).json()) as { caches: MapCache[] }).caches;

describe("personal notes and corrected coordinates", () => {
  test("saved by the player; seen by them only; their map, near list and GPX put the cache where they solved it", async () => {
    // the final is 2.2 km north of the posted coordinates, beyond the plain box
    const r = await put(solver, { note: "Final: behind the oak. Took pencil.", corrected: { lat: 47.42, lon: 8.5 } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { personal: unknown }).personal).toMatchObject({
      note: "Final: behind the oak. Took pencil.",
      corrected: { lat: 47.42, lon: 8.5 },
    });
    const mine = (await (await g.get(`/api/caches/${id}`, as(solver))).json()) as { lat: number; personal: unknown };
    expect(mine.personal).toMatchObject({ note: "Final: behind the oak. Took pencil.", corrected: { lat: 47.42, lon: 8.5 } });
    expect(mine.lat).toBe(47.4);
    expect(((await (await g.get(`/api/caches/${id}`, as(other))).json()) as { personal: unknown }).personal).toBeNull();
    expect("personal" in ((await (await g.get(`/api/caches/${id}`)).json()) as object)).toBe(false);

    // the map
    expect((await inBox(solver)).find((c) => c.id === id)).toMatchObject({ lat: 47.42, lon: 8.5, corrected: true, original: { lat: 47.4, lon: 8.5 } });
    expect((await inBox(other)).find((c) => c.id === id)).toMatchObject({ lat: 47.4, lon: 8.5 });
    expect((await inBox(null)).find((c) => c.id === id)?.corrected).toBeUndefined();
    // near the posted coordinates: for the solver the puzzle is now the farther one (2.2 km against 2 km)
    const near = async (u: TestUser) => ((await (await g.get("/api/caches?near=47.4,8.5", as(u))).json()) as { caches: MapCache[] }).caches;
    expect((await near(solver)).map((c) => [c.id, c.distanceM])).toEqual([
      [far, 2002],
      [id, 2224],
    ]);
    expect((await near(other)).map((c) => c.id)).toEqual([id, far]);
    // GPX: the solver's file has the final, anyone else's the posted coordinates
    const gpx = async (u: TestUser | null) => (await g.get(`/api/v1/caches.gpx?bbox=${BOX}`, u ? as(u) : {})).text();
    expect(await gpx(solver)).toContain('<wpt lat="47.42" lon="8.5">');
    expect(await gpx(null)).not.toContain('<wpt lat="47.42" lon="8.5">');
    expect(await (await g.get(`/api/caches/${id}/gpx`, as(solver))).text()).toContain('<wpt lat="47.42" lon="8.5">');
  });

  test("bad input is refused and changes nothing; clearing both removes them", async () => {
    const before = await (await g.get(`/api/caches/${id}`, as(solver))).json();
    for (const body of [{ corrected: { lat: 95, lon: 8 } }, { corrected: { lat: 47 } }, { nope: 1 }, { note: "x".repeat(2001) }, { corrected: [47, 8] }])
      expect({ body, status: (await put(solver, body)).status }).toEqual({ body, status: 400 });
    expect((await put(null, { note: "hi" })).status).toBe(401);
    expect((await put(solver, { note: "hi" }, 999999)).status).toBe(404);
    expect(await (await g.get(`/api/caches/${id}`, as(solver))).json()).toEqual(before);
    // the export holds them
    expect((await put(other, { note: "Too hard for me" })).status).toBe(200);
    expect((await put(other, { note: null })).status).toBe(200);
    expect(((await (await g.get(`/api/caches/${id}`, as(other))).json()) as { personal: unknown }).personal).toBeNull();
    expect(g.gw.db.query("SELECT count(*) AS n FROM personal_notes WHERE user_id = ?").get(other.id)).toEqual({ n: 0 });
  });

  test("the cache page saves a note and corrected coordinates typed as degrees and minutes", async () => {
    const browser = await launchBrowser();
    try {
      const ctx = await contextFor(browser, g.url, other.cookie, PHONE);
      const page = await ctx.newPage();
      await page.goto(`${g.url}/cache/${far}`);
      await page.getByTestId("personal-note").locator("summary").click();
      await page.getByLabel("Note").first().fill("Checked the bridge first");
      await page.getByLabel("Corrected latitude").fill("N 47° 25.200");
      await page.getByLabel("Corrected longitude").fill("E 008° 30.000");
      await page.getByRole("button", { name: "Save my note" }).click();
      await page.getByText("Saved.").waitFor();
      const p = ((await (await g.get(`/api/caches/${far}`, as(other))).json()) as { personal: { note: string; corrected: { lat: number; lon: number } } })
        .personal;
      expect(p).toMatchObject({ note: "Checked the bridge first", corrected: { lat: 47.42, lon: 8.5 } });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await ctx.close();
    } finally {
      await browser.close();
    }
  }, 30_000);
});
