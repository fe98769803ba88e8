/**
 * The HTTP conformance suite: what a browser, a radio box and a peer see of a
 * gateway, whatever runtime hosts it. Each host's test file calls
 * `conformance(runtime, start)` with a function that starts a gateway on that
 * host as a real process with the given settings; the same tests then run
 * against it, over HTTP only (no reach into its database), so a host passes
 * only by behaving as the Bun gateway does.
 *
 * What it covers: health and CORS; the web app and its built-in world map;
 * compressed answers; every gated route refusing a caller
 * without credentials, and the ingest secret succeeding; sign-in by e-mail
 * through a real SMTP server; a callsign verified by the APRS challenge
 * heard through the ingest box; hiding a cache, finding it, logging a find;
 * /api/v1 and its GPX/KML exports; the federation sync surface, pulled and
 * applied by a Bun peer; WebSocket rooms and the Cursor-on-Target SSE stream
 * carrying a position as it is ingested.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { liveClient } from "../helpers/ws.ts";
import { waitFor } from "../helpers/wait.ts";
import { GATED_ROUTES } from "../http/gated-routes.ts";

export interface Target {
  url: string;
  stop(): Promise<unknown>;
}

/** Starts a gateway on the host under test with these settings (on top of a fresh data directory). */
export type StartTarget = (env: Record<string, string>) => Promise<Target>;

const SECRET = "conformance-ingest-secret-0123";
const BBOX = "6.9,44.9,7.3,45.3";

