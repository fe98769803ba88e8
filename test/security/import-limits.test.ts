/**
 * Catalog import limits, as an account sees them over HTTP: a size cap per
 * account (small without a verified callsign), refused with 413 before the
 * file is imported, and a per-account rate limit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { catalogGpx } from "../helpers/catalog.ts";
import { count } from "../helpers/fed.ts";
import { IMPORTS_PER_MINUTE } from "../../src/exports/routes.ts";
import { MAX_IMPORT_BYTES, MAX_IMPORT_BYTES_UNVERIFIED } from "../../src/game/import.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "import-gw", INGEST_SECRET: INGEST });
});
afterAll(() => g.stop());

const post = (u: TestUser, body: BodyInit) =>
  g.get("/api/import/gpx", { method: "POST", body, headers: { cookie: u.cookie, "content-type": "application/gpx+xml" } });
const imported = (prefix: string) => count(g.gw, "caches", `source = 'catalog' AND source_ref LIKE '${prefix}%'`);

describe("catalog import limits", () => {
  test("a file over the cap is refused with 413 and imports nothing, declared or streamed; a file under it imports", async () => {
    const u = signedInUser(g.gw, "N0BIG", { verified: true });
    const big = catalogGpx(7000, { prefix: "GCO", pad: 1200 });
    expect(big.length).toBeGreaterThan(MAX_IMPORT_BYTES);
    const r = await post(u, big);
    expect(r.status).toBe(413);
    expect(await r.json()).toEqual({ error: "body_too_large", message: expect.any(String) });
    expect(imported("GCO")).toBe(0);

    // Without a Content-Length (a chunked upload) the stream is counted.
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 256 * 1024) c.enqueue(bytes.subarray(i, i + 256 * 1024));
        c.close();
      },
    });
    const chunked = await post(u, stream);
    expect(chunked.status).toBe(413);
    expect((await chunked.json()).error).toBe("body_too_large");
    expect(imported("GCO")).toBe(0);

    // Positive control: the same account imports a file under the cap.
    const ok = await post(u, catalogGpx(50, { prefix: "GCO", pad: 1200 }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ caches: 50, created: 50 });
    expect(imported("GCO")).toBe(50);
  });

  test("an account without a verified callsign has a much smaller cap; a verified one and the ingest box import the same file", async () => {
    const file = catalogGpx(400, { prefix: "GCU", pad: 1200 });
    expect(file.length).toBeGreaterThan(MAX_IMPORT_BYTES_UNVERIFIED);
    expect(file.length).toBeLessThan(MAX_IMPORT_BYTES / 4);
    const unverified = signedInUser(g.gw, "N0UNV");
    const r = await post(unverified, file);
    expect(r.status).toBe(413);
    expect((await r.json()).error).toBe("body_too_large");
    expect(imported("GCU")).toBe(0);
    // A small file is fine for them.
    const small = await post(unverified, catalogGpx(20, { prefix: "GCS" }));
    expect(small.status).toBe(200);
    expect(imported("GCS")).toBe(20);
    // Positive control: the same file from a verified account, and from the operator's ingest box.
    const verified = signedInUser(g.gw, "N0VER", { verified: true });
    expect((await post(verified, file)).status).toBe(200);
    expect(imported("GCU")).toBe(400);
    const viaIngest = await g.get("/api/import/gpx", {
      method: "POST",
      body: catalogGpx(400, { prefix: "GCI", pad: 1200 }),
      headers: { "x-ingest-secret": INGEST, "content-type": "application/gpx+xml" },
    });
    expect(viaIngest.status).toBe(200);
    expect(imported("GCI")).toBe(400);
  });

  test(`at most ${IMPORTS_PER_MINUTE} imports a minute per account: then 429, while another account from the same address still imports`, async () => {
    const u = signedInUser(g.gw, "N0RAT", { verified: true });
    const file = catalogGpx(3, { prefix: "GCR" });
    for (let i = 0; i < IMPORTS_PER_MINUTE; i++) expect((await post(u, file)).status).toBe(200);
    const over = await post(u, catalogGpx(3, { prefix: "GCX" }));
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ error: "rate_limited", message: expect.any(String) });
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(imported("GCX")).toBe(0);
    const other = signedInUser(g.gw, "N0OTH", { verified: true });
    expect((await post(other, catalogGpx(3, { prefix: "GCX" }))).status).toBe(200);
    expect(imported("GCX")).toBe(3);
  });

  test("a broken file is still a 400 that imports nothing (the batched parser checks the whole file first)", async () => {
    const u = signedInUser(g.gw, "N0BRK", { verified: true });
    const good = catalogGpx(300, { prefix: "GCK" });
    // The damage is near the end: nothing before it may be written.
    const broken = good.replace(/<name>GCK7A<\/name>/, "<name>GCK7A</nam>");
    expect(broken).not.toBe(good);
    const r = await post(u, broken);
    expect(r.status).toBe(400);
    expect((await r.json()).error).toBe("bad_gpx");
    expect(imported("GCK")).toBe(0);
    expect((await post(u, good)).status).toBe(200);
    expect(imported("GCK")).toBe(300);
  });

  test("a large import's write batches each pass the write gate: while a checkpoint holds it, the import waits, then completes", async () => {
    const u = signedInUser(g.gw, "N0GAT", { verified: true });
    const gate = g.gw.writeGate;
    let atHold = -1;
    // the gate closes once the first batches are written, as the checkpointer closes it
    const watch = setInterval(() => {
      if (atHold < 0 && imported("GCG") > 0) {
        gate.hold();
        atHold = imported("GCG");
      }
    }, 1);
    const importing = post(u, catalogGpx(4000, { prefix: "GCG", pad: 200 }));
    try {
      while (atHold < 0) await Bun.sleep(5);
      await Bun.sleep(300);
      expect(atHold).toBeLessThan(4000);
      expect(imported("GCG")).toBe(atHold);
    } finally {
      clearInterval(watch);
      gate.release();
    }
    const r = await importing;
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ caches: 4000, created: 4000 });
    expect(imported("GCG")).toBe(4000);
  });

  test("a file of a million tags with its only references at the end is checked in linear time", async () => {
    const file = catalogGpx(3, { prefix: "GCMT" }).replace(/(<gpx[^>]*>)/, `$1${"<x/>".repeat(1_000_000)}`);
    expect(file.length).toBeLessThan(MAX_IMPORT_BYTES);
    const posting = post(signedInUser(g.gw, "N0MTG", { verified: true }), file);
    expect((await g.get("/health")).status).toBe(200);
    expect((await posting).status).toBe(200);
    expect(imported("GCMT")).toBe(3);
  });

  test("a tag of 400,000 attributes is checked in linear time: /health answers meanwhile, and a repeat at its end is found", async () => {
    const attributes = Array.from({ length: 400_000 }, (_, i) => ` a${i}="1"`).join("");
    const file = catalogGpx(3, { prefix: "GCAT" }).replace("<gpx ", `<gpx${attributes} `);
    expect(file.length).toBeLessThan(MAX_IMPORT_BYTES);
    const posting = post(signedInUser(g.gw, "N0ATR", { verified: true }), file);
    expect((await g.get("/health")).status).toBe(200);
    expect((await posting).status).toBe(200);
    expect(imported("GCAT")).toBe(3);
    const r = await post(signedInUser(g.gw, "N1ATR", { verified: true }), file.replace("<gpx ", '<gpx a399999="2" '));
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toMatch(/the attribute a399999 is repeated in <gpx>/);
  });

  test("a file broken inside a tag or its text is a 400 that names the fault and imports nothing; references are fine", async () => {
    const file = (prefix: string) => catalogGpx(3, { prefix });
    const breakages: Array<[string, (f: string) => string, RegExp]> = [
      ["an unquoted attribute", (f) => f.replace(/lat="([^"]*)"/, "lat=$1"), /not quoted/],
      ["an attribute without a value", (f) => f.replace(/<wpt /, "<wpt hidden "), /has no value/],
      ["a repeated attribute", (f) => f.replace(/<wpt lat="([^"]*)"/, '<wpt lat="$1" lat="1"'), /repeated/],
      ["attributes without a space between", (f) => f.replace(/" lon="/, '"lon="'), /bad attribute/],
      ['a "<" in a value', (f) => f.replace(/lon="/, 'lon="<'), /"<" inside the tag/],
      ['a stray "&" in text', (f) => f.replace(/<\/name>/, " & co</name>"), /"&" that starts no reference in text/],
      ['a stray "&" in a value', (f) => f.replace(/lon="/, 'lon="&'), /"&" that starts no reference in the attribute lon/],
      ["an end tag with more than its name", (f) => f.replace(/<\/name>/, '</name id="1">'), /end tag <\/name> has more/],
      ["text after the root", (f) => `${f}trailing`, /text outside the root/],
      ["a tag name that is no XML name", (f) => f.replace(/<name>([^<]*)<\/name>/, "<na?me>$1</na?me>"), /bad attribute|starts no tag/],
    ];
    for (const [i, [what, damage, says]] of breakages.entries()) {
      const u = signedInUser(g.gw, `N${i}TAG`, { verified: true }); // (one each: the imports-a-minute limit)
      const prefix = `GCT${"ABCDEFGHIJKLMN"[i]}`;
      const broken = damage(file(prefix));
      expect(broken, what).not.toBe(file(prefix));
      const r = await post(u, broken);
      const body = (await r.json()) as { error: string; message: string };
      expect([what, r.status, body.error]).toEqual([what, 400, "bad_gpx"]);
      expect(body.message, what).toMatch(says);
      expect(imported(prefix), what).toBe(0);
    }
    // what a catalog writes: the five entities, character references, an entity the file names (kept as written)
    const refs = file("GCTR").replace("Cache 0 &amp; co", "Cache 0 &amp; &lt;&gt;&quot;&apos; &#38; &#x26; &nbsp;");
    expect((await post(signedInUser(g.gw, "N0REF", { verified: true }), refs)).status).toBe(200);
    expect(imported("GCTR")).toBe(3);
    expect(g.gw.db.query("SELECT name FROM caches WHERE source_ref = 'GCTR0'").get()).toEqual({ name: expect.stringContaining(`Cache 0 & <>"'`) });
  });
});
