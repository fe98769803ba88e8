/**
 * Caches over HTTP: hide, read, edit, the lifecycle, owner contact fields that
 * never leave the instance, the map query (boxes across the antimeridian,
 * clusters) and trust-filtered mirrors of other instances' caches.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { count, signed } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { applyFrames } from "../../src/fed/apply.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { cacheToWire, findToWire } from "../../src/lib/fed/bodies.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let owner: TestUser;
let other: TestUser;
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1", INGEST_SECRET: INGEST, FED_PRIVATE_KEY: generateKeyPair().privateKey });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  other = signedInUser(g.gw, "N0OTH", { verified: true });
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
const cache = (over: Record<string, unknown> = {}) => ({
  name: "Old Mill",
  type: "traditional",
  size: "small",
  difficulty: 2.5,
  terrain: 1.5,
  lat: 48.1234567,
  lon: 11.5432101,
  hint: "under the millstone",
  description: "A small box by the old mill.",
  contact: { email: "owner@example.org", phone: "+49 170 0000000" },
  ...over,
});
const hide = (body: unknown, who: TestUser | null = owner) =>
  g.post("/api/caches", body, { headers: who ? { cookie: who.cookie } : { "x-ingest-secret": INGEST } });

/** The record this instance publishes for a gid, decoded. */
function published(gid: string): { v: number; body: Record<string, unknown>; raw: Uint8Array } | null {
  const row = g.gw.db.query("SELECT payload, frame FROM fed_feed WHERE gid = ?").get(gid) as { payload: Uint8Array; frame: Uint8Array } | null;
  if (!row) return null;
  const p = decodePayload(decodeFrame(row.frame).payload);
  return { v: p.v, body: p.body as Record<string, unknown>, raw: row.payload };
}

describe("hiding and reading caches", () => {
  test("a signed-in user hides a cache as their callsign; it is published without the contact fields", async () => {
    const r = await hide(cache());
    expect(r.status).toBe(201);
    const c = await json(r);
    expect(c).toMatchObject({
      name: "Old Mill",
      ownerCall: "N0OWN",
      status: "active",
      difficulty: 2.5,
      terrain: 1.5,
      lat: 48.1234567,
      lon: 11.5432101,
      gid: `gw1:cache:${c.id}`,
      mirror: false,
    });
    expect(c.contact).toEqual({ email: "owner@example.org", phone: "+49 170 0000000" });
    const rec = published(c.gid)!;
    expect(rec.body).toMatchObject({
      name: "Old Mill",
      latE7: 481234567,
      lonE7: 115432101,
      difficultyX10: 25,
      terrainX10: 15,
      status: "active",
      ownerCall: "N0OWN",
    });
    expect(String(rec.body.ownerAccount)).toStartWith("gw1:account:");
    const bytes = new TextDecoder("latin1").decode(rec.raw);
    expect(bytes).not.toContain("owner@example.org");
    expect(bytes).not.toContain("+49 170");
    expect(Object.keys(rec.body)).not.toContain("contact");
  });

  test("the detail shows contact fields to signed-in users of this instance only", async () => {
    const c = await json(await hide(cache({ name: "Contact test" })));
    const anon = await json(await g.get(`/api/caches/${c.id}`));
    expect(anon.name).toBe("Contact test");
    expect(anon).not.toHaveProperty("contact");
    expect(JSON.stringify(anon)).not.toContain("owner@example.org");
    const signed = await json(await g.get(`/api/caches/${c.id}`, { headers: { cookie: other.cookie } }));
    expect(signed.contact.email).toBe("owner@example.org");
    expect((await json(await g.get(`/api/caches/${encodeURIComponent(c.gid)}`))).id).toBe(c.id);
  });

  test("the ingest box hides a cache for an RF callsign; without a gate it is refused", async () => {
    const r = await hide(cache({ name: "RF hide", ownerCall: "n0rf-7" }), null);
    expect(r.status).toBe(201);
    expect((await json(r)).ownerCall).toBe("N0RF-7");
    expect((await hide(cache({ name: "RF hide" }), null)).status).toBe(400); // the box must name the owner
    const before = count(g.gw, "caches");
    expect((await g.post("/api/caches", cache())).status).toBe(401);
    expect(count(g.gw, "caches")).toBe(before);
  });

  test("bad input is a 400 naming the field, and nothing is stored", async () => {
    const before = count(g.gw, "caches");
    const feed = count(g.gw, "fed_feed");
    for (const [bad, field] of [
      [{ difficulty: 2.3 }, "difficulty"],
      [{ terrain: 6 }, "terrain"],
      [{ difficulty: 0.5 }, "difficulty"],
      [{ lat: 91 }, "lat"],
      [{ lon: -181 }, "lon"],
      [{ type: "living" }, "type"],
      [{ size: "huge" }, "size"],
      [{ name: "" }, "name"],
      [{ contact: { address: "1 Main St" } }, "contact.address"],
      [{ status: "archived" }, "new cache"],
      [{ color: "red" }, "color"],
    ] as const) {
      const r = await hide(cache(bad));
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 });
      expect((await json(r)).message).toContain(field);
    }
    expect((await g.post("/api/caches", "{nope", { headers: { cookie: owner.cookie } })).status).toBe(400);
    // a choice of fixed values names them, not "'string', 'string', ..."
    expect((await json(await hide(cache({ type: "earthcache" })))).message).toBe(
      "body.type: must be one of traditional, multi, mystery, letterbox, virtual, event, cito, audio, earth, webcam, other",
    );
    expect(count(g.gw, "caches")).toBe(before);
    expect(count(g.gw, "fed_feed")).toBe(feed);
  });

  test("a user without a callsign cannot hide a cache", async () => {
    const id = Number(g.gw.db.query("INSERT INTO users (created_at) VALUES (?)").run(Date.now()).lastInsertRowid);
    const { createSession, SESSION_COOKIE } = await import("../../src/accounts/sessions.ts");
    const cookie = `${SESSION_COOKIE}=${createSession(g.gw.db, id, Date.now())}`;
    const r = await g.post("/api/caches", cache(), { headers: { cookie } });
    expect(r.status).toBe(403);
    expect((await json(r)).error).toBe("callsign_required");
  });
});

