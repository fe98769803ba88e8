/**
 * Blind SSRF: connections the gateway opens for a user (web push) or a peer
 * (sync of a peer learnt from a trusted peer's registry view) never reach
 * loopback, whatever spelling or name leads there. A TCP listener on loopback
 * counts every connection that reaches it; with the lab setting on, the same
 * request does reach it (the positive control).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import type { TCPSocketListener } from "bun";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { pushClient, startPushService } from "../helpers/push.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { tmpDir } from "../helpers/tmp.ts";

const INGEST = "ingest-secret-0123456789";
const json = (r: Response) => r.json() as Promise<any>;

/** A loopback TCP port that counts the connections made to it and closes them. */
let listener: TCPSocketListener<undefined>;
let reached = 0;
beforeAll(() => {
  listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        reached++;
        s.end();
      },
      data() {},
    },
  });
});
afterAll(() => listener.stop(true));

/** Waits a little for connections still on their way (none are expected). */
const settle = () => Bun.sleep(300);

const send = (g: Running, cookie: string, method: string, path: string, body?: unknown) =>
  g.get(path, { method, headers: { cookie, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

describe("web push endpoints", () => {
  test("a push endpoint on loopback, by literal, short form, hex, localhost or a name that resolves there, is refused and never dialled", async () => {
    // The machine's own name resolves to a loopback address through the system resolver (/etc/hosts).
    const own = hostname();
    const ownAddrs = (await lookup(own, { all: true })).map((a) => a.address);
    expect(ownAddrs.length).toBeGreaterThan(0);
    expect(ownAddrs.every((a) => a.startsWith("127.") || a === "::1")).toBe(true);

    const port = listener.port;
    const g = await startInProcess({ INSTANCE: "ssrf-push" });
    const lab = await startInProcess({ INSTANCE: "ssrf-lab", OUTBOUND_ALLOW_PRIVATE: "true" });
    try {
      const keys = pushClient().subscription("x").keys;
      const user = signedInUser(g.gw, "N0SRF");
      const endpoints = [
        `https://127.0.0.1:${port}/p`,
        `https://[::1]:${port}/p`,
        `https://0x7f000001:${port}/p`,
        `https://127.1:${port}/p`,
        `https://localhost:${port}/p`,
        `https://[::ffff:127.0.0.1]:${port}/p`,
        `https://${own}:${port}/p`,
      ];
      for (const endpoint of endpoints) {
        const r = await send(g, user.cookie, "PUT", "/api/push/subscription", { endpoint, keys });
        expect({ endpoint, status: r.status, error: (await json(r)).error }).toEqual({ endpoint, status: 400, error: "bad_subscription" });
      }
      expect((await json(await send(g, user.cookie, "GET", "/api/push/subscriptions"))).subscriptions).toEqual([]);
      expect(await json(await send(g, user.cookie, "POST", "/api/push/test", {}))).toEqual({ sent: 0, failed: 0, removed: 0 });
      await settle();
      expect(reached).toBe(0);

      // Positive control: the lab setting lets the same name through, and the gateway does connect.
      const labUser = signedInUser(lab.gw, "N0LAB");
      expect((await send(lab, labUser.cookie, "PUT", "/api/push/subscription", { endpoint: `https://${own}:${port}/p`, keys })).status).toBe(201);
      expect(await json(await send(lab, labUser.cookie, "POST", "/api/push/test", {}))).toEqual({ sent: 0, failed: 1, removed: 0 });
      await settle();
      expect(reached).toBeGreaterThan(0);
    } finally {
      await g.stop();
      await lab.stop();
    }
  });

  test("every special range is refused by address, in any IPv6 form; AMPRNet (44/8) and ordinary public addresses are accepted", async () => {
    const g = await startInProcess({ INSTANCE: "ssrf-ranges" });
    try {
      const user = signedInUser(g.gw, "N0RNG");
      const keys = pushClient().subscription("x").keys;
      const put = (host: string) => send(g, user.cookie, "PUT", "/api/push/subscription", { endpoint: `https://${host}/push/x`, keys });
      const refused = [
        "10.1.2.3",
        "100.64.0.1",
        "169.254.169.254",
        "172.16.5.5",
        "192.168.1.1",
        "192.0.2.7",
        "198.18.0.1",
        "224.0.0.251",
        "240.0.0.1",
        "0.0.0.0",
        "[fd00::1]",
        "[fe80::1]",
        "[::ffff:10.0.0.1]",
        "[64:ff9b::a00:1]",
        "[2002:7f00:1::1]",
        "[ff02::1]",
        "[2001:db8::1]",
        "[::]",
      ];
      for (const host of refused) expect({ host, status: (await put(host)).status }).toEqual({ host, status: 400 });
      for (const host of ["44.0.0.1", "44.135.85.1", "8.8.8.8", "[2001:4860:4860::8888]"])
        expect({ host, status: (await put(host)).status }).toEqual({ host, status: 201 });
    } finally {
      await g.stop();
    }
  });

  test("a stored subscription whose name now leads to loopback is checked again at send time and not dialled", async () => {
    const dataDir = tmpDir();
    const own = hostname();
    const keys = pushClient().subscription("x").keys;
    // Stored while the lab setting was on (as a name that resolved elsewhere then would be).
    const lab = await startInProcess({ INSTANCE: "ssrf-send", OUTBOUND_ALLOW_PRIVATE: "true" }, { dataDir });
    const user = signedInUser(lab.gw, "N0SND");
    expect((await send(lab, user.cookie, "PUT", "/api/push/subscription", { endpoint: `https://${own}:${listener.port}/stored`, keys })).status).toBe(201);
    const before = reached;
    expect(await json(await send(lab, user.cookie, "POST", "/api/push/test", {}))).toEqual({ sent: 0, failed: 1, removed: 0 });
    await settle();
    expect(reached).toBeGreaterThan(before); // positive control: it does connect in the lab
    await lab.stop();

    const g = await startInProcess({ INSTANCE: "ssrf-send" }, { dataDir });
    try {
      const after = reached;
      expect(await json(await send(g, user.cookie, "POST", "/api/push/test", {}))).toEqual({ sent: 0, failed: 1, removed: 0 });
      await settle();
      expect(reached).toBe(after);
    } finally {
      await g.stop();
    }
  });
});

describe("the pinned connection", () => {
  test("a name is resolved and the request goes to its address with the name kept in Host (lab setting on, so loopback may be reached)", async () => {
    const own = hostname();
    const service = startPushService();
    const lab = await startInProcess({ INSTANCE: "ssrf-pin", PUSH_ALLOW_PRIVATE_ENDPOINTS: "true" });
    try {
      const user = signedInUser(lab.gw, "N0PIN");
      const port = new URL(service.url).port;
      const sub = pushClient().subscription(`http://${own}:${port}/push/pin`);
      expect((await send(lab, user.cookie, "PUT", "/api/push/subscription", sub)).status).toBe(201);
      expect(await json(await send(lab, user.cookie, "POST", "/api/push/test", {}))).toEqual({ sent: 1, failed: 0, removed: 0 });
      expect(service.received.map((r) => [r.path, r.headers.get("host")])).toEqual([["/push/pin", `${own}:${port}`]]);
    } finally {
      await lab.stop();
      service.stop();
    }
  });
});

describe("peer endpoints learnt from a trusted peer", () => {
  test("a trusted peer's registry view listing https://127.0.0.1:PORT does not make the gateway dial it on the next pull", async () => {
    const kT = generateKeyPair();
    const kE = generateKeyPair();
    // The attacker runs a real gateway the victim trusts, and lists a "peer" at the victim's loopback.
    const T = await startInProcess({ INSTANCE: "gw-t", FED_PRIVATE_KEY: kT.privateKey });
    upsertPeer(T.gw, { instance: "gw-evil", endpoints: [`https:https://127.0.0.1:${listener.port};10`], trust: "trusted", keyPin: kE.publicKey });
    const map = `gw-t.test=${new URL(T.url).port}`;
    const V = await startInProcess({ INSTANCE: "gw-v", FED_PEERS: "https://gw-t.test", FED_LOOPBACK_PEERS: map, INGEST_SECRET: INGEST });
    const L = await startInProcess({
      INSTANCE: "gw-l",
      FED_PEERS: "https://gw-t.test",
      FED_LOOPBACK_PEERS: map,
      INGEST_SECRET: INGEST,
      OUTBOUND_ALLOW_PRIVATE: "true",
    });
    try {
      const sync = (g: Running) => g.post("/federation/sync", {}, { headers: { "x-ingest-secret": INGEST } }).then(json);

      const before = reached;
      // First round: T is pulled and its registry view read (gw-evil joins as unvetted); second: every peer is pulled.
      const first = await sync(V);
      expect(first.peers.find((p: any) => p.instance === "gw-t")).toMatchObject({ ok: true });
      const second = await sync(V);
      const evil = second.peers.find((p: any) => p.instance === "gw-evil");
      expect(evil).toMatchObject({ ok: false, error: { code: "address_refused" } });
      await settle();
      expect(reached).toBe(before);

      // Positive control: the same federation with the lab setting does dial the listed address.
      await sync(L);
      const labEvil = (await sync(L)).peers.find((p: any) => p.instance === "gw-evil");
      expect(labEvil).toMatchObject({ ok: false });
      expect(labEvil.error.code).not.toBe("address_refused");
      await settle();
      expect(reached).toBeGreaterThan(before);
    } finally {
      await Promise.all([T.stop(), V.stop(), L.stop()]);
    }
  });
});
