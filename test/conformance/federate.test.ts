/**
 * Gateways on different runtimes federate with each other and converge: one
 * on Bun, one on Node and one on workerd (a Durable Object through
 * miniflare), each told of the others in FED_PEERS, each hiding caches; one
 * renamed, one archived; after pull rounds all three show the same caches
 * with the same names.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";

import { startOn, type Hosted } from "../helpers/hosts.ts";
import { freePorts } from "../helpers/ports.ts";

const SECRET = "federate-ingest-secret-0123456789";
const BBOX = "-1,49,1,51";
const RUNTIMES = ["bun", "node", "workerd"] as const;
const gws: Record<string, Hosted> = {};

const api = (rt: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
  fetch(gws[rt]!.url + path, {
    ...init,
    headers: { "x-ingest-secret": SECRET, ...(init.json !== undefined ? { "content-type": "application/json" } : {}), ...(init.headers as object) },
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });

async function view(rt: string): Promise<string[]> {
  const r = (await (await api(rt, `/api/caches?bbox=${BBOX}`)).json()) as { caches: Array<{ name: string }> };
  return r.caches.map((c) => c.name).sort();
}

async function round() {
  for (const rt of RUNTIMES) {
    const r = await api(rt, "/federation/sync", { method: "POST", json: {} });
    expect(r.status).toBe(200);
    const report = (await r.json()) as { peers: Array<{ ok: boolean; error: unknown }> };
    expect(report.peers.map((p) => p.error)).toEqual(RUNTIMES.slice(1).map(() => null));
  }
}

beforeAll(async () => {
  const ports = await freePorts(RUNTIMES.length);
  const url = (i: number) => `http://127.0.0.1:${ports[i]}`;
  await Promise.all(
    RUNTIMES.map(async (rt, i) => {
      gws[rt] = await startOn(
        rt,
        {
          INSTANCE: `fed-${rt}`,
          FED_PRIVATE_KEY: generateKeyPair().privateKey,
          FED_PEERS: RUNTIMES.map((_, j) => url(j))
            .filter((_, j) => j !== i)
            .join(","),
          FED_LOOPBACK_PEERS: "on",
          INGEST_SECRET: SECRET,
          PUBLIC_URL: url(i),
        },
        { port: ports[i] },
      );
    }),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(Object.values(gws).map((g) => g.stop()));
});

describe("gateways on Bun, Node and workerd federate and converge", () => {
  test("caches hidden on each, one renamed and one archived, reach the others; all three end with the same view", async () => {
    const made: Record<string, number[]> = {};
    for (const [i, rt] of RUNTIMES.entries()) {
      made[rt] = [];
      for (let k = 0; k < 3; k++) {
        const r = await api(rt, "/api/caches", {
          method: "POST",
          json: {
            name: `${rt} cache ${k}`,
            type: "traditional",
            size: "small",
            difficulty: 2,
            terrain: 2,
            lat: 50 + i / 10 + k / 100,
            lon: 0.1 * k,
            ownerCall: "N0FED",
          },
        });
        expect(r.status).toBe(201);
        made[rt]!.push(((await r.json()) as { id: number }).id);
      }
    }
    await round();
    const all = RUNTIMES.flatMap((rt) => [0, 1, 2].map((k) => `${rt} cache ${k}`)).sort();
    for (const rt of RUNTIMES) expect(await view(rt)).toEqual(all);
    // a rename on Node, an archive on Bun: both travel as signed updates, to each other and to workerd
    expect((await api("node", `/api/caches/${made.node![0]}`, { method: "PATCH", json: { name: "node cache 0, renamed" } })).status).toBe(200);
    expect((await api("bun", `/api/caches/${made.bun![2]}`, { method: "PATCH", json: { status: "archived" } })).status).toBe(200);
    await round();
    const after = all
      .filter((n) => n !== "bun cache 2" && n !== "node cache 0")
      .concat("node cache 0, renamed")
      .sort();
    for (const rt of RUNTIMES) expect({ rt, view: await view(rt) }).toEqual({ rt, view: after });
  }, 120_000);
});