describe("lifecycle", () => {
  test("draft -> active -> disabled -> active -> archived; archived is final; drafts are the owner's alone and never published", async () => {
    const c = await json(await hide(cache({ name: "Lifecycle", status: "draft" })));
    expect(c.status).toBe("draft");
    expect(published(c.gid)).toBeNull();
    expect((await g.get(`/api/caches/${c.id}`)).status).toBe(404);
    expect((await g.get(`/api/caches/${c.id}`, { headers: { cookie: other.cookie } })).status).toBe(404);
    expect((await g.get(`/api/caches/${c.id}`, { headers: { cookie: owner.cookie } })).status).toBe(200);
    const patch = (body: unknown, who = owner) =>
      g.get(`/api/caches/${c.id}`, { method: "PATCH", body: JSON.stringify(body), headers: { cookie: who.cookie, "content-type": "application/json" } });
    expect((await patch({ status: "disabled" })).status).toBe(409);
    expect((await patch({ status: "active" })).status).toBe(200);
    expect(published(c.gid)!.body.status).toBe("active");
    expect((await patch({ name: "Stolen" }, other)).status).toBe(403);
    expect((await patch({ status: "disabled" })).status).toBe(200);
    expect(published(c.gid)!.body.status).toBe("disabled");
    expect((await patch({ status: "active", name: "Lifecycle 2", difficulty: 4 })).status).toBe(200);
    expect(published(c.gid)!.body).toMatchObject({ status: "active", name: "Lifecycle 2", difficultyX10: 40 });
    expect((await patch({ status: "archived" })).status).toBe(200);
    const v = published(c.gid)!.v;
    const r = await patch({ status: "active" });
    expect(r.status).toBe(409);
    expect((await json(r)).error).toBe("bad_transition");
    expect((await patch({ name: "x" })).status).toBe(409);
    expect(published(c.gid)!.v).toBe(v);
    expect((await patch({ difficulty: 7 })).status).toBe(400);
  });

  test("an unlisted cache is off the map and its record withholds the description", async () => {
    const c = await json(await hide(cache({ name: "Hidden gem", unlisted: true, lat: 10.5, lon: 10.5 })));
    const rec = published(c.gid)!;
    expect(rec.body.unlisted).toBe(true);
    expect(rec.body).not.toHaveProperty("description");
    const map = await json(await g.get("/api/caches?bbox=10,10,11,11"));
    expect(map.caches.map((x: any) => x.id)).not.toContain(c.id);
    expect((await json(await g.get(`/api/caches/${c.id}`))).description).toBe("A small box by the old mill.");
    const sitemap = await (await g.get("/sitemap.xml")).text();
    expect(sitemap).not.toContain(`/cache/${c.id}<`);
    expect(sitemap).toContain("/cache/1</loc><lastmod>");
  });
});

