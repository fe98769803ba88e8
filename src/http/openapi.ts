/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the routes
 * themselves: each route's `params`, `query` and `body` schemas (Elysia's `t`,
 * which is JSON Schema), its `detail` (summary, description, tags, responses)
 * and the gate it names. Nothing here is written per route, so the document
 * cannot drift from what the server validates.
 */
import type { TSchema } from "@sinclair/typebox";
import { SESSION_COOKIE } from "../accounts/sessions.ts";
import { routeGates, type GateName, type RateBucket } from "./gates.ts";

export interface RouteLike {
  method: string;
  path: string;
  hooks?: unknown;
}

interface Hooks {
  params?: Schema;
  query?: Schema;
  body?: Schema;
  detail?: Detail;
}

type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; description?: string; [k: string]: unknown };

/** What a route says about itself in its `detail` option. */
export interface Detail {
  summary?: string;
  description?: string;
  tags?: string[];
  responses?: Record<string, unknown>;
  /** The media type of a raw body, when it is not JSON (CBOR pages, APRS lines, forms). */
  bodyType?: string;
  /** Leave the route out of the document (the web app's own files). */
  hide?: boolean;
  [k: string]: unknown;
}

/** The route's hooks as the generator and the route test read them. */
export function hooksOf(route: RouteLike): Hooks {
  return (route.hooks ?? {}) as Hooks;
}

/** `/api/caches/:code` -> `/api/caches/{code}`; a trailing `*` becomes `{path}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/\*$/, "{path}");
}

/** The path's named parameters, `*` included as `path`. */
export function pathParams(path: string): string[] {
  const names = [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  return path.endsWith("*") ? [...names, "*"] : names;
}

/** The credentials each gate accepts, as OpenAPI security requirements (`{}`: none needed). */
const SECURITY: Partial<Record<GateName, Array<Record<string, string[]>>>> = {
  "rate-limited": [{}, { apiKey: [] }],
  session: [{ session: [] }],
  verified: [{ session: [] }],
  actor: [{ session: [] }, { ingestSecret: [] }],
  ingest: [{ ingestSecret: [] }],
  sysop: [{ session: [] }, { ingestSecret: [] }],
  "signed-body": [{ session: [] }, {}],
  relay: [{ relaySecret: [] }],
  "fed-secret": [{ fedSecret: [] }],
  "fed-secret-if-set": [{}, { fedSecret: [] }],
  "ingest-or-device": [{ ingestSecret: [] }, {}],
  "wx-key": [{ wxKey: [] }],
  "local-control": [{ controlToken: [] }],
};

const SECURITY_SCHEMES = {
  session: { type: "apiKey", in: "cookie", name: SESSION_COOKIE, description: "the session of a signed-in user (POST /auth/email/verify)" },
  apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "a free API key from POST /api/v1; raises rate limits" },
  ingestSecret: { type: "apiKey", in: "header", name: "x-ingest-secret", description: "INGEST_SECRET: the radio box and the operator's tools" },
  relaySecret: { type: "apiKey", in: "header", name: "x-relay-secret", description: "FED_RELAY_SECRET" },
  fedSecret: { type: "apiKey", in: "header", name: "x-fed-secret", description: "FED_SUBMIT_SECRET" },
  controlToken: { type: "apiKey", in: "header", name: "x-control-token", description: "the token in the data directory's svc-gateway.control (0600)" },
  wxKey: { type: "apiKey", in: "header", name: "x-wx-key", description: "a weather station's key (also PASSWORD=, ?key= or a wxkey form field)" },
};

