/**
 * Found by the simulator (issue 31): every pull asks every feed for a page,
 * and most are empty; deflating each empty page with the dictionary (and
 * inflating it on the other side) was a fifth of the CPU of a 30-gateway
 * simulation. A page that small is served uncompressed, as its content type says.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { decodePage } from "../../src/lib/fed/page.ts";
import { decompressPage } from "../../src/lib/fed/compress.ts";

let A: Running;
beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: generateKeyPair().privateKey });
  publishRecord(
    A.gw,
    "cache",
    1,
    cacheToWire({ name: "one", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 48, lon: 11, status: "active", ownerCall: "N0OWN" }),
  );
});
afterAll(() => A.stop());

test("an empty sync page is served as plain CBOR even when deflateDict1 is asked for; a page with frames is compressed", async () => {
  const empty = await A.get("/federation/sync/find?since=0&compress=deflateDict1");
  expect(empty.status).toBe(200);
  expect(empty.headers.get("content-type")).toBe("application/cbor");
  expect(decodePage(new Uint8Array(await empty.arrayBuffer()))).toMatchObject({ frames: [], more: false });

  const full = await A.get("/federation/sync/cache?since=0&compress=deflateDict1");
  expect(full.headers.get("content-type")).toBe("application/vnd.svc.page+deflatedict1");
  const page = decodePage(decompressPage(new Uint8Array(await full.arrayBuffer()), "deflateDict1"));
  expect(page.frames).toHaveLength(1);
});
