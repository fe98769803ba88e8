/**
 * The BBS in headless Chromium: write a personal message, the addressee finds
 * it new in the mailbox, reads and answers it (the thread shows both); the
 * bulletin boards by category (machine SVCFED traffic not among them);
 * someone else's mail stays closed; White Pages search; the sysop's
 * forwarding page adds a partner and a rule.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser, openPage } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { unknownOriginCarrier } from "../helpers/fed.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let browser: Browser;
let alice: TestUser;
let bob: TestUser;
let ops: TestUser;
beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off", INGEST_SECRET: INGEST, ADMIN_CALLSIGNS: "N0OPS", BBS_HA: "N0GW.#TST.USA.NOAM" });
  alice = signedInUser(g.gw, "N0ALI", { verified: true });
  bob = signedInUser(g.gw, "N0BOB-7", { verified: true });
  ops = signedInUser(g.gw, "N0OPS", { verified: true });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

const open = (user: TestUser | null, path: string) => openPage(browser, g.url, user?.cookie, path);

describe("web app: the BBS", () => {
  let firstId = 0;

  test("write a personal message; the addressee finds it new, reads it and answers in the thread", async () => {
    const a = await open(alice, "/bbs");
    await a.page.getByRole("link", { name: "Write a message" }).click();
    await a.page.getByLabel("To").fill("N0BOB");
    await a.page.getByLabel("Subject").fill("Sked tonight?");
    await a.page.getByLabel("Message").fill("Shall we meet on 145.500 at 2000Z?\n73 Alice");
    await a.page.getByRole("button", { name: "Send" }).click();
    await a.page.getByRole("heading", { name: "Sked tonight?" }).waitFor();
    firstId = Number(new URL(a.page.url()).pathname.split("/").pop());
    expect(await a.page.locator(".message-body").first().textContent()).toBe("Shall we meet on 145.500 at 2000Z?\n73 Alice");
    expect(a.errors).toEqual([]);
    await a.ctx.close();

    const b = await open(bob, "/bbs");
    const row = b.page.getByTestId("messages").locator("tr", { hasText: "Sked tonight?" });
    await row.waitFor();
    expect(await row.getAttribute("class")).toBe("unread");
    expect(await row.textContent()).toContain("N0ALI");
    await row.getByRole("link", { name: "Sked tonight?" }).click();
    await b.page.getByRole("heading", { name: "Sked tonight?" }).waitFor();
    // reading it marked it read
    const read = (await (await g.get(`/api/bbs/messages/${firstId}`, { headers: { cookie: bob.cookie } })).json()) as { read: boolean };
    expect(read.read).toBe(true);
    await b.page.getByRole("link", { name: "Reply" }).click();
    await b.page.waitForFunction(() => (document.getElementById("m-subject") as HTMLInputElement)?.value === "Re: Sked tonight?");
    expect(await b.page.getByLabel("To").inputValue()).toBe("N0ALI");
    await b.page.getByLabel("Message").fill("Yes, see you there. 73 Bob");
    await b.page.getByRole("button", { name: "Send" }).click();
    await b.page.getByText("A thread of 2 messages.").waitFor();
    expect(await b.page.locator("article.message").count()).toBe(2);
    expect(b.errors).toEqual([]);
    await b.ctx.close();
  });

  test("someone else's mail stays closed, signed in or not", async () => {
    const anon = await open(null, `/bbs/msg/${firstId}`);
    await anon.page.getByText("This is personal mail: sign in as its addressee to read it.").waitFor();
    await anon.ctx.close();
    const other = signedInUser(g.gw, "N0EVE", { verified: true });
    const eve = await open(other, `/bbs/msg/${firstId}`);
    await eve.page.locator("p.error").waitFor();
    expect(await eve.page.locator("p.error").textContent()).toContain("personal mail for someone else");
    expect(await eve.page.locator(".message-body").count()).toBe(0);
    await eve.ctx.close();
  });

  test("bulletin boards by category; SVCFED carrier traffic is not on them", async () => {
    const post = (m: object) => g.post("/api/bbs/messages", m, { headers: { cookie: alice.cookie } });
    expect((await post({ type: "B", to: "ALL@WW", subject: "Field day", body: "Field day this weekend." })).status).toBe(201);
    expect((await post({ type: "B", to: "TECH@WW", subject: "Antenna tips", body: "Use a balun." })).status).toBe(201);
    // a carrier bulletin (of an origin this instance does not know: kept, never applied)
    const carried = unknownOriginCarrier();
    const inb = await g.post(
      "/api/bbs/forward/inbound",
      { messages: [{ bid: carried.bid, type: "B", from: "N0FED", to: "SVCFED@WW", subject: "svc-fed frames", text: carried.text }] },
      { headers: { "x-ingest-secret": INGEST } },
    );
    expect(((await inb.json()) as any).results[0].result).toBe("stored");

    const v = await open(null, "/bbs/bulletins");
    await v.page.getByRole("heading", { name: "All bulletins" }).waitFor();
    await v.page.getByTestId("messages").waitFor();
    const all = await v.page.getByTestId("messages").textContent();
    expect(all).toContain("Field day");
    expect(all).toContain("Antenna tips");
    expect(all).not.toContain("svc-fed frames");
    expect(await v.page.getByTestId("categories").textContent()).not.toContain("SVCFED");
    await v.page.getByRole("link", { name: "TECH (1)" }).click();
    await v.page.getByRole("heading", { name: "Bulletins in TECH" }).waitFor();
    await v.page.waitForFunction(() => !document.querySelector("[data-testid=messages]")?.textContent?.includes("Field day"));
    expect(await v.page.getByTestId("messages").textContent()).toContain("Antenna tips");
    expect(v.errors).toEqual([]);
    await v.ctx.close();
  });

  test("Reply to a bulletin writes to its author in private (FBB's SR); answering its whole distribution is a separate choice", async () => {
    const posted = await g.post(
      "/api/bbs/messages",
      { type: "B", to: "SWAP@WW", subject: "Selling a 2 m rig", body: "FT-2980, 80 W." },
      { headers: { cookie: alice.cookie } },
    );
    const id = ((await posted.json()) as { id: number }).id;
    const b = await open(bob, `/bbs/msg/${id}`);
    await b.page.getByRole("link", { name: "Reply to N0ALI" }).click();
    await b.page.waitForFunction(() => (document.getElementById("m-subject") as HTMLInputElement)?.value === "Re: Selling a 2 m rig");
    expect(await b.page.getByLabel("Kind").inputValue()).toBe("P");
    expect(await b.page.getByLabel("To").inputValue()).toBe("N0ALI");
    await b.page.getByLabel("Message").fill("Is it still for sale?");
    await b.page.getByRole("button", { name: "Send" }).click();
    await b.page.getByText("A thread of 2 messages.").waitFor();
    // the reply is personal mail for Alice, not a bulletin to SWAP@WW
    const reply = (await (await g.get("/api/bbs/sent", { headers: { cookie: bob.cookie } })).json()) as {
      messages: Array<{ subject: string; type: string; address: string }>;
    };
    expect(reply.messages.find((m) => m.subject === "Re: Selling a 2 m rig")).toMatchObject({ type: "P", address: "N0ALI" });
    // Reply to all: a bulletin to the same distribution
    await b.page.goto(`${g.url}/bbs/msg/${id}`);
    await b.page.getByRole("link", { name: "Reply to all at SWAP@WW" }).click();
    await b.page.waitForFunction(() => (document.getElementById("m-to") as HTMLInputElement)?.value === "SWAP@WW");
    expect(await b.page.getByLabel("Kind").inputValue()).toBe("B");
    expect(b.errors).toEqual([]);
    await b.ctx.close();
  });

  test("White Pages search", async () => {
    // A forwarded WP update message teaches the directory.
    const r = await g.post(
      "/api/bbs/forward/inbound",
      {
        messages: [
          {
            bid: "WP1_N0FBB",
            type: "P",
            from: "WP",
            to: "WP@N0GW",
            subject: "WP Update",
            text: "On 261120 N0WPA/U @ N0FBB.#TST.USA.NOAM zip 12345 Wanda Springfield\nOn 261120 N0WPB/G @ N0XBB.#TST.USA.NOAM zip ? ? ?\n",
          },
        ],
      },
      { headers: { "x-ingest-secret": INGEST } },
    );
    expect(((await r.json()) as any).results[0].result).toBe("stored");
    const v = await open(null, "/bbs/wp");
    await v.page.getByLabel("Callsign, BBS, name or place").fill("Springfield");
    await v.page.getByRole("button", { name: "Search" }).click();
    await v.page.waitForFunction(() => document.querySelector("[data-testid=wp]")?.textContent?.includes("N0WPA"));
    const table = await v.page.getByTestId("wp").textContent();
    expect(table).toContain("N0FBB.#TST.USA.NOAM");
    expect(table).toContain("Wanda");
    expect(table).not.toContain("N0WPB");
    expect(v.errors).toEqual([]);
    await v.ctx.close();
  });

  test("the sysop's forwarding page: add a partner and a rule; others are turned away", async () => {
    const s = await open(ops, "/sysop/bbs");
    await s.page.getByRole("heading", { name: "Partners" }).waitFor();
    expect(await s.page.getByText("This BBS: N0GW.#TST.USA.NOAM.").count()).toBe(1);
    await s.page.getByLabel("Callsign").fill("N0FBB");
    await s.page.getByLabel("Transport").selectOption("box");
    await s.page.getByLabel("Time-bands (UTC, e.g. 22:00-06:00; empty = any time)").fill("22:00-06:00");
    await s.page.getByRole("button", { name: "Add partner" }).click();
    const partners = s.page.getByTestId("partners");
    await partners.locator("td", { hasText: "N0FBB" }).waitFor();
    expect(await partners.textContent()).toContain("22:00-06:00 UTC");
    await s.page.getByLabel("Partner", { exact: true }).selectOption("N0FBB");
    await s.page.getByLabel("Pattern (e.g. N0BBS, #NCA, USA, NOAM, WW, SM*, *)").fill("noam");
    await s.page.getByRole("button", { name: "Add rule" }).click();
    await s.page.getByTestId("rules").locator("td", { hasText: "@ NOAM" }).waitFor();
    const rules = (await (await g.get("/api/bbs/forward", { headers: { cookie: ops.cookie } })).json()) as any;
    expect(rules.rules).toEqual([expect.objectContaining({ partner: "N0FBB", field: "at", pattern: "NOAM", types: "PBT" })]);
    // a bad pattern is refused with the server's reason, and nothing is added
    await s.page.getByLabel("Pattern (e.g. N0BBS, #NCA, USA, NOAM, WW, SM*, *)").fill("N0.BAD");
    await s.page.getByRole("button", { name: "Add rule" }).click();
    await s.page.locator("p.error", { hasText: "is not a pattern" }).waitFor();
    expect(((await (await g.get("/api/bbs/forward", { headers: { cookie: ops.cookie } })).json()) as any).rules).toHaveLength(1);
    expect(s.errors).toEqual([]);
    await s.ctx.close();

    const a = await open(alice, "/sysop/bbs");
    await a.page.locator("p.error").waitFor();
    expect(await a.page.locator("p.error").textContent()).toContain("only this instance's operators");
    await a.ctx.close();
  });
});
