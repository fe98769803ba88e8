/**
 * The map's page as a browser on a slow link receives it: the HTML itself
 * carries the view of its address drawn (stations and caches where they are,
 * groups with their counts, the basemap's land), the script that counts it
 * is allowed by its hash and nothing else inline is, the first answers the
 * app needs ride along, and pages other than the map get the page as before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync } from "node:zlib";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ddm, ingestCrowd } from "../helpers/crowd.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { upsertCatalogCache } from "../../src/game/catalog-caches.ts";
import { uiBundle } from "../../src/http/ui.ts";

let g: Running;
const W = 2048;
const H = 1280;
/** Stations alone, far apart, in the view of 48 N 11 E at zoom 11. */
const LONE = [
  { call: "DL1AAA", lat: 48.05, lon: 11.1 },
  { call: "DL2BBB", lat: 47.95, lon: 10.8 },
  { call: "DL3CCC", lat: 48.1, lon: 10.65 },
];
/** Out of that view (a degree north), in the view centred on it. */
const NORTH = { call: "DL4DDD", lat: 49, lon: 11 };
const TOWN = { lat: 48, lon: 11.2, dLat: 0.02, dLon: 0.03 };
const CACHES = 12;

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  const now = Date.now();
  ingestLines(
    g.gw,
    [...LONE, NORTH].map((s) => ({ line: `${s.call}>APRS,TCPIP*:!${ddm(s.lat, 2, "N", "S")}/${ddm(s.lon, 3, "E", "W")}>test`, heardAt: now })),
    { source: "aprsis" },
  );
  // a town: 300 stations within a few pixels of each other at zoom 11, so they are drawn as groups
  ingestCrowd(g.gw, 300, TOWN);
  g.gw.db.transaction(() => {
    for (let i = 0; i < CACHES; i++) {
      upsertCatalogCache(g.gw, "catalog", null, {
        code: `GCV${i}`,
        name: `View cache ${i}`,
        type: "traditional",
        size: "small",
        difficulty: 2,
        terrain: 2,
        lat: 47.9 + i * 0.002,
        lon: 10.9,
        status: "active",
        hint: null,
        description: "",
        placedAt: null,
        placedBy: "N0VIEW",
      });
    }
  })();
}, 60_000);
afterAll(() => g.stop());

