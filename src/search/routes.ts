/** `GET /api/search`: the header's search box. */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { viewerOf } from "../bbs/access.ts";
import { search, SEARCH_ANSWER, SEARCH_DEFAULT, SEARCH_MAX, SEARCH_SECTION_MAX } from "./service.ts";
import { answers } from "../http/openapi.ts";

/** The words the box sends, and the map's cache filters (read by the caches' own filter parser). */
const searchQuery = t.Object({
  q: t.Optional(t.String({ description: "the words searched for: at most 100 characters, no control characters" })),
  type: t.Optional(t.String({ description: "cache types, comma-separated (traditional,multi,...,living)" })),
  size: t.Optional(t.String({ description: "cache sizes, comma-separated" })),
  difficulty: t.Optional(t.String({ description: "a difficulty range such as 1-3 or one value such as 2.5" })),
  terrain: t.Optional(t.String({ description: "a terrain range such as 1-3 or one value such as 2.5" })),
  owner: t.Optional(t.String({ description: "the owner's callsign" })),
  limit: t.Optional(t.Integer({ description: `caches at most, 1 to ${SEARCH_MAX} (default ${SEARCH_DEFAULT})` })),
});

export function searchRoutes(gw: Core, kit: RouteKit) {
  return kit.app.get("/api/search", ({ query: { limit, ...filters }, caller }) => search(gw, filters, viewerOf(gw, caller), limit), {
    gate: "public",
    // every keystroke of the box (debounced) is a search: counted per address like /api/v1
    rateLimit: "api",
    query: searchQuery,
    detail: {
      summary: "Search caches, stations, BBS messages and peers at once, for the header's search box",
      description:
        `q (or a cache filter) is required. Answers { caches, stations, messages, peers }: caches by name, code, owner or description ` +
        `(words by prefix, with the filters), and with q also stations by callsign prefix, messages by subject and peers by name, at most ${SEARCH_SECTION_MAX} each; ` +
        "each section holds only what its own pages would show the caller. Rate-limited per address (RATE_LIMIT_PER_MINUTE; more with an API key).",
      tags: ["Search"],
      responses: answers("the matches, section by section", SEARCH_ANSWER),
    },
  });
}
