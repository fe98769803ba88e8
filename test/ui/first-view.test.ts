/**
 * A record's page (a cache, a station, a BBS bulletin, a profile) arrives with
 * its first view drawn by the server and its first API answers inline
 * (src/http/first-view.ts), so a slow link shows the content before the
 * app's script has come (issue 33 item 1; the time is bench/slow3g.ts's):
 * - with JavaScript off, the content is in the page;
 * - with JavaScript, the app takes over without asking again for an answer
 *   the page carried, and the content is there once;
 * - user text with <script> or </script> in it is shown as text, never run;
 * - a draft cache and personal mail carry nothing in the page, nor does a
 *   signed-in visitor's page or the service worker's copy of the shell.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

const INGEST = "ingest-secret-0123456789";
const NAME = "Oak <script>window.pwned=1</script> box";
const DESCRIPTION = "Under the oak. </script><script>window.pwned=2</script><img src=x onerror=window.pwned=3>";
const BODY = "Field day on 2 m.\n</script><script>window.pwned=4</script>";
const NAVIGATE = { accept: "text/html", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" };

let g: Running;
let browser: Browser;
let owner: TestUser;
let cacheId = 0;
let draftId = 0;
let bulletinId = 0;
let privateId = 0;

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off", INGEST_SECRET: INGEST, BBS_HA: "N0GW.#TST.USA.NOAM" });
  owner = signedInUser(g.gw, "N0FV", { verified: true });
  const as = { headers: { cookie: owner.cookie } };
  const cache = { type: "traditional", size: "small", difficulty: 2, terrain: 3, lat: 47.5, lon: 8.5 };
  const c = await g.post("/api/caches", { ...cache, name: NAME, description: DESCRIPTION }, as);
  expect(c.status).toBe(201);
  cacheId = ((await c.json()) as { id: number }).id;
  const d = await g.post("/api/caches", { ...cache, name: "Secret draft", description: "not yet", status: "draft" }, as);
  expect(d.status).toBe(201);
  draftId = ((await d.json()) as { id: number }).id;
  const b = await g.post("/api/bbs/messages", { type: "B", to: "ALL@WW", subject: "Field day <b>soon</b>", body: BODY }, as);
  expect(b.status).toBe(201);
  bulletinId = ((await b.json()) as { id: number }).id;
  const p = await g.post("/api/bbs/messages", { type: "P", to: "N0OTH", subject: "Private subject", body: "private body text" }, as);
  expect(p.status, await p.clone().text()).toBe(201);
  privateId = ((await p.json()) as { id: number }).id;
  const packets = ["N0FV-9>APRS,TCPIP*,qAC,T2TEST:!4730.00N/00830.00E>Mobile on the lake road"];
  expect((await g.post("/ingest", { packets }, { headers: { "x-ingest-secret": INGEST } })).status).toBeLessThan(300);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

/** Each page: its address, what it shows (selector, text), and the answers the page carries. */
const pages = () => [
  {
    name: "cache",
    path: `/cache/${cacheId}`,
    shows: [
      ["h1", NAME],
      ["[data-testid=cache-facts]", "traditional"],
      [".description", DESCRIPTION],
    ],
    answers: [`/api/caches/${cacheId}`, `/api/caches/${cacheId}/logs`],
  },
  {
    name: "station",
    path: "/station/N0FV-9",
    shows: [
      ["h1", "N0FV-9"],
      ["[data-testid=station-facts]", "47.50000"],
    ],
    answers: ["/api/stations/N0FV-9"],
  },
  {
    name: "bbs message",
    path: `/bbs/msg/${bulletinId}`,
    shows: [
      ["h1", "Field day <b>soon</b>"],
      [".message-body", BODY],
    ],
    answers: [`/api/bbs/thread/${bulletinId}`],
  },
  {
    name: "profile",
    path: "/profile/N0FV",
    shows: [
      ["h1", "N0FV"],
      ["[data-testid=game-stats]", "Caches hidden1"],
    ],
    answers: ["/api/profile/N0FV"],
  },
];

