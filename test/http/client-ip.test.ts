/**
 * Behind a reverse proxy the client address is the right-most X-Forwarded-For
 * hop that is not a trusted proxy: a client that writes its own left-most
 * entries gets no fresh address, for any per-address limit (the API bucket,
 * sign-in, live connections).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { countedAddress, forwardedClient } from "../../src/http/client-ip.ts";
import { parseRanges } from "../../src/lib/net/ip.ts";
import { liveClient, type LiveClient } from "../helpers/ws.ts";

let g: Running; // behind a proxy on loopback (the default TRUSTED_PROXIES)
let far: Running; // TRUST_PROXY on, but loopback is not one of its proxies
beforeAll(async () => {
  g = await startInProcess({ TRUST_PROXY: "true", RATE_LIMIT_PER_MINUTE: "5", LIVE_MAX_PER_IP: "2" });
  far = await startInProcess({ TRUST_PROXY: "true", TRUSTED_PROXIES: "10.0.0.0/8", RATE_LIMIT_PER_MINUTE: "5" });
});
afterAll(async () => {
  await Promise.all([g.stop(), far.stop()]);
});

const statuses = async (r: Running, path: string, xff: (i: number) => string, n: number, init: RequestInit = {}) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await r.get(path, { ...init, headers: { ...(init.headers as Record<string, string>), "x-forwarded-for": xff(i) } });
    out.push(res.status);
    await res.arrayBuffer();
  }
  return out;
};

describe("TRUST_PROXY", () => {
  test("rotating the left-most X-Forwarded-For entry gets no fresh API bucket; distinct clients of the proxy do", async () => {
    const spoofed = await statuses(g, "/api/v1", (i) => `198.51.100.${i + 1}, 203.0.113.9`, 8);
    expect(spoofed).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // The control: eight real clients the proxy names, each its own bucket.
    const distinct = await statuses(g, "/api/v1", (i) => `203.0.113.${i + 20}`, 8);
    expect(distinct.every((s) => s === 200)).toBe(true);
  });

  test("the sign-in bucket counts the same client", async () => {
    const init = { method: "POST", headers: { "content-type": "application/json" }, body: "{}" } as RequestInit;
    const codes = await statuses(g, "/auth/passkey/login/verify", (i) => `192.0.2.${i}, 203.0.113.77`, 25, init);
    expect(codes.filter((s) => s === 429).length).toBe(5); // 20 per minute
  });

  test("live connections: one client address holds LIVE_MAX_PER_IP, whatever it writes on the left", async () => {
    const open: LiveClient[] = [];
    try {
      for (let i = 0; i < 2; i++) open.push(await liveClient(g.url, "FN", { "x-forwarded-for": `10.9.9.${i}, 203.0.113.50` }));
      const upgrade = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" };
      const over = await g.get("/ws?region=FN", { headers: { ...upgrade, "x-forwarded-for": "10.9.9.99, 203.0.113.50" } });
      expect(over.status).toBe(429);
      // Another client behind the same proxy still gets in.
      open.push(await liveClient(g.url, "FN", { "x-forwarded-for": "203.0.113.51" }));
    } finally {
      await Promise.all(open.map((c) => c.close()));
    }
  });

  test("IPv6 clients count by their /64: 30 addresses of one /64 share a limit of 5; another /64 has its own", async () => {
    const same64 = await statuses(g, "/api/v1", (i) => `2001:db8:aa:1:${(i + 1).toString(16)}::${i * 7 + 1}`, 30);
    expect(same64.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(same64.slice(5).every((s) => s === 429)).toBe(true);
    const other = await g.get("/api/v1", { headers: { "x-forwarded-for": "2001:db8:aa:2::1" } });
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit-remaining")).toBe("4");
    const refused = await g.get("/api/v1", { headers: { "x-forwarded-for": "[2001:db8:aa:1:ffff::9]" } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("an IPv4 client written IPv4-mapped is the same client as written dotted, and not its neighbour", async () => {
    const mixed = await statuses(g, "/api/v1", (i) => (i % 2 ? "::ffff:198.51.100.77" : "198.51.100.77"), 6);
    expect(mixed).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await g.get("/api/v1", { headers: { "x-forwarded-for": "198.51.100.78" } })).status).toBe(200);
  });

  test("a peer that is not a trusted proxy is counted by its own address, X-Forwarded-For ignored", async () => {
    const codes = await statuses(far, "/api/v1", (i) => `203.0.113.${i + 100}`, 7);
    expect(codes).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  test("the chain is read right to left past every trusted proxy", () => {
    const proxies = parseRanges("127.0.0.0/8,::1,10.0.0.0/8").ranges;
    expect(forwardedClient("127.0.0.1", "1.1.1.1, 203.0.113.5, 10.0.0.2", proxies)).toBe("203.0.113.5");
    expect(forwardedClient("::ffff:127.0.0.1", "203.0.113.5", proxies)).toBe("203.0.113.5");
    expect(forwardedClient("192.0.2.1", "203.0.113.5", proxies)).toBe("192.0.2.1");
    expect(forwardedClient("127.0.0.1", "10.0.0.3, 10.0.0.2", proxies)).toBe("10.0.0.3");
    expect(forwardedClient("127.0.0.1", null, proxies)).toBe("127.0.0.1");
  });

  test("what a limit counts an address as", () => {
    expect(countedAddress("2001:db8:1:2:aaaa::7")).toBe("2001:db8:1:2::/64");
    expect(countedAddress("2001:DB8:1:2::")).toBe("2001:db8:1:2::/64");
    expect(countedAddress("::1")).toBe("0:0:0:0::/64");
    expect(countedAddress("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(countedAddress("192.0.2.1")).toBe("192.0.2.1");
    expect(countedAddress("unknown")).toBe("unknown");
  });
});
