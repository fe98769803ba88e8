import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { startDoh, type DohServer } from "../helpers/doh.ts";
import { count } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { getPeer, upsertPeer } from "../../src/fed/peers.ts";
import { pullPeer, syncAll } from "../../src/fed/sync.ts";
import { applyFrames } from "../../src/fed/apply.ts";
import { refreshRegistry, signRegistry } from "../../src/fed/registry.ts";
import { jsonTxtData, resolveTxt } from "../../src/fed/doh.ts";
import { feedFrame } from "../helpers/fed.ts";
import { check } from "../../src/lib/schema.ts";
import { REGISTRY_VIEW } from "../../src/fed/shapes.ts";

const INGEST = "ingest-secret-0123456789";
const ingest = { "x-ingest-secret": INGEST };
const json = async (r: Response) => (await r.json()) as any;
const cache = (name: string) => cacheToWire({ name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 47.1, lon: 8.1, status: "active" });

const kP = generateKeyPair(); // n0xyz's gateway, on 44net
const kQ = generateKeyPair(); // n0qrs's gateway
const kReg = generateKeyPair(); // the registry authority
const kR1 = generateKeyPair();
const kR2 = generateKeyPair();

let doh: DohServer; // wire and JSON
let dohJson: DohServer; // JSON form only
let P: Running;
let Q: Running;
let R1: Running;
let R2: Running;
let O: Running; // the operator's gateway, onboarding peers
let registryDoc: unknown;
let registryServer: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  P = await startInProcess({ INSTANCE: "n0xyz-gw", FED_PRIVATE_KEY: kP.privateKey });
  Q = await startInProcess({ INSTANCE: "n0qrs-gw", FED_PRIVATE_KEY: kQ.privateKey });
  R1 = await startInProcess({ INSTANCE: "gw-r1", FED_PRIVATE_KEY: kR1.privateKey });
  R2 = await startInProcess({ INSTANCE: "gw-r2", FED_PRIVATE_KEY: kR2.privateKey });
  const zone = {
    "_svc.n0xyz.ampr.org": { txt: [`v=svc1; id=n0xyz-gw; key=${kP.publicKey}`], ad: true },
    "_svc.n0qrs.ampr.org": { txt: ["unrelated=1", `v=svc1; id=n0qrs-gw; key=${kQ.publicKey}`], ad: false },
    // DNS names P's instance with another key: its descriptor contradicts that
    "_svc.n0bad.ampr.org": { txt: [`v=svc1; id=n0xyz-gw; key=${generateKeyPair().publicKey}`], ad: true },
    // nobody answers at n0off.ampr.org: DNS alone decides
    "_svc.n0off.ampr.org": { txt: [`v=svc1; id=n0off-gw; key=${generateKeyPair().publicKey}`], ad: true },
    "_svc.n0two.ampr.org": { txt: [`v=svc1; id=a-gw; key=${kP.publicKey}`, `v=svc1; id=b-gw; key=${kQ.publicKey}`], ad: true },
  };
  doh = startDoh(zone);
  dohJson = startDoh(zone, "json");
  registryServer = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json(registryDoc) });
  const map = [
    "on",
    `n0xyz.ampr.org=${new URL(P.url).port}`,
    `n0qrs.ampr.org=${new URL(Q.url).port}`,
    `n0bad.ampr.org=${new URL(P.url).port}`,
    `gw-r1.example.org=${new URL(R1.url).port}`,
  ].join(",");
  O = await startInProcess({
    INSTANCE: "gw-o",
    FED_PRIVATE_KEY: generateKeyPair().privateKey,
    INGEST_SECRET: INGEST,
    ADMIN_CALLSIGNS: "N0OPS",
    DOH_URL: doh.url,
    FED_LOOPBACK_PEERS: map,
    FED_REGISTRY: `http://127.0.0.1:${registryServer.port}/registry.json`,
    FED_REGISTRY_KEY: kReg.publicKey,
  });
});
afterAll(async () => {
  await Promise.all([P.stop(), Q.stop(), R1.stop(), R2.stop(), O.stop()]);
  doh.stop();
  dohJson.stop();
  registryServer.stop(true);
});

