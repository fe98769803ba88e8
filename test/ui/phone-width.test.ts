/**
 * Every route of the web app on a 360x740 phone, for a visitor, a signed-in
 * user and a sysop, with real data behind each page (a cache, a weather
 * station with long raw packets, BBS traffic, peers, a trackable, a decoded
 * weather packet):
 * - nothing is wider than the screen (document.documentElement.scrollWidth
 *   <= 360); a failure names the elements that stick out;
 * - axe-core (the accessibility checker) finds nothing critical or serious;
 *   a failure names the rule and the elements.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { contextFor, launchBrowser, PHONE, quietTracker } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { ROOT } from "../helpers/paths.ts";

const SHOTS = join(ROOT, "test-artifacts", "phone");
const INGEST = "ingest-secret-0123456789";
const WIDTH = 360;
export const WX =
  "N0WX-13>APRS,WIDE1-1,WIDE2-1,qAR,N0IG-10:@092345z4237.14N/07120.83W_090/005g010t077r000p000P000h50b10150L123.DireWolf.wx.station.with.a.long.comment";
let g: Running;
let browser: Browser;
let user: TestUser;
let sysop: TestUser;
let cacheId = 0;
let messageId = 0;
let trackableRef = "";
let eventId = 0;
let listId = 0;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  g = await startInProcess({ TILE_URL: "off", INGEST_SECRET: INGEST, ADMIN_CALLSIGNS: "N0OPS", BBS_HA: "N0GW.#TST.USA.NOAM" });
  user = signedInUser(g.gw, "N0USR-7", { verified: true });
  sysop = signedInUser(g.gw, "N0OPS", { verified: true });
  const packets = [WX, "N0WX-13>APRS,TCPIP*,qAC,T2TEST:>Weather station on the hill, 420 m above sea level, reports every ten minutes via RF and internet"];
  for (let i = 0; i < 8; i++)
    packets.push(`N0WX-13>APRS,WIDE1-1,qAR,N0IG-10:@0923${String(10 + i)}z4237.14N/07120.83W_090/00${i}g010t07${i}r000p000P000h50b1015${i}`);
  expect((await g.post("/ingest", { packets }, { headers: { "x-ingest-secret": INGEST } })).status).toBeLessThan(300);
  const c = await g.post(
    "/api/caches",
    {
      name: "The long-named cache by the old mill pond",
      type: "traditional",
      size: "small",
      difficulty: 2,
      terrain: 2,
      lat: 42.6189,
      lon: -71.3472,
      description: "Behind the mill.",
      attributes: [
        { id: 1, inc: true },
        { id: 32, inc: false },
      ],
    },
    { headers: { cookie: user.cookie } },
  );
  expect(c.status).toBe(201);
  cacheId = ((await c.json()) as { id: number }).id;
  const wp = await g.post(
    `/api/caches/${cacheId}/waypoints`,
    { kind: "parking", name: "Parking by the mill gate on the long road", lat: 42.6185, lon: -71.348 },
    { headers: { cookie: user.cookie } },
  );
  expect(wp.status).toBe(201);
  const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const ev = await g.post(
    "/api/caches",
    {
      name: "Field day picnic and cache-in-trash-out at the hill",
      type: "event",
      size: "other",
      difficulty: 1,
      terrain: 1,
      lat: 42.62,
      lon: -71.35,
      description: "Bring a radio.",
      event: { date: day, start: "18:00", end: "20:00", timeZone: "America/New_York" },
    },
    { headers: { cookie: user.cookie } },
  );
  expect(ev.status).toBe(201);
  eventId = ((await ev.json()) as { id: number }).id;
  // a report, so the reviewers' page (/review) has one to show
  expect(
    (await g.post(`/api/caches/${cacheId}/report`, { reason: "The container is cracked and the log is wet" }, { headers: { cookie: sysop.cookie } })).status,
  ).toBe(201);
  const list = await g.post("/api/lists", { name: "Caches by the old mill and along the river", public: true }, { headers: { cookie: user.cookie } });
  expect(list.status).toBe(201);
  listId = ((await list.json()) as { id: number }).id;
  expect((await g.post(`/api/lists/${listId}/caches`, { cache: cacheId }, { headers: { cookie: user.cookie } })).status).toBeLessThan(300);
  const m = await g.post(
    "/api/bbs/messages",
    { type: "P", to: "N0OPS", subject: "Field day logistics and the antenna plan", body: "See you at the hill." },
    { headers: { cookie: user.cookie } },
  );
  expect(m.status).toBe(201);
  messageId = ((await m.json()) as { id: number }).id;
  await g.post("/api/bbs/messages", { type: "B", to: "ALL@WW", subject: "Field day", body: "Field day this weekend." }, { headers: { cookie: user.cookie } });
  const tb = await g.post("/api/trackables", { name: "Rubber duck with a rather long name", goal: "Every summit" }, { headers: { cookie: user.cookie } });
  expect(tb.status).toBe(201);
  trackableRef = ((await tb.json()) as { ref: string }).ref;
  upsertPeer(g.gw, { instance: "n0peer-gw-with-a-long-name", url: "https://n0peer-gw-with-a-long-name.example.org", trust: "trusted", keyPin: "A".repeat(43) });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

/** What sticks out past the right edge: the outermost elements wider than the screen, with their widths. */
async function overflow(page: Page): Promise<{ scrollWidth: number; culprits: string[] }> {
  return page.evaluate((w) => {
    const name = (e: Element) =>
      e.tagName.toLowerCase() +
      (e.id ? "#" + e.id : "") +
      [...e.classList].map((c) => "." + c).join("") +
      (e.getAttribute("data-testid") ? `[data-testid=${e.getAttribute("data-testid")}]` : "");
    const path = (e: Element) => {
      const parts: string[] = [];
      for (let x: Element | null = e; x && x !== document.body; x = x.parentElement) parts.unshift(name(x));
      return parts.slice(-4).join(" > ");
    };
    const out: string[] = [];
    for (const e of document.querySelectorAll("body *")) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.right <= w + 0.5) continue;
      // Report the outermost offender only: its children are the same story.
      const p = e.parentElement;
      if (p && p !== document.body && p.getBoundingClientRect().right > w + 0.5) continue;
      out.push(`${path(e)} (right edge ${Math.round(r.right)} px, width ${Math.round(r.width)} px)`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, culprits: out.slice(0, 6) };
  }, WIDTH);
}

