/**
 * Bookmark lists over HTTP (docs/api.md "Bookmark lists"): the signed-in
 * user's lists, a list by its link (public ones for anyone), its GPX, and
 * adding or removing caches. Thin: gate, parse, call one service function.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import type { Caller } from "../accounts/caller.ts";
import { gpxOfCaches } from "../exports/exports.ts";
import { GPX_TYPE } from "../exports/gpx.ts";
import { actorOf } from "./model.ts";
import { addToList, createList, deleteList, LIST_BODY, LIST_PATCH, listWithCaches, myLists, removeFromList, updateList } from "./lists.ts";
import { closed } from "../lib/schema.ts";
import { answers, answersMedia } from "../http/openapi.ts";
import { DELETED } from "./shapes.ts";
import { CACHE_LIST, LIST_WITH_CACHES, MY_LISTS } from "./lists.ts";

const TAGS = ["Game"];
const ID = t.Object({ id: t.Integer({ minimum: 1, description: "the list's id" }) });
const reader = (caller: Caller) => (caller.user ? actorOf(caller) : null);

export function listRoutes(gw: Core, kit: RouteKit) {
  return kit.app
    .get("/api/lists", ({ caller }) => myLists(gw, actorOf(caller)), {
      gate: "session",
      detail: { summary: "Your bookmark lists", tags: TAGS, responses: answers("your lists", MY_LISTS) },
    })
    .post(
      "/api/lists",
      ({ body, caller, set }) => {
        set.status = 201;
        return createList(gw, actorOf(caller), body);
      },
      {
        gate: "session",
        body: LIST_BODY,
        detail: { summary: "Make a bookmark list (private unless public is true)", tags: TAGS, responses: answers("the list", CACHE_LIST, 201) },
      },
    )
    .get("/api/lists/:id", ({ params, caller }) => listWithCaches(gw, params.id, reader(caller)), {
      gate: "public",
      params: ID,
      detail: {
        summary: "A bookmark list with its caches: a public one for anyone with its link, a private one for its owner only (404 otherwise)",
        tags: TAGS,
        responses: answers("the list and its caches", LIST_WITH_CACHES),
      },
    })
    .get(
      "/api/lists/:id/gpx",
      ({ params, caller, request }) => {
        const l = listWithCaches(gw, params.id, reader(caller));
        const gpx = gpxOfCaches(gw, kit.baseUrl(request), l.caches, caller.user?.id ?? null);
        return new Response(gpx, { headers: { "content-type": GPX_TYPE, "content-disposition": `attachment; filename="list-${l.id}.gpx"` } });
      },
      {
        gate: "public",
        params: ID,
        detail: {
          summary: "A bookmark list's caches as a GPX file (who may read the list may have it)",
          tags: TAGS,
          responses: answersMedia("the GPX file", GPX_TYPE),
        },
      },
    )
    .patch("/api/lists/:id", ({ params, body, caller }) => updateList(gw, actorOf(caller), params.id, body), {
      gate: "session",
      params: ID,
      body: LIST_PATCH,
      detail: { summary: "Rename a list or make it public or private (its owner)", tags: TAGS, responses: answers("the list", CACHE_LIST) },
    })
    .delete("/api/lists/:id", ({ params, caller }) => deleteList(gw, actorOf(caller), params.id), {
      gate: "session",
      params: ID,
      detail: { summary: "Delete a list (its owner)", tags: TAGS, responses: answers("deleted", DELETED) },
    })
    .post("/api/lists/:id/caches", ({ params, body, caller }) => addToList(gw, actorOf(caller), params.id, String(body.cache)), {
      gate: "session",
      params: ID,
      body: closed({ cache: t.Union([t.String(), t.Number()], { description: "the cache: its id or gid" }) }),
      detail: { summary: "Add a cache to a list (its owner); adding it again changes nothing", tags: TAGS, responses: answers("the list", CACHE_LIST) },
    })
    .delete("/api/lists/:id/caches/:cache", ({ params, caller }) => removeFromList(gw, actorOf(caller), params.id, decodeURIComponent(params.cache)), {
      gate: "session",
      params: t.Object({ id: t.Integer({ minimum: 1 }), cache: t.String({ description: "the cache: its id or gid" }) }),
      detail: { summary: "Take a cache off a list (its owner)", tags: TAGS, responses: answers("the list", CACHE_LIST) },
    });
}
