/**
 * Request bodies, read once with a size cap (Content-Length is checked first,
 * then the stream is counted, so a chunked upload cannot get past the cap).
 * JSON and form bodies are parsed; every other content type arrives as raw
 * bytes: APRS lines are not always UTF-8, CBOR is binary.
 *
 * Raw bytes reach only routes whose body schema takes them (t.Uint8Array),
 * and reach them as an ArrayBuffer that the schema turns into a Uint8Array:
 * Elysia walks a Uint8Array body with `for...in` before checking it (about
 * 1.2 s per MB), and a JSON schema walks every index of one to refuse it.
 * A raw body sent to a route that takes JSON or a form is refused (415)
 * before it is read.
 */
import type { Gateway } from "./gateway.ts";
import { AppError, badRequest, tooLarge } from "../lib/errors.ts";

/** A route's cap: bytes, or worked out from the request (e.g. by who sends it) before the body is read. */
export type BodyLimit = number | ((gw: Gateway, request: Request) => number);

/** What a route's body schema takes: raw bytes (t.Uint8Array, alone or in a union), only JSON or form fields, or no body schema. */
export type BodyKind = "bytes" | "structured" | "none";

/**
 * What a route declares of its body, beside its schema, in its options: a cap
 * other than MAX_BODY_BYTES (`bodyLimit`, e.g. media uploads) and the one
 * content type it takes (`accepts`; any other is refused with 415 before the
 * body is read). The gates plugin (gates.ts) names both as macros, so they
 * are typed where the route is written.
 */
export interface BodyOptions {
  bodyLimit?: BodyLimit;
  accepts?: string;
}

/** A route's body as learnt from the assembled app: its schema's kind and its declared options. */
export interface RouteBody extends BodyOptions {
  kind: BodyKind;
}

const NO_ROUTE: RouteBody = { kind: "none" };

/** Routes by method and path, with what they take; learnt from the assembled app. */
const routeBodies = new Map<string, { method: string; pattern: RegExp; body: RouteBody }>();

/** An Elysia route path as a regular expression: `:name` is one segment, `*` anything. */
function patternOf(path: string): RegExp {
  const escaped = path.replace(/[.+?^$(){}|[\]\\]/g, "\\$&");
  return new RegExp(`^${escaped.replace(/\*/g, ".*").replace(/:[^/]+/g, "[^/]+")}$`);
}

type RouteList = ReadonlyArray<{ method: string; path: string; hooks?: unknown }>;

/**
 * Records where the app's routes are, to learn their bodies from (createApp
 * calls it). Each route's kind comes from its schema, serialised, which costs
 * about 2 ms for the gateway's 263 routes: that work waits for the first
 * request that asks (routeBodyFor), out of every start's path to its first
 * answer; the routes are read then (`routes()`, which mounts those the app
 * has not mounted yet: app.ts).
 */
export function learnRouteBodies(routes: () => RouteList): void {
  unlearnt.push(routes);
}

/** Where route lists are, recorded and not yet learnt. */
const unlearnt: Array<() => RouteList> = [];

function learnt(): typeof routeBodies {
  for (const routes of unlearnt.splice(0)) {
    for (const r of routes()) {
      const hooks = (r.hooks ?? {}) as { body?: unknown } & BodyOptions;
      const kind: BodyKind = hooks.body === undefined ? "none" : JSON.stringify(hooks.body).includes('"type":"Uint8Array"') ? "bytes" : "structured";
      routeBodies.set(`${r.method} ${r.path}`, {
        method: r.method,
        pattern: patternOf(r.path),
        body: { kind, bodyLimit: hooks.bodyLimit, accepts: hooks.accepts },
      });
    }
  }
  return routeBodies;
}

/** What the route at `path` takes (no body schema and no options for a route not learnt). */
export function routeBodyFor(method: string, path: string): RouteBody {
  const bodies = learnt();
  const exact = bodies.get(`${method} ${path}`);
  if (exact) return exact.body;
  for (const r of bodies.values()) if (r.method === method && r.pattern.test(path)) return r.body;
  return NO_ROUTE;
}

/** The cap on a route's body: its declared `bodyLimit`, else `fallback` (MAX_BODY_BYTES). */
export function bodyLimitOf(route: RouteBody, fallback: number, gw: Gateway, request: Request): number {
  const l = route.bodyLimit;
  return l === undefined ? fallback : typeof l === "number" ? l : l(gw, request);
}

/** Whether a request carries a body: a Content-Length above 0, or a stream without one (chunked). */
export function hasBody(request: Request): boolean {
  const declared = request.headers.get("content-length");
  return declared !== null ? Number(declared) > 0 : request.body !== null;
}

/** Whether a content type is parsed here (JSON, a form); every other one is raw bytes. */
export function isParsedType(contentType: string | null): boolean {
  const type = mediaType(contentType);
  return type === "application/json" || type.endsWith("+json") || type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
}

async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
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
const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests deeper than `max`, by one pass over it (brackets
 * inside strings do not count). Checked before parsing, so a body of 100,000
 * `[` answers 400 instead of overflowing the stack of whatever walks it.
 */
function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
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

/**
 * Parses a body by its content type, for a route that takes `route` (its schema's kind, its one content type).
 * Throws AppError 400/413/415 on bad input; 413 and 415 before reading.
 */
export async function parseBody(request: Request, limit: number, route: RouteBody = NO_ROUTE): Promise<unknown> {
  const contentType = request.headers.get("content-type");
  const type = mediaType(contentType);
  if (route.accepts !== undefined && type !== route.accepts) throw new AppError(415, "unsupported_media_type", `send the body as ${route.accepts}`);
  const raw = !isParsedType(contentType);
  if (raw && route.kind === "structured" && hasBody(request)) {
    throw new AppError(415, "unsupported_media_type", "send the body as JSON (Content-Type: application/json)");
  }
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
  if (route.kind !== "bytes") return bytes;
  // the whole buffer, not a view into a larger one (t.Uint8Array wraps it without copying)
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
}

/** The parsed JSON body as an object, or a 400 naming what was expected. */
export function jsonObject(body: unknown, expected = "a JSON object"): Record<string, unknown> {
  if (!body || typeof body !== "object" || Array.isArray(body) || body instanceof Uint8Array || body instanceof FormData) {
    throw badRequest("bad_body", `expected ${expected}`);
  }
  return body as Record<string, unknown>;
}
