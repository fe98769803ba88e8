/**
 * The signed-record federation surface: the instance descriptor, the
 * CBOR sync pages, the JSON browse feeds, the registry view and frame
 * delivery. Thin: parse, gate, one service call.
 */
import { conditionalJson } from "../http/conditional.ts";
import { fetchVia } from "./via.ts";
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { badRequest } from "../lib/errors.ts";
import { descriptor } from "./descriptor.ts";
import { applyPage } from "./apply.ts";
import { CBOR_TYPE } from "../lib/fed/page.ts";
import { RecordError, SYNC_KINDS } from "../lib/fed/record.ts";
import { compressPage, DEFLATE_DICT1_TYPE } from "../lib/fed/compress.ts";
import { BROWSE_FEEDS, BROWSE_LIMITS, browseFeed, cursorOf, registryView, SYNC_LIMITS, syncPage } from "./surface.ts";
import { cborBody, cborPageRoute } from "../http/params.ts";
import { answers, answersEmpty, answersMedia } from "../http/openapi.ts";
import { APPLY_REPORT, BROWSE_PAGES, DESCRIPTOR, REGISTRY_VIEW } from "./shapes.ts";

export { CBOR_TYPE };

const tags = ["Federation"];

type Declared = Record<string, { description: string; content: object }>;

/** One status answered in two media types (a sync page plain or deflated; JSON or the bytes): both declarations as one. */
function eitherOf<A extends Declared, B extends Declared>(a: A, b: B): A | B {
  const out: Declared = { ...a };
  for (const [status, r] of Object.entries(b)) {
    const held = out[status];
    out[status] = held ? { description: `${held.description}; or ${r.description}`, content: { ...held.content, ...r.content } } : r;
  }
  return out as A | B;
}

/** A conditional GET's answers: the JSON, or 304 while the caller's ETag still holds. */
const conditional = (description: string, schema: Parameters<typeof answers>[1]) => ({
  ...answers(description, schema),
  ...answersEmpty("not modified: the If-None-Match ETag still holds", 304),
});

/** A sync page: CBOR, or deflated with the shared dictionary when asked (and worth it). */
const SYNC_PAGE = eitherOf(
  answersMedia("a CBOR sync page { frames, next, more, type, instance }", CBOR_TYPE),
  answersMedia("with compress=deflateDict1 (a page over 64 bytes): the page deflated with the shared dictionary", DEFLATE_DICT1_TYPE),
);

/** `since` and `limit` of a feed page, `limit` 1 to `max`. */
const cursorQuery = (limits: { limit: number; max: number }) =>
  t.Object({
    since: t.Optional(t.Integer({ minimum: 0, description: "the cursor: `next` of the previous page (default 0, from the start)" })),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: limits.max, description: `records per page, 1-${limits.max} (default ${limits.limit})` })),
  });

/** Sync pages up to this size are served uncompressed (an empty page is about 15 bytes). */
const SMALL_PAGE_BYTES = 64;

