/** Supporter recognition: /support (the page), /api/support, prefs, and the backend's confirmation. */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { jsonObject } from "../http/body.ts";
import { contentSecurityPolicy, serveIndex } from "../http/ui.ts";
import { confirmSupporter, listSupporters, setSupporterPrefs, supporterPrefs } from "./support.ts";

export function supportRoutes(gw: Gateway) {
  const csp = contentSecurityPolicy(gw.config);
  return new Elysia({ name: "support" })
    .use(gatesPlugin(gw))
    .get("/support", () => serveIndex(csp), { gate: "public" })
    .get("/api/support", () => listSupporters(gw), { gate: "public" })
    .get("/api/support/prefs", ({ caller }) => supporterPrefs(gw, caller.user!.id), { gate: "session" })
    .post("/api/support/prefs", ({ caller, body }) => setSupporterPrefs(gw, caller.user!.id, jsonObject(body)), { gate: "session" })
    .post("/api/support/confirm", ({ body }) => confirmSupporter(gw, jsonObject(body)), { gate: "ingest" });
}
