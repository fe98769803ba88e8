/**
 * Review and reports over HTTP (docs/api.md "Maintenance and review"): the
 * reviewers' queue, publish and return, a user's report of a cache and the
 * reports its owner reads. Thin: gate, parse, call one service function.
 */
import { t } from "elysia";
import { closed, nullable } from "../lib/schema.ts";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { actorOf, CACHE_KEY, NATIVE_CACHE_ID } from "./model.ts";
import {
  PUBLISHED,
  publishReviewed,
  reportCache,
  REPORTED,
  CACHE_REPORTS,
  reportsOf,
  RETURNED,
  returnReviewed,
  REVIEW_QUEUE,
  reviewQueue,
} from "./maintenance.ts";
import { LOG_KINDS_ON, logKindsOn } from "./logs.ts";
import { answers } from "../http/openapi.ts";

const TAGS = ["Caches"];
const ID = t.Object({ id: NATIVE_CACHE_ID });
const NOTE = closed({ text: t.Optional(nullable(t.String({ maxLength: 4000 }), "the reviewer note")) });

export function maintenanceRoutes(gw: Core, kit: RouteKit) {
  return kit.app
    .get("/api/review", ({ caller }) => reviewQueue(gw, actorOf(caller)), {
      gate: "session",
      detail: {
        summary: "Reviewers: the caches waiting for review (oldest first) and the latest reports of caches",
        tags: TAGS,
        responses: answers("the queue and the reports", REVIEW_QUEUE),
      },
    })
    .post("/api/review/:id/publish", ({ params, body, caller }) => publishReviewed(gw, actorOf(caller), params.id, body), {
      gate: "session",
      params: ID,
      body: NOTE,
      detail: {
        summary: "Reviewers: publish a cache waiting for review (active, on the map, federated), with an optional reviewer note",
        tags: TAGS,
        responses: answers("the cache as published, with the note when one was given", PUBLISHED),
      },
    })
    .post("/api/review/:id/return", ({ params, body, caller }) => returnReviewed(gw, actorOf(caller), params.id, body), {
      gate: "session",
      params: ID,
      body: NOTE,
      detail: {
        summary: "Reviewers: return a cache waiting for review to its owner with a reviewer note (required)",
        tags: TAGS,
        responses: answers("the cache as returned, with the note", RETURNED),
      },
    })
    .post(
      "/api/caches/:id/report",
      ({ params, body, caller, set }) => {
        set.status = 201;
        return reportCache(gw, actorOf(caller), params.id, body);
      },
      {
        gate: "session",
        params: ID,
        body: closed({ reason: t.Optional(t.String({ maxLength: 1000, description: "what is wrong, 3-1000 characters" })) }),
        detail: {
          summary: "Report a cache to its owner and the reviewers (one report per user and cache; a new one replaces yours)",
          tags: TAGS,
          responses: answers("reported", REPORTED, 201),
        },
      },
    )
    .get("/api/caches/:id/log-kinds", ({ params, caller }) => logKindsOn(gw, actorOf(caller), decodeURIComponent(params.id)), {
      gate: "session",
      params: t.Object({ id: CACHE_KEY }),
      detail: {
        summary: 'The log kinds you may log on this cache now (docs/api.md "Log kinds"), for the log form',
        tags: TAGS,
        responses: answers("the kinds", LOG_KINDS_ON),
      },
    })
    .get("/api/caches/:id/reports", ({ params, caller }) => reportsOf(gw, actorOf(caller), params.id), {
      gate: "session",
      params: ID,
      detail: { summary: "A cache's reports, newest first: for its owner and the reviewers", tags: TAGS, responses: answers("the reports", CACHE_REPORTS) },
    });
}