export function conformance(runtime: string, start: StartTarget): void {
  describe(`conformance on ${runtime}`, () => {
    const key = generateKeyPair();
    let smtp: SmtpSink;
    let g: Target;
    let peer: Running;
    /** a Bun gateway the host is told of (FED_PEERS) and pulls from */
    let upstream: Running;
    let cookie = "";
    let cacheId = 0;
    const instance = `conf-${runtime}`;

    const req = (path: string, init: RequestInit & { json?: unknown } = {}) => {
      const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
      if (init.json !== undefined) headers["content-type"] = "application/json";
      return fetch(g.url + path, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
    };
    const asUser = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      req(path, { ...init, headers: { cookie, origin: g.url, ...(init.headers as Record<string, string>) } });
    const ingest = (lines: string[]) =>
      req("/ingest", { method: "POST", headers: { "x-ingest-secret": SECRET, "content-type": "text/plain" }, body: lines.join("\n") });

    beforeAll(async () => {
      smtp = await startSmtpSink({ user: "gw", pass: "mail-pass" });
      upstream = await startInProcess({ INSTANCE: `upstream-of-${runtime}`, FED_PRIVATE_KEY: generateKeyPair().privateKey, INGEST_SECRET: SECRET });
      const hidden = await upstream.post(
        "/api/caches",
        { name: "A cache from the upstream peer", type: "multi", size: "regular", difficulty: 3, terrain: 2, lat: 45.2, lon: 7.2, ownerCall: "N0UPS" },
        { headers: { "x-ingest-secret": SECRET } },
      );
      expect(hidden.status).toBe(201);
      g = await start({
        FED_PEERS: upstream.url,
        FED_LOOPBACK_PEERS: "on",
        INSTANCE: instance,
        FED_PRIVATE_KEY: key.privateKey,
        INGEST_SECRET: SECRET,
        SMTP_URL: smtp.url,
        MAIL_FROM: "gw@example.org",
        RATE_LIMIT_PER_MINUTE: "100000",
        FED_APRS_CALL: "N0GW-10",
      });
    }, 120_000);

    afterAll(async () => {
      await peer?.stop();
      await upstream?.stop();
      await g?.stop();
      await smtp?.stop();
    });

    test("health answers with the database, and CORS is on every answer and preflight", async () => {
      const h = await req("/health");
      expect(h.status).toBe(200);
      expect(((await h.json()) as { status: string }).status).toBe("ok");
      expect(h.headers.get("access-control-allow-origin")).toBe("*");
      const pre = await req("/api/caches", {
        method: "OPTIONS",
        headers: { origin: "https://elsewhere.example", "access-control-request-method": "GET" },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe("*");
      expect(pre.headers.get("access-control-allow-methods") ?? "").toContain("GET");
    });

    test("the web app: its page, script and built-in world map are served, and compressed answers decode", async () => {
      const page = await req("/", { headers: { accept: "text/html" } });
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      const html = await page.text();
      const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const js = await req(script!);
      expect(js.status).toBe(200);
      expect(js.headers.get("content-type")).toContain("javascript");
      expect((await js.text()).length).toBeGreaterThan(10_000);
      const tiles = (await (await req("/api/tiles")).json()) as { archives: Array<{ name: string; url: string; maxZoom: number }> };
      const world = tiles.archives.find((a) => a.name === "world")!;
      expect(world.maxZoom).toBe(6);
      const head = await req(world.url, { headers: { range: "bytes=0-126" } });
      expect(head.status).toBe(206);
      expect(new TextDecoder().decode(new Uint8Array(await head.arrayBuffer()).slice(0, 7))).toBe("PMTiles");
      // a large JSON answer is compressed once, and decodes as JSON
      for (const enc of ["br", "gzip", "identity"]) {
        const doc = await req("/api/openapi.json", { headers: { "accept-encoding": enc } });
        expect({ enc, encoding: doc.headers.get("content-encoding") }).toEqual({ enc, encoding: enc === "identity" ? null : enc });
        expect(((await doc.json()) as { openapi: string }).openapi).toBe("3.1.0");
      }
    });

    test("every gated route refuses a caller without credentials; the ingest secret opens the box's routes", async () => {
      const wrong: string[] = [];
      // fed-secret-if-set is public while no FED_SUBMIT_SECRET is set, as here
      for (const r of GATED_ROUTES.filter((x) => x.gate !== "fed-secret-if-set")) {
        const init: RequestInit & { json?: unknown } = { method: r.method };
        if (r.method !== "GET" && r.method !== "HEAD") init.json = r.body ?? {};
        const res = await req(r.path.replace(":call", "N0CONF"), init);
        // body gates find no credentials in an empty body: 400 is a refusal too
        const refused = res.status === 401 || res.status === 403 || (res.status === 400 && ["signed-body", "ingest-or-device", "wx-key"].includes(r.gate));
        if (!refused) wrong.push(`${r.method} ${r.path} (${r.gate}): ${res.status}`);
      }
      expect(wrong).toEqual([]);
      const outbox = await req("/outbox", { headers: { "x-ingest-secret": SECRET } });
      expect(outbox.status).toBe(200);
      expect(((await outbox.json()) as { items: unknown[] }).items).toEqual([]);
      expect((await req("/outbox", { headers: { "x-ingest-secret": "not-the-secret-0123456789" } })).status).toBe(401);
    });

    test("sign-in by e-mail: the code from a real mail server opens a session", async () => {
      const s = await req("/auth/email/start", { method: "POST", json: { email: "op@example.org" } });
      expect(s.status).toBe(202);
      const mail = await smtp.next("op@example.org", 20_000);
      const code = /code (\d{6})/.exec(mail.subject)?.[1];
      expect(code).toBeDefined();
      const v = await req("/auth/email/verify", { method: "POST", json: { email: "op@example.org", code } });
      expect(v.status).toBe(200);
      cookie = (v.headers.get("set-cookie") ?? "").split(";")[0]!;
      expect(cookie).toMatch(/^svc_session=./);
      const session = (await (await asUser("/auth/session")).json()) as { account: { email: string } };
      expect(session.account.email).toBe("op@example.org");
      expect((await req("/auth/session")).status).toBe(401);
    });

    test("a callsign verified by the APRS challenge heard through the ingest box; then a cache hidden, found and logged", async () => {
      expect((await asUser("/auth/callsign", { method: "POST", json: { call: "N0CONF-7" } })).status).toBe(200);
      const ch = (await (await asUser("/verify/aprs/start", { method: "POST", json: { call: "N0CONF-7" } })).json()) as { code: string; addressee: string };
      expect(ch.code).toMatch(/^[A-Z2-9]{6}$/);
      const r = await ingest([`N0CONF-7>APRS,WIDE1-1::${ch.addressee.padEnd(9)}:VERIFY ${ch.code}`]);
      expect(r.status).toBe(200);
      await waitFor(
        async () => ((await (await asUser("/verify/aprs/status?call=N0CONF-7")).json()) as { status: string }).status === "verified",
        "the callsign verified",
      );
      const hide = await asUser("/api/caches", {
        method: "POST",
        json: {
          name: `Conformance cache on ${runtime}`,
          type: "traditional",
          size: "small",
          difficulty: 2,
          terrain: 1.5,
          lat: 45.1,
          lon: 7.1,
          hint: "under the stone",
        },
      });
      expect(hide.status).toBe(201);
      cacheId = ((await hide.json()) as { id: number }).id;
      const found = (await (await req(`/api/caches?bbox=${BBOX}`)).json()) as { caches: Array<{ id: number; name: string; ownerCall: string }> };
      expect(found.caches.find((c) => c.id === cacheId)).toMatchObject({ name: `Conformance cache on ${runtime}`, ownerCall: "N0CONF-7" });
      expect(((await (await req(`/api/caches/${cacheId}`)).json()) as { hint: string }).hint).toBe("under the stone");
      // a find by an RF callsign through the ingest box
      const log = await req(`/api/caches/${cacheId}/logs`, {
        method: "POST",
        headers: { "x-ingest-secret": SECRET },
        json: { kind: "find", call: "N0FND", text: "TFTC" },
      });
      expect(log.status).toBe(201);
      const logs = (await (await req(`/api/caches/${cacheId}/logs`)).json()) as { logs: Array<{ kind: string; call: string; text: string }> };
      expect(logs.logs).toContainEqual(expect.objectContaining({ kind: "find", call: "N0FND", text: "TFTC" }));
      // bad input changes nothing
      const bad = await asUser("/api/caches", {
        method: "POST",
        json: { name: "no place", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 91, lon: 7 },
      });
      expect(bad.status).toBe(400);
      expect(((await (await req(`/api/caches?bbox=${BBOX}`)).json()) as { caches: unknown[] }).caches.length).toBe(1);
    });

    test("/api/v1 lists the cache with rate-limit headers, and exports it as GPX and KML", async () => {
      const v1 = await req(`/api/v1/caches?bbox=${BBOX}`);
      expect(v1.status).toBe(200);
      expect(v1.headers.get("ratelimit-limit")).toBe("100000");
      const body = (await v1.json()) as { caches: Array<{ name: string }> };
      expect(body.caches.map((c) => c.name)).toEqual([`Conformance cache on ${runtime}`]);
      const gpx = await req(`/api/v1/caches.gpx?bbox=${BBOX}`);
      expect(gpx.headers.get("content-type")).toContain("gpx");
      expect(await gpx.text()).toContain(`<groundspeak:name>Conformance cache on ${runtime}</groundspeak:name>`);
      const kml = await req(`/api/v1/caches.kml?bbox=${BBOX}`);
      expect(await kml.text()).toContain(`Conformance cache on ${runtime}`);
      const doc = (await (await req("/api/v1/openapi.json")).json()) as { openapi: string };
      expect(doc.openapi).toBe("3.1.0");
    });

    test("the federation surface: a Bun peer pulls the signed cache and applies it", async () => {
      const wk = (await (await req("/.well-known/svc")).json()) as { instance: string; publicKey?: string; key?: string };
      expect(wk.instance).toBe(instance);
      const page = await req("/federation/sync/cache");
      expect({ status: page.status, body: page.status === 200 ? "" : await page.text() }).toEqual({ status: 200, body: "" });
      expect(page.headers.get("content-type")).toContain("cbor");
      peer = await startInProcess({
        INSTANCE: `peer-of-${runtime}`,
        FED_PRIVATE_KEY: generateKeyPair().privateKey,
        FED_PEERS: g.url,
        FED_LOOPBACK_PEERS: "on",
        INGEST_SECRET: SECRET,
      });
      const pull = await peer.post("/federation/sync", {}, { headers: { "x-ingest-secret": SECRET } });
      expect(pull.status).toBe(200);
      await waitFor(async () => {
        const at = (await (await peer.get(`/api/caches?bbox=${BBOX}`)).json()) as { caches: Array<{ name: string }> };
        return at.caches.some((c) => c.name === `Conformance cache on ${runtime}`);
      }, "the cache at the peer");
    });

    test("apply: the host pulls a Bun peer it was told of, verifies and applies its signed records; an unreadable page changes nothing", async () => {
      const bad = await req("/federation/frames", {
        method: "POST",
        headers: { "x-ingest-secret": SECRET, "content-type": "application/cbor" },
        body: new Uint8Array([0xff, 0x00, 0x13]),
      });
      expect(bad.status).toBe(400);
      const pull = await req("/federation/sync", { method: "POST", headers: { "x-ingest-secret": SECRET }, json: {} });
      expect(pull.status).toBe(200);
      const report = (await pull.json()) as { peers: Array<{ instance: string; ok: boolean; error: unknown }> };
      expect(report.peers.find((p) => p.instance === upstream.gw.config.instance)).toMatchObject({ ok: true, error: null });
      const at = (await (await req(`/api/caches?bbox=${BBOX}`)).json()) as { caches: Array<{ name: string; origin?: string }> };
      expect(at.caches.map((c) => c.name)).toContain("A cache from the upstream peer");
    });

    test("live feeds: a WebSocket room and the CoT stream carry a position as it is ingested", async () => {
      const ws = await liveClient(g.url, "JN35");
      const snapshot = await ws.next(10_000);
      expect(snapshot.type).toBe("snapshot");
      const ac = new AbortController();
      const sse = await req(`/api/cot/stream?bbox=${BBOX}`, { signal: ac.signal, headers: { accept: "text/event-stream" } });
      expect(sse.headers.get("content-type")).toContain("text/event-stream");
      const reader = sse.body!.getReader();
      let text = "";
      const readUntil = async (pattern: RegExp) => {
        const end = Date.now() + 15_000;
        while (!pattern.test(text) && Date.now() < end) {
          const { value, done } = await reader.read();
          if (done) break;
          text += new TextDecoder().decode(value);
        }
        return pattern.test(text);
      };
      expect(await readUntil(/event: synced/)).toBe(true);
      expect((await ingest(["N0LIV-9>APRS,WIDE1-1:!4506.00N/00706.00E>live on the conformance host"])).status).toBe(200);
      let msg = await ws.next(10_000);
      while (msg.type !== "position") msg = await ws.next(10_000);
      expect(msg).toMatchObject({ type: "position", call: "N0LIV-9", room: "JN35" });
      expect(msg.lat).toBeCloseTo(45.1, 3);
      expect(await readUntil(/uid="APRS\.N0LIV-9"/)).toBe(true);
      ac.abort();
      await ws.close();
    });
  });
}