describe("the map query", () => {
  test("bbox is minLon,minLat,maxLon,maxLat; a box across the antimeridian works", async () => {
    const east = await json(await hide(cache({ name: "Fiji side", lat: -17.5, lon: 179.9 })));
    const west = await json(await hide(cache({ name: "Samoa side", lat: -17.6, lon: -179.9 })));
    const far = await json(await hide(cache({ name: "Far away", lat: -17.5, lon: 170 })));
    const across = await json(await g.get("/api/caches?bbox=179.5,-18,-179.5,-17"));
    const ids = across.caches.map((x: any) => x.id);
    expect(ids).toContain(east.id);
    expect(ids).toContain(west.id);
    expect(ids).not.toContain(far.id);
    expect(across.clustered).toBe(false);
    // lat/lon swapped is a different (empty) box, not the same answer
    expect((await g.get("/api/caches?bbox=-18,179.5,-17,-179.5")).status).toBe(400);
    for (const bad of ["", "1,2,3", "a,b,c,d", "0,10,1,5", "0,-91,1,0", "-181,0,0,1"]) {
      const r = await g.get(`/api/caches?bbox=${bad}`);
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 });
    }
    // limit is 1-2000, as documented: outside it a 400 naming it, not a silent clamp.
    for (const limit of ["0", "5000", "-1", "2001"]) {
      const r = await g.get(`/api/caches?bbox=179.5,-18,-179.5,-17&limit=${limit}`);
      expect({ limit, status: r.status, body: await r.json() }).toMatchObject({
        limit,
        status: 400,
        body: { error: "invalid", message: "limit must be 1-2000" },
      });
    }
    for (const limit of ["1", "2000"]) expect((await g.get(`/api/caches?bbox=179.5,-18,-179.5,-17&limit=${limit}`)).status).toBe(200);
  });

  test("a box with more caches than the limit answers bounded clusters that add up", async () => {
    g.gw.db.transaction(() => {
      for (let i = 0; i < 300; i++) {
        g.gw.db
          .query(
            "INSERT INTO caches (owner_call, name, type, size, difficulty, terrain, lat, lon, status, placed_at, created_at, updated_at) VALUES ('N0BULK', ?, 'traditional', 'small', 1, 1, ?, ?, 'active', 0, 0, 0)",
          )
          .run(`Bulk ${i}`, 30 + (i % 20) * 0.1, -100 + Math.floor(i / 20) * 0.1);
      }
    })();
    const r = await json(await g.get("/api/caches?bbox=-101,29,-98,33&limit=100"));
    expect(r.clustered).toBe(true);
    expect(r.caches).toEqual([]);
    expect(r.total).toBe(300);
    expect(r.clusters.reduce((s: number, c: any) => s + c.count, 0)).toBe(300);
    expect(r.clusters.length).toBeLessThanOrEqual(24 * 24);
    for (const c of r.clusters) {
      expect(c.lat).toBeGreaterThanOrEqual(c.bbox[1]);
      expect(c.lat).toBeLessThanOrEqual(c.bbox[3]);
      expect(c.lon).toBeGreaterThanOrEqual(c.bbox[0]);
      expect(c.lon).toBeLessThanOrEqual(c.bbox[2]);
    }
    const world = await json(await g.get("/api/caches?bbox=-180,-90,180,90&limit=100"));
    expect(world.clustered).toBe(true);
    expect(world.clusters.length).toBeLessThanOrEqual(24 * 24);
    // the world view is counted from the per-cell totals: they agree with the caches (after hides, edits, archiving, unlisting)
    expect(world.total).toBe(count(g.gw, "caches", "status IN ('active', 'disabled') AND unlisted = 0"));
    g.gw.db.query("UPDATE caches SET status = 'archived' WHERE name = 'Bulk 7'").run();
    g.gw.db.query("UPDATE caches SET lat = -40, lon = 170 WHERE name = 'Bulk 8'").run();
    g.gw.db.query("DELETE FROM caches WHERE name = 'Bulk 9'").run();
    const after = await json(await g.get("/api/caches?bbox=-180,-90,180,90&limit=100"));
    expect(after.total).toBe(world.total - 2);
    expect(after.clusters.some((c: any) => c.lat === -40 && c.lon === 170 && c.count === 1)).toBe(true);
    const small = await json(await g.get("/api/caches?bbox=-100.05,29.95,-99.95,30.05"));
    expect(small.clustered).toBe(false);
    expect(small.caches.map((c: any) => c.name)).toEqual(["Bulk 0"]);
  });

  test("search filters narrow the map: type, size, difficulty, terrain, owner, q", async () => {
    await hide(cache({ name: "Filter multi", type: "multi", size: "large", difficulty: 4, terrain: 3, lat: 60.1, lon: 20.1 }));
    await hide(cache({ name: "Filter trad", type: "traditional", size: "micro", difficulty: 1, terrain: 1, lat: 60.2, lon: 20.2 }));
    const names = async (q: string) => (await json(await g.get(`/api/caches?bbox=20,60,21,61&${q}`))).caches.map((c: any) => c.name).sort();
    expect(await names("type=multi")).toEqual(["Filter multi"]);
    expect(await names("size=micro,large")).toEqual(["Filter multi", "Filter trad"]);
    expect(await names("difficulty=3.5-5")).toEqual(["Filter multi"]);
    expect(await names("terrain=1")).toEqual(["Filter trad"]);
    expect(await names("owner=N0OWN&q=trad")).toEqual(["Filter trad"]);
    expect((await g.get("/api/caches?bbox=20,60,21,61&difficulty=7")).status).toBe(400);
  });
});