type Who = "visitor" | "user" | "sysop";
const cookieOf = (who: Who) => (who === "user" ? user.cookie : who === "sysop" ? sysop.cookie : null);

/** One phone per visitor kind, kept across its visits (a fresh context per page cost a second each). */
const phones = new Map<Who, { page: Page; quiet: ReturnType<typeof quietTracker> }>();
async function phone(who: Who) {
  const had = phones.get(who);
  if (had) return had;
  const ctx = await contextFor(browser, g.url, cookieOf(who), { ...PHONE, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  const made = { page, quiet: quietTracker(page) };
  phones.set(who, made);
  return made;
}

// evaluated through the debugger protocol, which the page's CSP does not govern (a script tag would be refused)
const AXE = readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");
/** axe-core's critical and serious findings on the page as it stands: "rule (impact): target; ..." per rule. */
async function axeFindings(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await (
      window as unknown as { axe: { run(o: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }
    ).axe.run({
      resultTypes: ["violations"],
    });
    return r.violations
      .filter((v) => v.impact === "critical" || v.impact === "serious")
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.nodes
            .slice(0, 3)
            .map((n) => n.target.join(" "))
            .join("; ")}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ""}`,
      );
  });
}
const axeProblems: string[] = [];

async function visit(who: Who, path: string, then?: (p: Page) => Promise<void>): Promise<string | null> {
  const { page, quiet } = await phone(who);
  await page.goto(g.url + path);
  await page.locator("main, .map.embed").first().waitFor();
  await quiet();
  if (then) await then(page);
  await quiet();
  for (const f of await axeFindings(page)) axeProblems.push(`${who} ${path}: ${f}`);
  const o = await overflow(page);
  if (o.scrollWidth <= WIDTH) return null;
  // Only a failing page is photographed, for the person reading the failure.
  await page.screenshot({ path: join(SHOTS, `${who}-${path.replace(/[^a-z0-9]+/gi, "_")}.png`), fullPage: true });
  return `${who} ${path}: ${o.scrollWidth} px wide; sticking out: ${o.culprits.join("; ") || "(nothing measurable)"}`;
}

const decodeWeather = async (p: Page) => {
  await p.getByLabel("TNC2 line").fill(WX);
  await p.getByRole("button", { name: "Decode" }).click();
  await p.getByTestId("decoded").waitFor();
};

/** The router's routes (ui/app.tsx), each with who sees it. Station and cache pages have a test of their own below. */
function routes(): Array<[Who, string, ((p: Page) => Promise<void>)?]> {
  const all: Array<[Who, string, ((p: Page) => Promise<void>)?]> = [];
  for (const who of ["visitor", "user", "sysop"] as Who[]) {
    for (const path of [
      "/",
      "/map",
      "/about",
      "/setup",
      "/account",
      "/signin/email",
      "/hide",
      "/leaderboard",
      "/trackables",
      "/lists",
      `/list/${listId}`,
      "/review",
      "/activity",
      "/profile/N0USR",
      "/support",
      "/peers",
      "/bbs",
      "/bbs/bulletins",
      "/bbs/compose",
      `/bbs/msg/${messageId}`,
      "/bbs/wp",
      "/sysop/bbs",
      "/radio",
      "/messages",
      "/messages/W1AW-9",
      "/offline",
      `/trackable/${trackableRef}`,
      `/trackable/${trackableRef}/tag`,
      "/no/such/page",
      "/embed",
    ]) {
      all.push([who, path]);
    }
    all.push([who, "/decode", decodeWeather]);
  }
  return all;
}

describe("web app on a 360 px phone", () => {
  test("no page is wider than the screen, and axe finds nothing critical or serious, signed out, signed in and as sysop", async () => {
    const problems: string[] = [];
    const list = routes();
    for (const [who, path, then] of list) {
      const p = await visit(who, path, then);
      if (p) problems.push(p);
    }
    // Positive control: the measurement does see a page that is too wide.
    const ctx = await browser.newContext({ viewport: { width: WIDTH, height: 740 } });
    const page = await ctx.newPage();
    await page.goto(g.url + "/about");
    await page.locator("main").waitFor();
    await page.evaluate(() => document.querySelector("main")!.insertAdjacentHTML("beforeend", '<div id="too-wide" style="width:500px;height:4px"></div>'));
    const wide = await overflow(page);
    expect(wide.scrollWidth).toBeGreaterThan(WIDTH);
    expect(wide.culprits.join()).toContain("div#too-wide");
    // and axe does see an image with no text and a field with no label
    await page.evaluate(() => document.querySelector("main")!.insertAdjacentHTML("beforeend", '<img id="no-alt" src="/favicon.svg"><input id="no-label">'));
    const found = await axeFindings(page);
    expect(found.find((f) => f.startsWith("image-alt (critical)"))).toContain("#no-alt");
    expect(found.find((f) => f.startsWith("label (critical)"))).toContain("#no-label");
    await ctx.close();
    expect(list.length).toBe(93);
    expect(problems).toEqual([]);
    expect(axeProblems).toEqual([]);
  }, 600_000);

  test("the station page (with weather and raw packets) and the cache pages (waypoints, attributes, an event) fit, and axe finds nothing critical or serious there", async () => {
    const problems: string[] = [];
    for (const who of ["visitor", "user"] as Who[]) {
      for (const path of ["/station/N0WX-13", `/cache/${cacheId}`, `/cache/${eventId}`]) {
        const p = await visit(who, path);
        if (p) problems.push(p);
      }
    }
    expect(problems).toEqual([]);
    expect(axeProblems).toEqual([]);
  }, 300_000);
});
