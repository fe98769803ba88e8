/**
 * The signed-record federation surface: the instance descriptor, the
 * CBOR sync pages, the JSON browse feeds, the registry view and frame
 * delivery. Thin: parse, gate, one service call.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { allowLargerBody } from "../http/body.ts";
import { badRequest } from "../errors.ts";
import { descriptor } from "./descriptor.ts";
import { applyPage } from "./apply.ts";
import { CBOR_TYPE, MAX_PAGE_BYTES } from "./page.ts";
import { RecordError } from "./record.ts";
import { compressPage, DEFLATE_DICT1_TYPE } from "./compress.ts";
import { BROWSE_FEEDS, BROWSE_LIMITS, browseFeed, parseCursor, registryView, SYNC_LIMITS, syncPage } from "./surface.ts";
import { cborBody } from "../http/params.ts";

export { CBOR_TYPE };

allowLargerBody("POST", /^\/federation\/frames$/, MAX_PAGE_BYTES);

export function fedRoutes(gw: Gateway) {
  const app = new Elysia({ name: "fed" })
    .use(gatesPlugin(gw))
    .get("/.well-known/svc", () => descriptor(gw), { gate: "public" })
    .get(
      "/federation/sync/:type",
      ({ params, query, set }) => {
        const compression = query.compress ?? "none";
        if (compression !== "none" && compression !== "deflateDict1") throw badRequest("invalid", "compress must be deflateDict1 or none");
        const bytes = compressPage(syncPage(gw, params.type, parseCursor(query, SYNC_LIMITS)), compression);
        set.headers["content-type"] = compression === "none" ? CBOR_TYPE : DEFLATE_DICT1_TYPE;
        set.headers["cache-control"] = "no-store";
        return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: set.headers as Record<string, string> });
      },
      { gate: "public" },
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
      { gate: "ingest" },
    )
    .get("/federation/registry", ({ query }) => registryView(gw, parseCursor(query, BROWSE_LIMITS)), { gate: "public" })
    .get("/federation/feed/registry", ({ query }) => registryView(gw, parseCursor(query, BROWSE_LIMITS)), { gate: "public" });
  for (const feed of Object.keys(BROWSE_FEEDS)) {
    app.get(`/federation/${feed}`, ({ query }) => browseFeed(gw, feed, parseCursor(query, BROWSE_LIMITS)), { gate: "public" });
    app.get(`/federation/feed/${feed}`, ({ query }) => browseFeed(gw, feed, parseCursor(query, BROWSE_LIMITS)), { gate: "public" });
  }
  return app;
}
