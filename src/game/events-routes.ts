/**
 * Events over HTTP (docs/api.md "Events"): one event as an iCalendar file,
 * and the upcoming events nearest a point. Thin: gate, parse, call one
 * service function.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import type { Caller } from "../accounts/caller.ts";
import { badRequest, notFound } from "../lib/errors.ts";
import { actorOf, CACHE_KEY, type Actor } from "./model.ts";
import { cacheDetail, cacheRow } from "./cache-lookup.ts";
import { cachesJson, type CacheRow } from "./caches.ts";
import { parseNear } from "./near.ts";
import { eventIcs, upcomingNear } from "./events.ts";
import { answers, answersMedia } from "../http/openapi.ts";
import { EVENTS_ANSWER } from "./shapes.ts";

const TAGS = ["Caches"];
const reader = (caller: Caller): Actor | null => (caller.user || caller.ingest ? actorOf(caller) : null);

export function eventRoutes(gw: Core, kit: RouteKit) {
  return kit.app
    .get(
      "/api/caches/:id/event.ics",
      ({ params, caller, request }) => {
        const c = cacheDetail(gw, decodeURIComponent(params.id), reader(caller));
        if (!c.event) throw notFound(`an event at cache ${params.id}`);
        const url = `${kit.baseUrl(request)}/cache/${encodeURIComponent(String(c.id))}`;
        const ics = eventIcs({ gid: c.gid, name: c.name, lat: c.lat, lon: c.lon, description: c.description, url }, c.event, gw.clock.now());
        return new Response(ics, {
          headers: { "content-type": "text/calendar; charset=utf-8", "content-disposition": `attachment; filename="${c.code}.ics"` },
        });
      },
      {
        gate: "public",
        params: t.Object({ id: CACHE_KEY }),
        detail: {
          summary: "An event cache as an iCalendar file (RFC 5545): its times in UTC, the cache's gid as UID",
          tags: TAGS,
          responses: answersMedia("the iCalendar file", "text/calendar"),
        },
      },
    )
    .get(
      "/api/events",
      ({ query }) => {
        if (!query.near) throw badRequest("invalid", "near=LAT,LON is required");
        const limit = query.limit ?? 20;
        if (limit < 1 || limit > 200) throw badRequest("invalid", "limit is 1-200");
        const near = upcomingNear(gw, parseNear(query.near), limit);
        const rows = near.map((n) => cacheRow(gw, n.id)).filter((r): r is CacheRow => r !== null);
        return { events: cachesJson(gw, rows).map((c, i) => ({ ...c, distanceM: near[i]!.distanceM })) };
      },
      {
        gate: "public",
        query: t.Object({
          near: t.Optional(t.String({ description: "LAT,LON: events nearest this point first" })),
          limit: t.Optional(t.Integer({ description: "how many, 1-200 (20)" })),
        }),
        detail: {
          summary: "Upcoming events (not yet over) of this instance, nearest a point first, each with distanceM",
          tags: TAGS,
          responses: answers("the events", EVENTS_ANSWER),
        },
      },
    );
}
