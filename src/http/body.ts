/**
 * Request bodies, read once with a size cap (Content-Length is checked first,
 * then the stream is counted, so a chunked upload cannot get past the cap).
 * JSON and form bodies are parsed; every other content type arrives as raw
 * bytes (a Uint8Array): APRS lines are not always UTF-8, CBOR is binary.
 */
import type { Gateway } from "../gateway.ts";
import { AppError, badRequest, tooLarge } from "../errors.ts";

/** A route's cap: bytes, or worked out from the request (e.g. by who sends it) before the body is read. */
export type BodyLimit = number | ((gw: Gateway, request: Request) => number);

/** Routes that accept bigger bodies than MAX_BODY_BYTES: [method, path pattern, bytes]. */
const bodyLimits: Array<{ method: string; pattern: RegExp; bytes: BodyLimit }> = [];

/** Lets a domain accept larger bodies on its own routes, e.g. media uploads. */
export function allowLargerBody(method: string, pattern: RegExp, bytes: BodyLimit): void {
  bodyLimits.push({ method, pattern, bytes });
}

export function bodyLimitFor(method: string, path: string, fallback: number, ctx?: { gw: Gateway; request: Request }): number {
  for (const l of bodyLimits) {
    if (l.method !== method || !l.pattern.test(path)) continue;
    if (typeof l.bytes === "number") return l.bytes;
    return ctx ? l.bytes(ctx.gw, ctx.request) : fallback;
  }
  return fallback;
}

/** Routes that take one content type only: [method, path pattern, media type]. */
const bodyTypes: Array<{ method: string; pattern: RegExp; type: string }> = [];

/** Lets a domain refuse other content types (415) on a route before its body is read. */
export function acceptOnly(method: string, pattern: RegExp, type: string): void {
  bodyTypes.push({ method, pattern, type });
}

function checkBodyType(method: string, path: string, contentType: string | null): void {
  for (const t of bodyTypes) {
    if (t.method === method && t.pattern.test(path) && mediaType(contentType) !== t.type) {
      throw new AppError(415, "unsupported_media_type", `send the body as ${t.type}`);
    }
  }
}

export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Deepest nesting of arrays and objects a JSON body may have: no route reads deeper than a few levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests deeper than `max`, by one pass over it (brackets
 * inside strings do not count). Checked before parsing, so a body of 100,000
 * `[` answers 400 instead of overflowing the stack of whatever walks it.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

export function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Parses a body by its content type. Throws AppError 400/413/415 on bad input. */
export async function parseBody(request: Request, limit: number): Promise<unknown> {
  const contentType = request.headers.get("content-type");
  checkBodyType(request.method, new URL(request.url).pathname, contentType);
  const type = mediaType(contentType);
  const bytes = await readBodyBytes(request, limit);
  if (type === "application/json" || type.endsWith("+json")) {
    if (bytes.byteLength === 0) throw badRequest("bad_json", "the request body is empty; expected JSON");
    let textBody: string;
    try {
      textBody = utf8.decode(bytes);
    } catch {
      throw badRequest("bad_json", "the request body is not valid UTF-8");
    }
    if (jsonTooDeep(textBody)) throw badRequest("bad_json", `the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    try {
      return JSON.parse(textBody);
    } catch (e) {
      throw badRequest("bad_json", `the request body is not valid JSON: ${(e as Error).message}`);
    }
  }
  if (type === "application/x-www-form-urlencoded") {
    return Object.fromEntries(new URLSearchParams(new TextDecoder().decode(bytes)));
  }
  if (type === "multipart/form-data") {
    try {
      return await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": contentType! } }).formData();
    } catch {
      throw badRequest("bad_form", "the multipart body could not be parsed");
    }
  }
  return bytes;
}

/** The parsed JSON body as an object, or a 400 naming what was expected. */
export function jsonObject(body: unknown, expected = "a JSON object"): Record<string, unknown> {
  if (!body || typeof body !== "object" || Array.isArray(body) || body instanceof Uint8Array || body instanceof FormData) {
    throw badRequest("bad_body", `expected ${expected}`);
  }
  return body as Record<string, unknown>;
}