describe("living caches", () => {
  test("a station that is a cache (/api/me/cache) shows on the cache map at its beacon", async () => {
    const op = signedInUser(g.gw, "N0LIV-7", { verified: true });
    const r = await g.post("/api/me/cache", { name: "Rover" }, { headers: { cookie: op.cookie } });
    expect(r.status).toBeLessThan(300);
    await g.post("/ingest", { packets: ["N0LIV-7>APRS,WIDE1-1,qAR,DB0IG-10:!4530.00N/00730.00E["] }, { headers: { "x-ingest-secret": INGEST } });
    const map = await json(await g.get("/api/caches?bbox=7,45,8,46"));
    expect(map.caches).toEqual([expect.objectContaining({ type: "living", name: "Rover", station: "N0LIV-7", lat: 45.5, lon: 7.5 })]);
    expect((await json(await g.get("/api/caches?bbox=7,45,8,46&type=multi"))).caches).toEqual([]);
  });

  test("a living cache is read at the id the map gives it and takes logs, which stay on this instance", async () => {
    const fox = signedInUser(g.gw, "N0FOX-7", { verified: true });
    expect((await g.post("/api/me/cache", { name: "The fox" }, { headers: { cookie: fox.cookie } })).status).toBeLessThan(300);
    await g.post("/ingest", { packets: ["N0FOX-7>APRS,WIDE1-1,qAR,DB0IG-10:!4630.00N/00830.00E["] }, { headers: { "x-ingest-secret": INGEST } });
    const onMap = (await json(await g.get("/api/caches?bbox=8,46,9,47"))).caches.find((c: any) => c.name === "The fox");
    expect(onMap.id).toMatch(/^living-\d+$/);
    const detail = await g.get(`/api/caches/${onMap.id}`);
    expect(detail.status).toBe(200);
    expect(await json(detail)).toMatchObject({ id: onMap.id, gid: onMap.gid, type: "living", station: "N0FOX-7", lat: 46.5, lon: 8.5, finds: 0 });
    expect((await json(await g.get(`/api/caches/${encodeURIComponent(onMap.gid)}`))).id).toBe(onMap.id);
    expect((await g.get("/api/caches/living-999999")).status).toBe(404);
    // A hunter logs a find; the fox itself cannot.
    const hunter = signedInUser(g.gw, "N0HNT", { verified: true });
    const own = await g.post(`/api/caches/${onMap.id}/logs`, { kind: "find" }, { headers: { cookie: fox.cookie } });
    expect([own.status, (await json(own)).error]).toEqual([409, "own_cache"]);
    const found = await g.post(`/api/caches/${onMap.id}/logs`, { kind: "find", text: "caught it" }, { headers: { cookie: hunter.cookie } });
    expect(found.status).toBe(201);
    const log = await json(found);
    expect(log).toMatchObject({ cacheGid: onMap.gid, kind: "find", call: "N0HNT" });
    expect((await json(await g.get(`/api/caches/${onMap.id}/logs`))).logs.map((l: any) => l.text)).toEqual(["caught it"]);
    expect((await json(await g.get(`/api/caches/${onMap.id}`))).finds).toBe(1);
    // Not federated: peers never received the living cache, so the find is not published.
    // Positive control: a find on a native cache is.
    const native = await json(await hide(cache({ name: "Fixed one", lat: 46.6, lon: 8.6 })));
    const nativeLog = await json(await g.post(`/api/caches/${native.id}/logs`, { kind: "find" }, { headers: { cookie: hunter.cookie } }));
    const published = (await json(await g.get("/federation/finds?limit=1000"))).items.map((i: any) => i.gid);
    expect(published).toContain(nativeLog.gid);
    expect(published).not.toContain(log.gid);
  });
});