/** Where a point is drawn in the page's 2048 x 1280 window around a view (Web Mercator, 256 px tiles). */
function expectedAt(lat: number, lon: number, view: { lat: number; lon: number; z: number }): [number, number] {
  const size = 256 * 2 ** view.z;
  const y = (l: number) => {
    const s = Math.sin((l * Math.PI) / 180);
    return (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * size;
  };
  return [W / 2 + ((lon - view.lon) / 360) * size, H / 2 + y(lat) - y(view.lat)];
}

/** What the drawing shows: single stations and caches with their positions, and the groups' counts. */
function drawing(html: string) {
  const points = html.slice(html.indexOf('<svg class="ssr-points"'), html.indexOf("</svg></div></section>"));
  // single stations and caches: the dots (`M x y h0`) of the paths #ps and #pc
  const dots = (id: string, kind: string) =>
    [...(new RegExp(`<path id="${id}" d="([^"]*)"`).exec(points)?.[1] ?? "").matchAll(/M(-?\d+) (-?\d+)h0/g)].map((m) => ({
      kind,
      x: Number(m[1]),
      y: Number(m[2]),
    }));
  const singles = [...dots("ps", "ss"), ...dots("pc", "sc")];
  const groups = [...points.matchAll(/<svg x="(-?\d+)" y="(-?\d+)">(.*?)<\/svg>/g)].map((m) => {
    const counts = { s: 0, c: 0 };
    for (const b of m[3]!.matchAll(/<use href="#([sc])\d+"(?: x="-?\d+")?\/><text(?: x="-?\d+")?>(\d+)<\/text>/g)) counts[b[1] as "s" | "c"] += Number(b[2]);
    return { x: Number(m[1]), y: Number(m[2]), ...counts };
  });
  return {
    singles,
    groups,
    stations: singles.filter((s) => s.kind === "ss").length + groups.reduce((t, k) => t + k.s, 0),
    caches: singles.filter((s) => s.kind === "sc").length + groups.reduce((t, k) => t + k.c, 0),
  };
}

async function page(path: string, acceptEncoding = "identity") {
  const res = await fetch(g.url + path, { headers: { accept: "text/html", "accept-encoding": acceptEncoding }, decompress: false } as RequestInit);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const html = new TextDecoder().decode(res.headers.get("content-encoding") === "br" ? brotliDecompressSync(bytes) : bytes);
  return { res, bytes, html };
}

describe("the map's page carries its view", () => {
  test("every station and cache of the view drawn, at its place, groups with their counts; a station a degree away only in its own view", async () => {
    const view = { lat: 48, lon: 11, z: 11 };
    const { res, html } = await page("/map?lat=48&lon=11&z=11");
    expect(res.status).toBe(200);
    const d = drawing(html);
    // all 303 stations of the view are accounted for, the town's as groups
    expect(d.stations).toBe(LONE.length + 300);
    expect(d.caches).toBe(CACHES);
    expect(d.groups.filter((k) => k.s > 0).length).toBeGreaterThan(0);
    expect(d.groups.filter((k) => k.s > 0).length).toBeLessThan(60);
    for (const s of LONE) {
      const [x, y] = expectedAt(s.lat, s.lon, view);
      const at = d.singles.filter((p) => p.kind === "ss" && Math.abs(p.x - x) <= 1 && Math.abs(p.y - y) <= 1);
      expect({ call: s.call, found: at.length }).toEqual({ call: s.call, found: 1 });
    }
    // the town's groups lie around the town
    const [tx, ty] = expectedAt(TOWN.lat, TOWN.lon, view);
    for (const k of d.groups.filter((k) => k.s > 0)) expect(Math.hypot(k.x - tx, k.y - ty)).toBeLessThan(80);
    // the station a degree north is outside this window: drawn in its own view, at its centre (the control)
    const north = drawing((await page(`/map?lat=${NORTH.lat}&lon=${NORTH.lon}&z=11`)).html);
    expect(north.stations).toBe(1);
    expect(north.singles).toEqual([{ kind: "ss", x: W / 2, y: H / 2 }]);
    // the view's frame: the land of the built-in basemap around it (southern Germany is land: the path is not empty)
    expect(html).toMatch(/<svg class="ssr-base"[^>]*>.*<path d="M[^"]+" fill="#e2dfda"\/>/);
    expect(html).toContain('data-lat="48" data-lon="11" data-z="11"');
    // no tile server here: the page says so where the app does, above the count
    expect(html).toContain(`<div class="map-top"><div class="banner" role="status">No tile server is configured: showing this gateway's own maps.</div></div>`);
  });

  test("no view in the address draws the default one (the world), marked as replaceable by a remembered view; a broken view draws it unmarked", async () => {
    const home = (await page("/")).html;
    expect(home).toContain('data-lat="30" data-lon="0" data-z="2" data-home=""');
    // all 304 stations and the caches sit in one spot at zoom 2: one group with every station and cache
    const d = drawing(home);
    expect(d.stations).toBe(LONE.length + 300 + 1);
    expect(d.caches).toBe(CACHES);
    const broken = (await page("/map?lat=95&lon=11")).html;
    expect(broken).toContain('data-lat="30" data-lon="0" data-z="2" data-bounds');
    expect(broken).not.toContain("data-home");
  });

  test("the count is left to the inline script, whose hash (and no 'unsafe-inline') is what the CSP allows; the first answers are data", async () => {
    const { res, html } = await page("/map?lat=48&lon=11&z=11");
    // no count element in the HTML: the script makes it once the drawing is there and the map box measured
    expect(html).not.toContain('data-testid="map-count"');
    expect(html).toContain('d.dataset.testid="map-count"');
    const scripts = [...html.matchAll(/<script>(.*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts.length).toBe(1);
    const hash = `'sha256-${new Bun.CryptoHasher("sha256").update(scripts[0]!).digest("base64")}'`;
    const csp = res.headers.get("content-security-policy")!;
    const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src"))!;
    expect(scriptSrc.trim()).toBe(`script-src 'self' ${hash}`);
    // the same policy on every page (the control: another page's header names the same hash)
    expect((await page("/about")).res.headers.get("content-security-policy")).toBe(csp);
    const first = JSON.parse(/<script type="application\/json" id="first-answers">(.*?)<\/script>/.exec(html)![1]!);
    expect(first["/api/config"]).toEqual(await (await g.get("/api/config")).json());
    expect(first["/api/tiles"]).toEqual(await (await g.get("/api/tiles")).json());
  });

  test("sent brotli-compressed when accepted, decoding to the same page; the stylesheet follows the drawing", async () => {
    const plain = await page("/map?lat=48&lon=11&z=11");
    const br = await page("/map?lat=48&lon=11&z=11", "gzip, deflate, br");
    expect(plain.res.headers.get("content-encoding")).toBeNull();
    expect(br.res.headers.get("content-encoding")).toBe("br");
    expect(br.res.headers.get("vary")).toContain("Accept-Encoding");
    expect(br.html).toBe(plain.html);
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 2);
    // the frame's rules inline in the head; the full stylesheet after the drawing, where it holds back no paint
    const head = plain.html.slice(0, plain.html.indexOf("</head>"));
    expect(head).toMatch(/<style>[^<]*\.map-page\{[^<]*<\/style>/);
    expect(head).not.toContain('rel="stylesheet"');
    expect(plain.html.indexOf('rel="stylesheet"')).toBeGreaterThan(plain.html.indexOf('id="ssr-view"'));
  });

  test("pages other than the map and the records, and the service worker's copy of the page, get the page as built, with no drawing", async () => {
    const built = (await uiBundle()).index;
    // (a record's page carries its own first view: test/ui/first-view.test.ts)
    for (const path of ["/about", "/leaderboard", "/decode", "/map/elsewhere"]) {
      const { res, html } = await page(path);
      // an address the app has no page for is the same page with a 404 (src/http/page-status.ts)
      expect({ path, status: res.status }).toEqual({ path, status: path === "/map/elsewhere" ? 404 : 200 });
      expect({ path, same: html === built }).toEqual({ path, same: true });
      expect(html).not.toContain("ssr-view");
    }
    // the control: the map's page is not the page as built
    expect((await page("/map")).html).not.toBe(built);
    // the service worker keeps "/" as the page for every address: fetched as data it is the page as built, navigated to it is the map
    const asData = await g.get("/", { headers: { "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" } });
    expect(await asData.text()).toBe(built);
    const navigated = await g.get("/", { headers: { accept: "text/html", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" } });
    expect(await navigated.text()).toContain('id="ssr-view"');
  });
});