export function fedRoutes(gw: Core, kit: RouteKit) {
  const browse = cursorQuery(BROWSE_LIMITS);
  const app = kit.app
    .get("/.well-known/svc", ({ request }) => conditionalJson(request, descriptor(gw)), {
      gate: "public",
      detail: {
        summary: "This instance's descriptor: its id, keys, endpoints and the feeds it serves (ETag; If-None-Match: 304)",
        tags,
        responses: conditional("the descriptor", DESCRIPTOR),
      },
    })
    .get(
      "/federation/sync/:type",
      ({ params, query, set }) => {
        const page = syncPage(gw, params.type, cursorOf(query, SYNC_LIMITS));
        // A page this small (no frames: a feed with nothing new, most of every pull) goes
        // uncompressed whatever was asked: deflating it with the dictionary costs both
        // sides more CPU than it saves bytes. The content type says which it is.
        const compression = page.length <= SMALL_PAGE_BYTES ? "none" : (query.compress ?? "none");
        const bytes = compressPage(page, compression);
        set.headers["content-type"] = compression === "none" ? CBOR_TYPE : DEFLATE_DICT1_TYPE;
        set.headers["cache-control"] = "no-store";
        return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: set.headers as Record<string, string> });
      },
      {
        gate: "public",
        params: t.Object({ type: t.String({ description: `the record kind: ${SYNC_KINDS.join(", ")} (another answers 404)` }) }),
        query: t.Object({
          ...cursorQuery(SYNC_LIMITS).properties,
          compress: t.Optional(
            t.Union([t.Literal("none"), t.Literal("deflateDict1")], {
              description: "deflateDict1: the page deflated with the shared dictionary; none (default)",
            }),
          ),
        }),
        detail: {
          summary: "A CBOR sync page of this instance's signed records of one kind, for peers that mirror it",
          description: "Paged by `since`: the page's `next` is the next `since`; `more` says to come back.",
          tags,
          responses: SYNC_PAGE,
        },
      },
    )
    .post(
      "/federation/frames",
      async ({ request, body }) => {
        try {
          return await applyPage(gw, cborBody(request, body), { via: "frames" });
        } catch (e) {
          if (e instanceof RecordError) throw badRequest("bad_page", `the page cannot be read: ${e.message}`);
          throw e;
        }
      },
      {
        gate: "ingest",
        ...cborPageRoute({
          body: "a CBOR sync page of signed frames (heard on the air by the box)",
          summary: "Apply a page of signed frames the box received (as a pulled sync page is applied)",
          tags,
          responses: answers("what the apply pipeline did with the frames", APPLY_REPORT),
        }),
      },
    )
    .get(
      "/federation/via/:instance/*",
      ({ params, request }) => {
        const u = new URL(request.url);
        return fetchVia(gw, params.instance, params["*"], u.search, request.headers.get("if-none-match"));
      },
      {
        gate: "public",
        params: t.Object({ instance: t.String(), "*": t.String() }),
        detail: {
          summary: "With FED_VIA=on: a peer's descriptor, sync page or registry view, fetched from it for a gateway that cannot reach it (a radio island)",
          description: "Passed on as the peer answered it: its status, media type and ETag (304 while the caller's If-None-Match holds).",
          tags,
          responses: {
            ...eitherOf(
              answers("the peer's descriptor (.well-known/svc) or registry view (federation/registry)", t.Union([DESCRIPTOR, REGISTRY_VIEW])),
              SYNC_PAGE,
            ),
            ...answersEmpty("not modified: the If-None-Match ETag still holds", 304),
          },
        },
      },
    )
    .get("/federation/registry", ({ query, request }) => conditionalJson(request, registryView(gw, cursorOf(query, BROWSE_LIMITS))), {
      gate: "public",
      query: browse,
      detail: {
        summary: "The registry view: this instance and the peers it knows, as JSON (ETag; If-None-Match: 304)",
        tags,
        responses: conditional("the registry view", REGISTRY_VIEW),
      },
    })
    .get("/federation/feed/registry", ({ query, request }) => conditionalJson(request, registryView(gw, cursorOf(query, BROWSE_LIMITS))), {
      gate: "public",
      query: browse,
      detail: { summary: "The registry view (the same as /federation/registry)", tags, responses: conditional("the registry view", REGISTRY_VIEW) },
    });
  for (const [feed, kind] of Object.entries(BROWSE_FEEDS)) {
    const detail = {
      summary: `This instance's signed ${kind} records as JSON (gid, version, signing time, body), paged`,
      tags,
      responses: answers(`a page of ${kind} records`, BROWSE_PAGES[kind]),
    };
    app.get(`/federation/${feed}`, ({ query }) => browseFeed(gw, feed, cursorOf(query, BROWSE_LIMITS)), { gate: "public", query: browse, detail });
    app.get(`/federation/feed/${feed}`, ({ query }) => browseFeed(gw, feed, cursorOf(query, BROWSE_LIMITS)), {
      gate: "public",
      query: browse,
      detail: { ...detail, summary: `${detail.summary} (the same as /federation/${feed})` },
    });
  }
  return app;
}