const onboard = (body: unknown) => O.post("/federation/peers/44net", body, { headers: ingest });

describe("DoH", () => {
  test("TXT over the wire form and the JSON form give the same records and the AD flag; long records are joined", async () => {
    doh.zone["_long.example.org"] = { txt: ["x".repeat(300) + "; end"], ad: false };
    const w = await resolveTxt(O.gw, "_svc.n0xyz.ampr.org");
    expect(w).toMatchObject({ form: "wire", dnssec: true, rcode: "NOERROR", records: [`v=svc1; id=n0xyz-gw; key=${kP.publicKey}`] });
    expect((await resolveTxt(O.gw, "_long.example.org")).records).toEqual(["x".repeat(300) + "; end"]);
    expect((await resolveTxt(O.gw, "_nothing.example.org")).rcode).toBe("NXDOMAIN");
    expect(jsonTxtData('"a\\"b" "c\\059d"')).toBe('a"bc;d');
  });
});

describe("44net onboarding", () => {
  test("with DNSSEC (AD) and a matching live descriptor the peer is admitted at once: unvetted, pinned, verified_via coord-lot", async () => {
    const r = await onboard({ callsign: "n0xyz" });
    expect(r.status).toBe(201);
    const a = await json(r);
    expect(a).toMatchObject({
      admitted: true,
      binding: { callsign: "N0XYZ", host: "n0xyz.ampr.org", instance: "n0xyz-gw", key: kP.publicKey, dnssec: true, descriptor: "matches", form: "wire" },
    });
    expect(a.peer).toMatchObject({
      instance: "n0xyz-gw",
      trust: "unvetted",
      verifiedVia: "coord-lot",
      foundVia: "44net",
      keyPin: kP.publicKey,
      syncUrl: "http://n0xyz.ampr.org",
    });
    expect(a.peer.endpoints).toEqual([{ transport: "ampr", address: "n0xyz.ampr.org", priority: 0 }]);
    // and it is synced over plain HTTP to its ampr host
    publishRecord(P.gw, "cache", 1, cache("On 44net"));
    const s = await pullPeer(O.gw, "n0xyz-gw");
    expect(s).toMatchObject({ ok: true, url: "http://n0xyz.ampr.org" });
    expect(count(O.gw, "mirror_caches", "origin = 'n0xyz-gw'")).toBe(1);
  });

  test("an onboarded peer that sets no FED_ENDPOINTS keeps its <call>.ampr.org endpoint after a pull, and is pulled a second time", async () => {
    // P publishes a signed peer record with no endpoints of its own
    expect((await json(await P.get("/.well-known/svc"))).endpoints).toEqual([]);
    expect(getPeer(O.gw, "n0xyz-gw")!.lastSyncOkAt).not.toBeNull(); // pulled once above
    expect(getPeer(O.gw, "n0xyz-gw")!.endpoints).toEqual([{ transport: "ampr", address: "n0xyz.ampr.org", priority: 0 }]);
    publishRecord(P.gw, "cache", 2, cache("Still on 44net"));
    const s = await pullPeer(O.gw, "n0xyz-gw");
    expect(s).toMatchObject({ ok: true, url: "http://n0xyz.ampr.org", applied: 1 });
    expect(count(O.gw, "mirror_caches", "origin = 'n0xyz-gw'")).toBe(2);
  });

  test("without DNSSEC the binding comes back for confirmation, nothing is admitted; confirm: true pins it", async () => {
    const r = await onboard({ callsign: "N0QRS" });
    expect(r.status).toBe(200);
    const a = await json(r);
    expect(a).toEqual({
      admitted: false,
      needsConfirm: true,
      binding: expect.objectContaining({ instance: "n0qrs-gw", key: kQ.publicKey, dnssec: false, descriptor: "matches" }),
    });
    expect(getPeer(O.gw, "n0qrs-gw")).toBeNull();
    // confirming a key DNS no longer names is refused
    expect((await onboard({ callsign: "N0QRS", confirm: true, key: kP.publicKey })).status).toBe(409);
    expect(getPeer(O.gw, "n0qrs-gw")).toBeNull();
    // a member onboarding does not take is named, and admits nothing; the same body without it admits the peer
    const stray = await onboard({ callsign: "N0QRS", confirm: true, key: kQ.publicKey, trust: "trusted" });
    expect({ status: stray.status, body: await json(stray) }).toEqual({
      status: 400,
      body: { error: "invalid", message: 'body.trust: unknown field "trust"; it takes callsign, confirm, key', field: "body.trust" },
    });
    expect(getPeer(O.gw, "n0qrs-gw")).toBeNull();
    const c = await onboard({ callsign: "N0QRS", confirm: true, key: kQ.publicKey });
    expect(c.status).toBe(201);
    expect(getPeer(O.gw, "n0qrs-gw")).toMatchObject({ trust: "unvetted", keyPin: kQ.publicKey, verifiedVia: "coord-lot" });
  });

  test("a live descriptor that contradicts DNS is refused outright", async () => {
    const r = await onboard({ callsign: "N0BAD", confirm: true });
    expect(r.status).toBe(409);
    expect((await json(r)).error).toBe("dns_contradiction");
    expect(getPeer(O.gw, "n0xyz-gw")!.keyPin).toBe(kP.publicKey);
  });

  test("an unreachable host is admitted on DNS alone; no record, two records or bad input are refused and change nothing", async () => {
    const off = await json(await onboard({ callsign: "N0OFF" }));
    expect(off).toMatchObject({ admitted: true, binding: { descriptor: "unreachable", dnssec: true } });
    const before = count(O.gw, "peers");
    const none = await onboard({ callsign: "N0NONE" });
    expect(none.status).toBe(422);
    expect((await json(none)).error).toBe("no_binding");
    expect((await onboard({ callsign: "N0TWO" })).status).toBe(422);
    for (const bad of [{}, { callsign: "not a call" }, { callsign: "N0XYZ", confirm: "yes" }, { callsign: "N0XYZ", key: "short" }, "nope"]) {
      expect((await onboard(bad)).status).toBe(400);
    }
    expect(count(O.gw, "peers")).toBe(before);
  });

  test("the JSON DoH form works the same (a resolver that does not speak the wire form)", async () => {
    const J = await startInProcess({
      INSTANCE: "gw-j",
      INGEST_SECRET: INGEST,
      DOH_URL: dohJson.url,
      FED_LOOPBACK_PEERS: `n0qrs.ampr.org=${new URL(Q.url).port}`,
    });
    const r = await json(await J.post("/federation/peers/44net", { callsign: "N0QRS" }, { headers: ingest }));
    expect(r).toMatchObject({ admitted: false, binding: { form: "json", dnssec: false, instance: "n0qrs-gw", descriptor: "matches" } });
    const a = await json(await J.post("/federation/peers/44net", { callsign: "N0XYZ" }, { headers: ingest }));
    expect(a).toMatchObject({ admitted: true, binding: { form: "json", dnssec: true, descriptor: "unreachable" } });
    expect(dohJson.seen.json).toBeGreaterThanOrEqual(2);
    await J.stop();
  });
});

