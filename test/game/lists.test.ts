/**
 * Bookmark lists (docs/api.md "Bookmark lists"): a user makes a list, adds
 * caches (again changes nothing), reads it with its GPX; a private list is a
 * 404 to anyone else, a public one opens by its link for a visitor; only the
 * owner changes it; bad input changes nothing; the account's export holds it;
 * and in Chromium the cache page adds to a list and the list's link shows it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { contextFor, launchBrowser, PHONE } from "../helpers/chromium.ts";

let g: Running;
let me: TestUser;
let other: TestUser;
const caches: number[] = [];
const as = (u: TestUser | null, init: { method?: string; body?: unknown } = {}) => ({
  method: init.method,
  body: init.body === undefined ? undefined : JSON.stringify(init.body),
  headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...(u ? { cookie: u.cookie } : {}) },
});
const call = (path: string, u: TestUser | null, init: { method?: string; body?: unknown } = {}) => g.get(path, as(u, init));

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  me = signedInUser(g.gw, "N0LST", { verified: true });
  other = signedInUser(g.gw, "N0OTH", { verified: true });
  for (const [name, lat] of [
    ["Bridge box", 47.1],
    ["Mill box", 47.2],
  ] as const) {
    const r = await g.post(
      "/api/caches",
      { name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon: 8 },
      { headers: { cookie: other.cookie } },
    );
    caches.push(((await r.json()) as { id: number }).id);
  }
});
afterAll(async () => {
  await g.stop();
});

describe("bookmark lists", () => {
  let id = 0;
  test("made, filled (twice is once), read with its GPX; private to anyone else, public by its link", async () => {
    const made = await call("/api/lists", me, { method: "POST", body: { name: "Summer trip" } });
    expect(made.status).toBe(201);
    id = ((await made.json()) as { id: number }).id;
    for (const c of [caches[0], caches[1], caches[0]])
      expect((await call(`/api/lists/${id}/caches`, me, { method: "POST", body: { cache: c } })).status).toBe(200);
    const l = (await (await call(`/api/lists/${id}`, me)).json()) as { count: number; public: boolean; owner: string; caches: Array<{ name: string }> };
    expect(l).toMatchObject({ count: 2, public: false, owner: "N0LST" });
    expect(l.caches.map((c) => c.name).sort()).toEqual(["Bridge box", "Mill box"]);
    const gpx = await (await call(`/api/lists/${id}/gpx`, me)).text();
    expect(gpx).toContain("Bridge box");
    expect(gpx).toContain("Mill box");
    expect(((await (await call("/api/lists", me)).json()) as { lists: unknown[] }).lists).toHaveLength(1);
    // private: a 404 to anyone else, signed in or not, list and GPX alike
    for (const u of [other, null]) {
      expect((await call(`/api/lists/${id}`, u)).status).toBe(404);
      expect((await call(`/api/lists/${id}/gpx`, u)).status).toBe(404);
    }
    // public: anyone with the link
    expect((await call(`/api/lists/${id}`, me, { method: "PATCH", body: { public: true } })).status).toBe(200);
    expect((await call(`/api/lists/${id}`, null)).status).toBe(200);
    expect((await g.get(`/list/${id}`, { headers: { accept: "text/html" } })).status).toBe(200);
  });

  test("only the owner changes it; bad input is refused and changes nothing; the export holds it", async () => {
    const before = await (await call(`/api/lists/${id}`, me)).json();
    expect((await call(`/api/lists/${id}/caches`, other, { method: "POST", body: { cache: caches[0] } })).status).toBe(403);
    expect((await call(`/api/lists/${id}`, other, { method: "DELETE" })).status).toBe(403);
    expect((await call(`/api/lists/${id}`, null, { method: "PATCH", body: { name: "x" } })).status).toBe(401);
    for (const body of [{ name: "" }, { name: "x".repeat(101) }, { public: "yes" }, { color: "red" }])
      expect({ body, status: (await call(`/api/lists/${id}`, me, { method: "PATCH", body })).status }).toEqual({ body, status: 400 });
    expect((await call(`/api/lists/${id}/caches`, me, { method: "POST", body: { cache: 999999 } })).status).toBe(404);
    expect(await (await call(`/api/lists/${id}`, me)).json()).toEqual(before);
    const x = (await (await g.post("/api/account/N0LST/export", {}, { headers: { cookie: me.cookie } })).json()) as {
      data: { game: { lists: Array<{ name: string; caches: string[] }> } };
    };
    expect(x.data.game.lists).toEqual([
      expect.objectContaining({ name: "Summer trip", caches: [expect.stringMatching(/:cache:/), expect.stringMatching(/:cache:/)] }),
    ]);
  });

  test("the cache page adds to a list; the list's page shows it and its owner takes it off", async () => {
    const browser = await launchBrowser();
    try {
      const ctx = await contextFor(browser, g.url, me.cookie, PHONE);
      const page = await ctx.newPage();
      const made = await call("/api/lists", me, { method: "POST", body: { name: "To do" } });
      const todo = ((await made.json()) as { id: number }).id;
      await page.goto(`${g.url}/cache/${caches[1]}`);
      await page.getByLabel("Add to a list").selectOption({ label: "To do" });
      await page.getByRole("button", { name: "Add", exact: true }).click();
      await page.getByText("Added to To do.").waitFor();
      await page.goto(`${g.url}/list/${todo}`);
      await page.getByTestId("list-caches").getByText("Mill box").waitFor();
      await page.getByRole("button", { name: "Remove Mill box from the list" }).click();
      await page.getByText("No caches on this list yet").waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await ctx.close();
    } finally {
      await browser.close();
    }
  }, 30_000);
});
