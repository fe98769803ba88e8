/**
 * Compressed answers as a browser on a weak link receives them: the web app's
 * scripts and styles and JSON bodies over ~1 KB come brotli or gzip encoded by
 * Accept-Encoding, decode to exactly the bytes sent uncompressed, and say
 * `Vary: Accept-Encoding`; small JSON, images and the SSE stream go as they are.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { startInProcess, type Running } from "../helpers/gateway.ts";

let g: Running;
beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
});
afterAll(() => g.stop());

/** The raw bytes on the wire: Bun's fetch would otherwise decode them for us. */
async function raw(path: string, acceptEncoding: string, accept = "*/*") {
  const res = await fetch(g.url + path, { headers: { "accept-encoding": acceptEncoding, accept }, decompress: false } as RequestInit);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

function decode(bytes: Uint8Array, coding: string | null): Uint8Array {
  if (coding === "br") return new Uint8Array(brotliDecompressSync(bytes));
  if (coding === "gzip") return new Uint8Array(gunzipSync(bytes));
  return bytes;
}

describe("compressed answers", () => {
  test("the script and the stylesheet: brotli, gzip or identity as asked, each decoding to the same bytes", async () => {
    const html = await (await g.get("/", { headers: { accept: "text/html" } })).text();
    const assets = [...html.matchAll(/\/assets\/[^"]+\.(?:js|css)/g)].map((m) => m[0]);
    expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
    expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
    for (const path of assets) {
      const plain = await raw(path, "identity");
      expect(plain.res.headers.get("content-encoding")).toBeNull();
      expect(plain.res.headers.get("vary")).toContain("Accept-Encoding");
      const br = await raw(path, "gzip, deflate, br");
      expect(br.res.headers.get("content-encoding")).toBe("br");
      expect(br.res.headers.get("vary")).toContain("Accept-Encoding");
      expect(br.res.headers.get("content-type")).toBe(plain.res.headers.get("content-type"));
      const gz = await raw(path, "gzip, deflate");
      expect(gz.res.headers.get("content-encoding")).toBe("gzip");
      // br refused by q=0 falls back to gzip
      expect((await raw(path, "br;q=0, gzip")).res.headers.get("content-encoding")).toBe("gzip");
      expect(decode(br.bytes, "br")).toEqual(plain.bytes);
      expect(decode(gz.bytes, "gzip")).toEqual(plain.bytes);
      // A third of the size or less: the point of the exercise.
      expect(br.bytes.length).toBeLessThan(plain.bytes.length / 3);
      expect(gz.bytes.length).toBeLessThan(plain.bytes.length / 2);
    }
  });

  test("a JSON answer over 1 KB is compressed and decodes to the same body; a small one is not", async () => {
    const plain = await raw("/privacy", "identity", "application/json");
    expect(plain.res.status).toBe(200);
    expect(plain.bytes.length).toBeGreaterThan(1024);
    expect(plain.res.headers.get("content-encoding")).toBeNull();
    for (const coding of ["br", "gzip"]) {
      const { res, bytes } = await raw("/privacy", coding, "application/json");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-encoding")).toBe(coding);
      expect(res.headers.get("vary")).toContain("Accept-Encoding");
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(bytes.length).toBeLessThan(plain.bytes.length);
      expect(decode(bytes, coding)).toEqual(plain.bytes);
    }
    // Under the threshold: plain bytes even when brotli is welcome, still marked as varying.
    const small = await raw("/api/setup", "br, gzip", "application/json");
    expect(small.res.headers.get("content-encoding")).toBeNull();
    expect(small.res.headers.get("vary")).toContain("Accept-Encoding");
    expect(JSON.parse(new TextDecoder().decode(small.bytes))).toHaveProperty("needed");
  });

  test("an error answer keeps its status and shape; the SSE stream is not compressed", async () => {
    const err = await raw("/federation/peers", "br, gzip", "application/json");
    expect(err.res.status).toBe(403);
    const body = JSON.parse(new TextDecoder().decode(decode(err.bytes, err.res.headers.get("content-encoding"))));
    expect(typeof body.error).toBe("string");
    const ctl = new AbortController();
    const sse = await fetch(g.url + "/api/cot/stream", {
      headers: { "accept-encoding": "br, gzip", accept: "text/event-stream" },
      decompress: false,
      signal: ctl.signal,
    } as RequestInit);
    expect(sse.status).toBe(200);
    expect(sse.headers.get("content-type")).toContain("text/event-stream");
    expect(sse.headers.get("content-encoding")).toBeNull();
    // Positive control for the same client: a large JSON answer on this connection is compressed.
    expect((await raw("/privacy", "br, gzip", "application/json")).res.headers.get("content-encoding")).toBe("br");
    ctl.abort();
  });
});