describe("registry", () => {
  test("a signed registry binds instances to keys: unknown ones join unvetted; a peer whose key does not match its binding is not mirrored", async () => {
    // R2 is known here, pinned to its own key, but the registry binds it to another.
    upsertPeer(O.gw, { instance: "gw-r2", url: R2.url, trust: "trusted", keyPin: kR2.publicKey });
    publishRecord(R1.gw, "cache", 1, cache("Registered"));
    publishRecord(R2.gw, "cache", 1, cache("Impostor?"));
    registryDoc = signRegistry(kReg.privateKey, {
      name: "test-net",
      at: 1_700_000_100,
      entries: [
        { instance: "gw-r1", keys: [kR1.publicKey], operators: ["N0RA"], aprsCall: "N0RA-10", endpoints: ["https:https://gw-r1.example.org;10"] },
        { instance: "gw-r2", keys: [generateKeyPair().publicKey], operators: ["N0RB"] },
        { instance: "Bad Entry", keys: [], operators: [] },
      ],
    });
    const sync = await json(await O.post("/federation/sync", {}, { headers: ingest }));
    expect(sync.registry).toMatchObject({ ok: true, entries: 2, skipped: 1, added: ["gw-r1"] });
    expect(getPeer(O.gw, "gw-r1")).toMatchObject({ trust: "unvetted", foundVia: "registry", keyPin: kR1.publicKey });
    const r1 = sync.peers.find((p: any) => p.instance === "gw-r1");
    expect(r1).toMatchObject({ ok: true, url: "https://gw-r1.example.org", applied: 1 });
    const r2 = sync.peers.find((p: any) => p.instance === "gw-r2");
    expect(r2.error.code).toBe("registry_mismatch");
    expect(count(O.gw, "mirror_records", "origin = 'gw-r2'")).toBe(0);
    // nor by any other path: the apply pipeline accepts only keys the binding names
    const rep = await applyFrames(O.gw, [feedFrame(R2.gw, "gw-r2:cache:1")], { via: "bbs" });
    expect(rep.reasons).toEqual({ key_not_accepted: 1 });
    // the verified view
    const view = await json(await O.get("/federation/registry"));
    // as declared (a conditional GET answers a Response, which the answer check does not see)
    check(REGISTRY_VIEW, view, "registry view");
    expect(view.registry).toMatchObject({ name: "test-net", signerKey: kReg.publicKey, signedAt: 1_700_000_100, dnssec: null, error: null });
    expect(view.items.find((i: any) => i.instance === "gw-r1").registry).toEqual({
      instance: "gw-r1",
      keys: [kR1.publicKey],
      operators: ["N0RA"],
      aprsCall: "N0RA-10",
    });
    const list = await json(await O.get("/federation/peers", { headers: ingest }));
    expect(list.peers.find((p: any) => p.instance === "gw-r2").registry.matches).toBe(false);
  });

  test("a forged, re-signed by another key, or older registry is refused; the entries held stay", async () => {
    const good = registryDoc as any;
    registryDoc = { ...good, entries: [...good.entries, { instance: "gw-evil", keys: [generateKeyPair().publicKey], operators: [] }] };
    expect((await refreshRegistry(O.gw)).error).toContain("does not verify");
    registryDoc = signRegistry(generateKeyPair().privateKey, { at: 1_700_000_200, entries: [] });
    expect((await refreshRegistry(O.gw)).error).toContain("another key");
    registryDoc = signRegistry(kReg.privateKey, { at: 1_700_000_000, entries: [] });
    expect((await refreshRegistry(O.gw)).error).toContain("older");
    expect(getPeer(O.gw, "gw-evil")).toBeNull();
    expect(count(O.gw, "fed_registry")).toBe(2);
    const stale = await json(await O.get("/federation/registry"));
    check(REGISTRY_VIEW, stale, "registry view");
    expect(stale.registry.error).toContain("stale_registry");
  });

  test("the DNS anchor: FED_REGISTRY_DNS names the document and its key; the AD flag is kept", async () => {
    registryDoc = signRegistry(kReg.privateKey, { at: 1_700_000_300, entries: [{ instance: "gw-r1", keys: [kR1.publicKey], operators: ["N0RA"] }] });
    doh.zone["_svcreg.example.org"] = { txt: [`v=svcreg1; url=http://127.0.0.1:${registryServer.port}/registry.json; key=${kReg.publicKey}`], ad: true };
    const D = await startInProcess({ INSTANCE: "gw-dns", DOH_URL: doh.url, FED_REGISTRY_DNS: "_svcreg.example.org", FED_LOOPBACK_PEERS: "on" });
    const r = await syncAll(D.gw);
    expect(r.registry).toMatchObject({ ok: true, dnssec: true, added: ["gw-r1"] });
    expect(getPeer(D.gw, "gw-r1")).toMatchObject({ trust: "unvetted", foundVia: "registry" });
    doh.zone["_svcreg.example.org"] = { txt: ["v=svcreg1; url=ftp://nope"], ad: true };
    expect((await refreshRegistry(D.gw)).error).toContain("bad_anchor");
    await D.stop();
  });
});