const GATE_TEXT: Record<GateName, string> = {
  public: "anyone",
  "rate-limited": "anyone, throttled per IP (an API key in x-api-key raises the limit)",
  session: "a signed-in user (session cookie)",
  actor: "a signed-in user, or the ingest box (x-ingest-secret)",
  verified: "a signed-in user whose active callsign is verified",
  ingest: "the ingest box (x-ingest-secret)",
  sysop: "the sysop (a verified callsign in ADMIN_CALLSIGNS, or x-ingest-secret)",
  "signed-body": "a body signed by a device key of the callsign, or a session holding it",
  relay: "a relay (x-relay-secret)",
  "fed-secret": "a peer holding x-fed-secret",
  "fed-secret-if-set": "anyone, or a peer holding x-fed-secret when the operator set one",
  "ingest-or-device": "the ingest box, or a body signed by a device key registered here",
  "wx-key": "a weather station's key",
  "local-control": "a command of the data directory's owner (x-control-token from svc-gateway.control, 0600)",
};

/**
 * Plain JSON Schema: drops TypeBox's symbols, and Elysia's coercion of numbers
 * in a query or path (`t.Numeric`: any of a numeric string or a number) is
 * documented as the number it is.
 */
function plain(schema: Schema | undefined): Schema | undefined {
  if (schema === undefined) return undefined;
  return JSON.parse(JSON.stringify(schema), (_k, v) => {
    if ((v as Schema | null)?.type === "Uint8Array") return BINARY;
    const any = (v as { anyOf?: Schema[] } | null)?.anyOf;
    // t.Uint8Array(): any of a sample default and the bytes
    if (Array.isArray(any) && any.some((a) => a === BINARY)) {
      const rest = any.filter((a) => a !== BINARY && !("default" in a && Object.keys(a).length === 1));
      return rest.length === 0 ? BINARY : { anyOf: [BINARY, ...rest] };
    }
    if (Array.isArray(any) && any.length === 2) {
      const coerced = any.findIndex((a) => a.type === "string" && (a.format === "numeric" || a.format === "integer"));
      if (coerced >= 0) {
        const { anyOf: _, ...rest } = v as Schema;
        return { ...any[1 - coerced], ...rest };
      }
    }
    return v;
  }) as Schema;
}

function parameters(where: "path" | "query", schema: Schema | undefined): unknown[] {
  const s = plain(schema);
  if (!s?.properties) return [];
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties).map(([name, p]) => {
    const { description, ...rest } = p;
    return { name, in: where, required: where === "path" || required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

const BINARY: Schema = { type: "string", format: "binary" };

/** The body's media types: bytes as `detail.bodyType` (or octet-stream), text as text/plain, the rest as JSON. */
function bodyContent(schema: Schema, detail: Detail): Record<string, { schema: Schema }> {
  const raw = detail.bodyType ?? "application/octet-stream";
  if (schema === BINARY) return { [raw]: { schema } };
  const any = schema.anyOf as Schema[] | undefined;
  if (any?.[0] === BINARY) {
    const rest = any.slice(1);
    return { [raw]: { schema: BINARY }, "application/json": { schema: rest.length === 1 ? rest[0]! : { anyOf: rest } } };
  }
  if (schema.type === "string") return { [detail.bodyType ?? "text/plain"]: { schema } };
  return { "application/json": { schema } };
}

const ERROR = { $ref: "#/components/responses/Error" };

/**
 * A route's declared answer, for its `detail.responses`: the schema the
 * service builds to (a closed TypeBox schema, which is JSON Schema), as JSON
 * with `status`. The gate's refusals are added beside it.
 */
export const answers = (description: string, schema: TSchema, status = 200) => ({
  [String(status)]: { description, content: { "application/json": { schema } } },
});

/** An answer that is not JSON: a GPX file, an image, CBOR, a page (`text/*` is text, anything else bytes). */
export const answersMedia = (description: string, mediaType: string, status = 200) => ({
  [String(status)]: {
    description,
    content: { [mediaType]: { schema: mediaType.startsWith("text/") ? { type: "string" as const } : { type: "string" as const, format: "binary" } } },
  },
});

/** An answer with no body: 204, a redirect (3xx with its Location), a WebSocket's 101. */
export const answersEmpty = (description: string, status = 204) => ({ [String(status)]: { description } });

/**
 * The declared answers as the document shows them: a schema that is one of
 * the document's components (the very object) becomes its $ref.
 */
function withRefs(value: unknown, refs: Map<object, string>): unknown {
  if (value === null || typeof value !== "object") return value;
  const name = refs.get(value);
  if (name) return { $ref: `#/components/schemas/${name}` };
  if (Array.isArray(value)) return value.map((v) => withRefs(v, refs));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRefs(v, refs)]));
}