describe("mirrored caches of other instances", () => {
  test("a listed mirror counts its mirrored finds and the finds logged here, withdrawn ones and DNFs not", async () => {
    const k = generateKeyPair();
    upsertPeer(g.gw, { instance: "gwf", trust: "trusted", keyPin: k.publicKey });
    const frame = (type: 1 | 2, gid: string, body: unknown) => signed(k.privateKey, { type, gid, origin: "gwf", v: 1, body: body as never });
    const frames = [
      frame(
        1,
        "gwf:cache:1",
        cacheToWire({
          name: "Counted",
          type: "traditional",
          size: "small",
          difficulty: 2,
          terrain: 2,
          lat: -41.3,
          lon: 174.8,
          status: "active",
          ownerCall: "ZL2ABC",
        }),
      ),
      frame(
        1,
        "gwf:cache:2",
        cacheToWire({
          name: "Quiet",
          type: "traditional",
          size: "small",
          difficulty: 2,
          terrain: 2,
          lat: -41.31,
          lon: 174.81,
          status: "active",
          ownerCall: "ZL2ABC",
        }),
      ),
      frame(2, "gwf:find:1", findToWire({ cache: "gwf:cache:1", kind: "find", loggedAt: 1_700_000_000_000, call: "ZL1AAA" })),
      frame(2, "gwf:find:2", findToWire({ cache: "gwf:cache:1", kind: "find", loggedAt: 1_700_000_000_000, call: "ZL1BBB" })),
      frame(2, "gwf:find:3", findToWire({ cache: "gwf:cache:1", kind: "dnf", loggedAt: 1_700_000_000_000, call: "ZL1CCC" })),
      frame(2, "gwf:find:4", findToWire({ cache: "gwf:cache:1", kind: "find", loggedAt: 1_700_000_000_000, call: null, state: "withdrawn" })),
    ];
    expect((await applyFrames(g.gw, frames, { via: "test" })).applied).toBe(frames.length);
    const here = signedInUser(g.gw, "N0MIR", { verified: true });
    expect((await g.post(`/api/caches/${encodeURIComponent("gwf:cache:1")}/logs`, { kind: "find" }, { headers: { cookie: here.cookie } })).status).toBe(201);
    const listed = await json(await g.get("/api/caches?bbox=174.7,-41.4,174.9,-41.2"));
    expect(listed.clustered).toBe(false);
    const finds = Object.fromEntries(listed.caches.map((c: any) => [c.id, c.finds]));
    expect(finds).toEqual({ "gwf:cache:1": 3, "gwf:cache:2": 0 });
    expect((await json(await g.get(`/api/caches/${encodeURIComponent("gwf:cache:1")}`))).finds).toBe(3);
  });

  test("trusted peers are shown, unvetted hidden unless asked for, blocked never", async () => {
    const peers = { gwt: "trusted", gwu: "unvetted", gwb: "blocked" } as const;
    for (const [instance, trust] of Object.entries(peers)) {
      const k = generateKeyPair();
      upsertPeer(g.gw, { instance, trust: trust === "blocked" ? "trusted" : trust, keyPin: k.publicKey });
      const frame = signed(k.privateKey, {
        type: 1,
        gid: `${instance}:cache:1`,
        origin: instance,
        v: 1,
        body: cacheToWire({
          name: `From ${instance}`,
          type: "traditional",
          size: "small",
          difficulty: 2,
          terrain: 2,
          lat: -33.9,
          lon: 151.2,
          status: "active",
          ownerCall: "VK2ABC",
        }) as never,
      });
      const r = await applyFrames(g.gw, [frame], { via: "test" });
      expect(r.applied).toBe(1);
      if (trust === "blocked") upsertPeer(g.gw, { instance, trust: "blocked" });
    }
    const names = async (q = "") => (await json(await g.get(`/api/caches?bbox=151,-34,152,-33${q}`))).caches.map((c: any) => c.name).sort();
    expect(await names()).toEqual(["From gwt"]);
    expect(await names("&unvetted=1")).toEqual(["From gwt", "From gwu"]);
    const t = await json(await g.get(`/api/caches/${encodeURIComponent("gwt:cache:1")}`));
    expect(t).toMatchObject({ id: "gwt:cache:1", mirror: true, origin: "gwt", trust: "trusted", name: "From gwt" });
    expect((await g.get(`/api/caches/${encodeURIComponent("gwb:cache:1")}`)).status).toBe(404);
  });
});
