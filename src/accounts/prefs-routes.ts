/**
 * The account's saved things, all session-gated: /api/prefs, /api/watch*,
 * /api/notify/prefs, /api/push/*, /api/views; and /v/:id, the public share
 * link of a saved map view.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import type { Caller } from "./caller.ts";
import { jsonObject } from "../http/body.ts";
import { badRequest } from "../errors.ts";
import { getNotifyPrefs, getPrefs, putNotifyPrefs, putPrefs, setWatch, watchesOf } from "./prefs.ts";
import { createView, deleteView, updateView, viewLocation, viewsOf } from "./views.ts";
import { sendPush, subscribe, subscriptionsOf, unsubscribe, vapidKeys } from "../notify/push.ts";

export function prefsRoutes(gw: Gateway) {
  const uid = (caller: Caller) => caller.user!.id;
  return new Elysia({ name: "account-prefs" })
    .use(gatesPlugin(gw))
    .get("/api/prefs", ({ caller }) => ({ prefs: getPrefs(gw, uid(caller)) }), { gate: "session" })
    .put("/api/prefs", ({ caller, body }) => ({ prefs: putPrefs(gw, uid(caller), jsonObject(body)) }), { gate: "session" })
    .get("/api/watch", ({ caller }) => ({ watches: watchesOf(gw, uid(caller)) }), { gate: "session" })
    .put(
      "/api/watch/:cacheId",
      ({ caller, params, body }) => {
        const b = jsonObject(body, '{"watch": true|false}');
        if (typeof b.watch !== "boolean") throw badRequest("invalid", "watch must be true or false");
        return { cacheId: Number(params.cacheId), watching: setWatch(gw, uid(caller), params.cacheId, b.watch) };
      },
      { gate: "session" },
    )
    .get("/api/notify/prefs", ({ caller }) => getNotifyPrefs(gw, uid(caller)), { gate: "session" })
    .put("/api/notify/prefs", ({ caller, body }) => putNotifyPrefs(gw, uid(caller), jsonObject(body)), { gate: "session" })
    .get("/api/push/key", () => ({ publicKey: vapidKeys(gw).publicKey }), { gate: "session" })
    .get("/api/push/subscriptions", ({ caller }) => ({ subscriptions: subscriptionsOf(gw, uid(caller)) }), { gate: "session" })
    .put(
      "/api/push/subscription",
      async ({ caller, body, set }) => {
        const subscriptions = await subscribe(gw, uid(caller), jsonObject(body, "a PushSubscription"));
        set.status = 201;
        return { subscriptions };
      },
      { gate: "session" },
    )
    .delete("/api/push/subscription", ({ caller, body }) => ({ subscriptions: unsubscribe(gw, uid(caller), jsonObject(body, '{"endpoint"}').endpoint) }), {
      gate: "session",
    })
    .post(
      "/api/push/test",
      ({ caller }) => sendPush(gw, uid(caller), { title: `${gw.config.instance}: test`, body: "Push notifications work.", url: "/account" }),
      { gate: "session", rateLimit: "auth" },
    )
    .get("/api/views", ({ caller }) => ({ views: viewsOf(gw, uid(caller)) }), { gate: "session" })
    .post(
      "/api/views",
      ({ caller, body, set }) => {
        set.status = 201;
        return createView(gw, uid(caller), jsonObject(body, "{name, lat, lon, zoom}"));
      },
      { gate: "session" },
    )
    .put("/api/views/:id", ({ caller, params, body }) => updateView(gw, uid(caller), params.id, jsonObject(body)), { gate: "session" })
    .delete(
      "/api/views/:id",
      ({ caller, params, set }) => {
        deleteView(gw, uid(caller), params.id);
        set.status = 204;
        return "";
      },
      { gate: "session" },
    )
    .get("/v/:id", ({ params, redirect }) => redirect(viewLocation(gw, params.id), 302), { gate: "public" });
}