const texts = (page: Page, sel: string) => page.$$eval(sel, (els) => els.map((e) => e.textContent ?? ""));

describe("a record's first view", () => {
  test("with JavaScript off, each page shows its content, user text as text", async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 360, height: 740 } });
    const page = await ctx.newPage();
    const csp = (await g.get("/about", { headers: NAVIGATE })).headers.get("content-security-policy")!;
    for (const p of pages()) {
      const res = await page.goto(g.url + p.path);
      expect(res?.status()).toBe(200);
      for (const [sel, text] of p.shows) {
        const found = await texts(page, `#ssr-view ${sel}`);
        expect(found.length, `${p.name}: ${sel}`).toBeGreaterThan(0);
        expect(found[0], `${p.name}: ${sel}`).toContain(text!);
      }
      // the answers ride as data, under the same policy as the map's page
      const answers = JSON.parse((await page.textContent("#first-answers")) ?? "{}") as Record<string, unknown>;
      expect(Object.keys(answers)).toEqual(expect.arrayContaining(p.answers));
      expect(res?.headers()["content-security-policy"]).toBe(csp);
    }
    await ctx.close();
  });

  test("with JavaScript, the app takes over without asking again, the content once, no user text run", async () => {
    for (const p of pages()) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await ctx.newPage();
      const asked: string[] = [];
      page.on("request", (r) => asked.push(new URL(r.url()).pathname));
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(g.url + p.path);
      // the app's own page (not the server's view) shows it
      await page.waitForFunction(
        (shows) =>
          !document.getElementById("ssr-view") && shows.every(([sel, text]) => (document.querySelector(`#app ${sel}`)?.textContent ?? "").includes(text!)),
        p.shows,
      );
      await page.waitForLoadState("networkidle");
      for (const a of p.answers) expect(asked, `${p.name} asked again for ${a}`).not.toContain(a);
      expect(asked).not.toContain("/api/config");
      expect(
        (await texts(page, "h1")).map((t) => t.trim()),
        p.name,
      ).toEqual([p.shows[0]![1]!]);
      expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
      expect(errors).toEqual([]);
      await ctx.close();
    }
  });

  test("the page's bytes hold user text escaped: no <script> of theirs in the HTML or the answers", async () => {
    for (const path of [`/cache/${cacheId}`, `/bbs/msg/${bulletinId}`]) {
      const html = await (await g.get(path, { headers: NAVIGATE })).text();
      expect(html).toContain('id="ssr-view"');
      expect(html).not.toContain("<script>window.pwned");
      expect(html).not.toContain("</script><script>window");
      expect(html).not.toContain("<img src=x");
    }
  });

  test("a draft cache and personal mail carry nothing in the page", async () => {
    const draft = await g.get(`/cache/${draftId}`, { headers: NAVIGATE });
    expect(draft.status).toBe(404);
    const mail = await g.get(`/bbs/msg/${privateId}`, { headers: NAVIGATE });
    expect(mail.status).toBe(200);
    for (const [res, secrets] of [
      [draft, ["Secret draft", "not yet"]],
      [mail, ["Private subject", "private body text"]],
    ] as const) {
      const html = await res.text();
      expect(html).not.toContain("ssr-view");
      expect(html).not.toContain("first-answers");
      for (const s of secrets) expect(html).not.toContain(s);
    }
  });

  test("a signed-in visitor's page and the service worker's copy of the shell are the plain page", async () => {
    const signedIn = await (await g.get(`/cache/${cacheId}`, { headers: { ...NAVIGATE, cookie: owner.cookie } })).text();
    expect(signedIn).not.toContain("ssr-view");
    expect(signedIn).not.toContain("first-answers");
    const asData = await (await g.get(`/cache/${cacheId}`, { headers: { accept: "text/html", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" } })).text();
    expect(asData).not.toContain("ssr-view");
    expect(asData).not.toContain("first-answers");
  });
});
