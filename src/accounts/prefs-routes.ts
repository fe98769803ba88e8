/**
 * The account's saved things, all session-gated: /api/prefs, /api/watch*,
 * /api/notify/prefs, /api/push/*, /api/views; and /v/:id, the public share
 * link of a saved map view.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import type { Caller } from "./caller.ts";
import { getNotifyPrefs, getPrefs, MAX_PREFS_BYTES, NOTIFY_PREFS, NOTIFY_PREFS_BODY, putNotifyPrefs, putPrefs, setWatch, watchesOf } from "./prefs.ts";
import { createView, deleteView, SAVED_VIEW, updateView, VIEW_BODY, VIEW_PATCH, viewLocation, viewsOf } from "./views.ts";
import { PREFS_ANSWER, PUSH_KEY, VIEWS, WATCH_SET, WATCHES } from "./shapes.ts";
import { PUSH_SENT, PUSH_SUBSCRIPTIONS, sendPush, subscribe, subscriptionsOf, unsubscribe, vapidKeys } from "../notify/push.ts";
import { open } from "./model.ts";
import { closed } from "../lib/schema.ts";
import { jsonObject } from "../http/body.ts";
import { answers, answersEmpty } from "../http/openapi.ts";

const A = ["Accounts"];

const viewId = t.Object({ id: t.String({ description: "the view's id, as GET /api/views lists it" }) });

export function prefsRoutes(gw: Core, kit: RouteKit) {
  const uid = (caller: Caller) => caller.user!.id;
  return (
    kit.app
      .get("/api/prefs", ({ caller }) => ({ prefs: getPrefs(gw, uid(caller)) }), {
        gate: "session",
        detail: {
          summary: "The web app's saved preferences of the signed-in account",
          tags: A,
          responses: answers("the preferences ({} when none)", PREFS_ANSWER),
        },
      })
      // Free-form: an object schema would let the validator turn an array or a scalar into an
      // object and store that, so the body is declared as it is and checked to be an object.
      .put("/api/prefs", ({ caller, body }) => ({ prefs: putPrefs(gw, uid(caller), jsonObject(body)) }), {
        gate: "session",
        body: t.Unknown({ description: `any JSON object the web app keeps, at most ${MAX_PREFS_BYTES} bytes (else 400 bad_body)` }),
        detail: {
          summary: "Replace the web app's saved preferences of the signed-in account",
          tags: A,
          responses: answers("the preferences as saved", PREFS_ANSWER),
        },
      })
      .get("/api/watch", ({ caller }) => ({ watches: watchesOf(gw, uid(caller)) }), {
        gate: "session",
        detail: { summary: "The caches the signed-in account watches", tags: A, responses: answers("the watched caches", WATCHES) },
      })
      .put(
        "/api/watch/:cacheId",
        ({ caller, params, body }) => ({ cacheId: Number(params.cacheId), watching: setWatch(gw, uid(caller), params.cacheId, body.watch) }),
        {
          gate: "session",
          params: t.Object({ cacheId: t.String({ description: "the cache's id, a positive whole number (checked by the service: 400 invalid)" }) }),
          body: closed({ watch: t.Boolean({ description: "true: be told about new logs; false: stop" }) }),
          detail: {
            summary: "Watch a cache (or stop) to be notified of its new logs",
            description: "Answers { cacheId, watching }.",
            tags: A,
            responses: answers("whether the account now watches the cache", WATCH_SET),
          },
        },
      )
      .get("/api/notify/prefs", ({ caller }) => getNotifyPrefs(gw, uid(caller)), {
        gate: "session",
        detail: {
          summary: "How the signed-in account is notified: e-mail, push, digest",
          tags: A,
          responses: answers("the notification settings", NOTIFY_PREFS),
        },
      })
      .put("/api/notify/prefs", ({ caller, body }) => putNotifyPrefs(gw, uid(caller), body), {
        gate: "session",
        body: NOTIFY_PREFS_BODY,
        detail: {
          summary: "Change how the signed-in account is notified",
          description: "Only the fields given change; another field is refused by name.",
          tags: A,
          responses: answers("the notification settings as changed", NOTIFY_PREFS),
        },
      })
      .get("/api/push/key", () => ({ publicKey: vapidKeys(gw).publicKey }), {
        gate: "session",
        detail: {
          summary: "The instance's VAPID public key, for the browser's push subscription",
          tags: A,
          responses: answers("the VAPID public key", PUSH_KEY),
        },
      })
      .get("/api/push/subscriptions", ({ caller }) => ({ subscriptions: subscriptionsOf(gw, uid(caller)) }), {
        gate: "session",
        detail: { summary: "The signed-in account's Web Push subscriptions", tags: A, responses: answers("the subscriptions", PUSH_SUBSCRIPTIONS) },
      })
      .put(
        "/api/push/subscription",
        async ({ caller, body, set }) => {
          const subscriptions = await subscribe(gw, uid(caller), body);
          set.status = 201;
          return { subscriptions };
        },
        {
          gate: "session",
          // The browser's PushSubscription.toJSON() as it is (expirationTime too, and what a browser may add): open, as WebAuthn's JSON is.
          body: open(
            {
              endpoint: t.String({ maxLength: 2048, description: "the push service's https URL (a public host)" }),
              keys: open({
                p256dh: t.String({ description: "the browser's P-256 public key, base64url" }),
                auth: t.String({ description: "the browser's 16-byte secret, base64url" }),
              }),
            },
            "the PushSubscription as the browser's toJSON() gives it",
          ),
          detail: {
            summary: "Add a Web Push subscription of this browser to the signed-in account",
            description: "201 with { subscriptions }; 400 bad_subscription for an endpoint that is not a public push service or keys that are not keys.",
            tags: A,
            responses: answers("the account's subscriptions, this one included", PUSH_SUBSCRIPTIONS, 201),
          },
        },
      )
      .delete("/api/push/subscription", ({ caller, body }) => ({ subscriptions: unsubscribe(gw, uid(caller), body.endpoint) }), {
        gate: "session",
        body: closed({ endpoint: t.String({ description: "the subscription's endpoint" }) }),
        detail: {
          summary: "Remove a Web Push subscription from the signed-in account",
          description: "Answers { subscriptions }, the ones left.",
          tags: A,
          responses: answers("the subscriptions left", PUSH_SUBSCRIPTIONS),
        },
      })
      .post(
        "/api/push/test",
        ({ caller }) => sendPush(gw, uid(caller), { title: `${gw.config.instance}: test`, body: "Push notifications work.", url: "/account" }),
        {
          gate: "session",
          rateLimit: "auth",
          detail: {
            summary: "Send a test push notification to every subscription of the signed-in account",
            description: "Answers { sent, failed, removed }.",
            tags: A,
            responses: answers("how the push went, by subscription", PUSH_SENT),
          },
        },
      )
      .get("/api/views", ({ caller }) => ({ views: viewsOf(gw, uid(caller)) }), {
        gate: "session",
        detail: { summary: "The signed-in account's saved map views", tags: A, responses: answers("the saved views", VIEWS) },
      })
      .post(
        "/api/views",
        ({ caller, body, set }) => {
          set.status = 201;
          return createView(gw, uid(caller), body);
        },
        {
          gate: "session",
          body: VIEW_BODY,
          detail: {
            summary: "Save a map view (centre, zoom, layers, filters) under a name, with a share link",
            description: "201 with the view.",
            tags: A,
            responses: answers("the view saved", SAVED_VIEW, 201),
          },
        },
      )
      .put("/api/views/:id", ({ caller, params, body }) => updateView(gw, uid(caller), params.id, body), {
        gate: "session",
        params: viewId,
        body: VIEW_PATCH,
        detail: { summary: "Change a saved map view: only the fields given", tags: A, responses: answers("the view as changed", SAVED_VIEW) },
      })
      .delete(
        "/api/views/:id",
        ({ caller, params, set }) => {
          deleteView(gw, uid(caller), params.id);
          set.status = 204;
          return "";
        },
        { gate: "session", params: viewId, detail: { summary: "Delete a saved map view (204)", tags: A, responses: answersEmpty("deleted") } },
      )
      .get("/v/:id", ({ params, redirect }) => redirect(viewLocation(gw, params.id), 302), {
        gate: "public",
        params: t.Object({ id: t.String({ description: "a saved view's id" }) }),
        detail: {
          summary: "A saved map view's share link: redirects (302) to the map at that view",
          tags: ["Accounts"],
          responses: answersEmpty("to the map at that view (/map?lat=&lon=&z=&layers=)", 302),
        },
      })
  );
}
