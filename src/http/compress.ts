/**
 * Compressed answers: brotli or gzip, chosen by the request's Accept-Encoding.
 * JSON bodies over a threshold are compressed as they leave (brotli at a low
 * quality: fast enough per request, still far smaller than gzip -1); the web
 * app's scripts and styles are compressed once, at build or first load
 * (ui.ts). Streams (SSE), upgrades and bodies that are already compressed pass
 * through untouched.
 */
import { zlib } from "../lib/builtins.ts";

export type Coding = "br" | "gzip";

/** JSON answers smaller than this go out as they are: the headers would eat the gain. */
const JSON_MIN_BYTES = 1024;

/** The best coding the client accepts (q=0 refuses), or null for identity. */
export function pickCoding(acceptEncoding: string | null): Coding | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    q.set(name.trim(), qp ? Number(qp.slice(2)) || 0 : 1);
  }
  const ok = (c: string) => (q.get(c) ?? q.get("*") ?? 0) > 0;
  if (ok("br")) return "br";
  if (ok("gzip")) return "gzip";
  return null;
}

export function compress(body: Uint8Array, coding: Coding, level: "fast" | "best" = "fast"): Uint8Array<ArrayBuffer> {
  // Node's Buffers here are never shared memory.
  if (coding === "br") {
    return zlib().brotliCompressSync(body, {
      params: {
        [zlib().constants.BROTLI_PARAM_QUALITY]: level === "best" ? 11 : 4,
        [zlib().constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
      },
    }) as Uint8Array<ArrayBuffer>;
  }
  return zlib().gzipSync(body, { level: level === "best" ? 9 : 6 }) as Uint8Array<ArrayBuffer>;
}

/** Content types worth compressing: text, JSON, JavaScript, SVG. Images and archives are already compressed. */
export function compressible(type: string | null): boolean {
  if (!type) return false;
  const t = type.toLowerCase();
  if (t.startsWith("text/event-stream")) return false;
  return t.startsWith("text/") || t.includes("json") || t.includes("javascript") || t.includes("svg") || t.includes("xml");
}

/** Adds Accept-Encoding to a response's Vary header without dropping what is there. */
function addVary(headers: Headers): void {
  const v = headers.get("vary");
  if (!v) headers.set("vary", "Accept-Encoding");
  else if (!/accept-encoding/i.test(v) && v.trim() !== "*") headers.set("vary", `${v}, Accept-Encoding`);
}

/**
 * The answer to send for a handler's value: a compressed Response when the
 * value is a JSON body (a plain value, or a Response with a JSON type) of at
 * least JSON_MIN_BYTES and the client accepts a coding; otherwise undefined
 * (the value goes out as it is). Synchronous unless a Response body must be
 * read, and then the promise always holds a Response: Elysia takes any
 * promise from this hook as the answer.
 */
export function compressJson(
  request: Request,
  value: unknown,
  setHeaders: Record<string, string | number | undefined>,
  status: number,
): Response | Promise<Response> | undefined {
  if (request.method === "HEAD" || request.headers.get("upgrade")) return undefined;
  const coding = pickCoding(request.headers.get("accept-encoding"));
  if (value instanceof Response) {
    const type = value.headers.get("content-type");
    if (!type || !type.toLowerCase().includes("json") || value.headers.has("content-encoding")) return undefined;
    if (value.status === 101 || value.status === 204 || value.status === 304 || !value.body) return undefined;
    const len = Number(value.headers.get("content-length") ?? NaN);
    if (Number.isFinite(len) && len < JSON_MIN_BYTES) return undefined;
    const headers = new Headers(value.headers);
    addVary(headers);
    if (!coding) return new Response(value.body, { status: value.status, statusText: value.statusText, headers });
    return value.arrayBuffer().then((buf) => encoded(new Uint8Array(buf), coding, value.status, headers));
  }
  if (value === null || typeof value !== "object") return undefined;
  if (value instanceof Uint8Array || value instanceof ArrayBuffer || value instanceof Blob || value instanceof ReadableStream) return undefined;
  if (typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function") return undefined;
  if (typeof (value as { next?: unknown }).next === "function") return undefined;
  // Even a small answer goes through a cache keyed on the coding: the next one may be large.
  setHeaders.vary = setHeaders.vary ? `${setHeaders.vary}, Accept-Encoding` : "Accept-Encoding";
  const json = JSON.stringify(value);
  if (json === undefined || json.length < JSON_MIN_BYTES / 4) return undefined;
  const text = new TextEncoder().encode(json);
  if (text.byteLength < JSON_MIN_BYTES) return undefined;
  const headers = new Headers();
  for (const [k, v] of Object.entries(setHeaders)) if (v !== undefined) headers.set(k, String(v));
  if (!headers.has("content-type")) headers.set("content-type", "application/json;charset=utf-8");
  if (!coding) return new Response(text, { status, headers });
  return encoded(text, coding, status, headers);
}

function encoded(text: Uint8Array<ArrayBuffer>, coding: Coding, status: number, headers: Headers): Response {
  headers.delete("content-length");
  if (text.byteLength < JSON_MIN_BYTES) return new Response(text, { status, headers });
  headers.set("content-encoding", coding);
  return new Response(compress(text, coding), { status, headers });
}