function operation(route: RouteLike, gate: GateName | null, rateLimit: RateBucket | null, refs: Map<object, string>) {
  const { params, query, body, detail = {} } = hooksOf(route);
  const { responses, bodyType: _b, hide: _h, ...rest } = detail;
  const op: Record<string, unknown> = { ...rest };
  const ps = [...parameters("path", params), ...parameters("query", query)];
  if (ps.length) op.parameters = ps;
  if (body) {
    op.requestBody = { required: true, content: bodyContent(plain(body)!, detail) };
  }
  if (gate) {
    op["x-gate"] = gate;
    op.description = [detail.description, `Who may call: ${GATE_TEXT[gate]}.`].filter(Boolean).join("\n\n");
    const security = SECURITY[gate];
    if (security) op.security = security;
  }
  if (rateLimit) op["x-rate-limit-bucket"] = rateLimit;
  // a route that declares only its answer (answers()) keeps the gate's refusals beside it; one that declares its refusals too (v1) is taken as it is
  const declared = withRefs(responses ?? {}, refs) as Record<string, unknown>;
  const codes = Object.keys(declared);
  const ok = codes.some((k) => /^[123]/.test(k)) ? {} : { "200": { description: "OK" } };
  const refusals = codes.some((k) => k.startsWith("4")) ? {} : { "400": ERROR, ...(gate && gate !== "public" ? { "401": ERROR, "403": ERROR } : {}) };
  op.responses = { ...ok, ...refusals, ...declared };
  return op;
}

export interface OpenApiOptions {
  title: string;
  description: string;
  version: string;
  base: string;
  /** Only routes whose path starts with this (e.g. "/api/v1"). */
  prefix?: string;
  /** Components merged in (shared schemas a route's responses refer to). */
  components?: Record<string, Record<string, unknown>>;
}

/** The OpenAPI 3.1 document of every documented route of `app`. */
export function openApiDocument(app: { routes: RouteLike[] }, o: OpenApiOptions) {
  const gates = new Map(routeGates(app).map((g) => [`${g.method} ${g.path}`, g]));
  const paths: Record<string, Record<string, unknown>> = {};
  const refs = new Map(Object.entries(o.components?.schemas ?? {}).map(([name, schema]) => [schema as object, name]));
  for (const r of app.routes) {
    if (r.method === "HEAD" || hooksOf(r).detail?.hide) continue;
    if (o.prefix && !r.path.startsWith(o.prefix)) continue;
    const g = gates.get(`${r.method} ${r.path}`);
    const method = r.method === "WS" ? "get" : r.method.toLowerCase();
    const op = operation(r, g?.gate ?? null, g?.rateLimit ?? null, refs);
    if (r.method === "WS") op["x-websocket"] = true;
    (paths[openApiPath(r.path)] ??= {})[method] = op;
  }
  return {
    openapi: "3.1.0",
    info: { title: o.title, version: o.version, description: o.description },
    servers: [{ url: o.base }],
    paths,
    components: {
      ...o.components,
      securitySchemes: { ...SECURITY_SCHEMES, ...(o.components?.securitySchemes ?? {}) },
      responses: {
        Error: {
          description: "The one error shape: a code, a message, and for invalid input the failing field",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["error", "message"],
                properties: { error: { type: "string" }, message: { type: "string" }, field: { type: "string", description: "e.g. body.name or query.bbox" } },
              },
            },
          },
        },
        ...(o.components?.responses ?? {}),
      },
    },
  };
}
