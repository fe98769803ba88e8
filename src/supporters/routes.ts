/** Supporter recognition: /support (the page), /api/support, prefs, and the backend's confirmation. */
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { contentSecurityPolicy, serveIndex } from "../http/ui.ts";
import { answers, answersMedia } from "../http/openapi.ts";
import {
  confirmSupporter,
  listSupporters,
  setSupporterPrefs,
  SUPPORTER_CONFIRM_BODY,
  SUPPORTER_CONFIRMED,
  SUPPORTER_PREFS,
  SUPPORTER_PREFS_BODY,
  SUPPORTERS,
  supporterPrefs,
} from "./service.ts";

export function supportRoutes(gw: Core, kit: RouteKit) {
  const csp = contentSecurityPolicy(gw.config);
  return kit.app
    .get("/support", () => serveIndex(csp), {
      gate: "public",
      detail: { summary: "The supporters page of the web app", tags: ["Support"], responses: answersMedia("the web app's page", "text/html") },
    })
    .get("/api/support", () => listSupporters(gw), {
      gate: "public",
      detail: {
        summary: "List the current supporters who chose to be listed",
        description: "Answers { supporters: [{ name, call, level, since }] }.",
        tags: ["Support"],
        responses: answers("the listed supporters", SUPPORTERS),
      },
    })
    .get("/api/support/prefs", ({ caller }) => supporterPrefs(gw, caller.user!.id), {
      gate: "session",
      detail: {
        summary: "The signed-in user's supporter state and listing choices",
        tags: ["Support"],
        responses: answers("the supporter state and listing choices", SUPPORTER_PREFS),
      },
    })
    .post("/api/support/prefs", ({ caller, body }) => setSupporterPrefs(gw, caller.user!.id, body), {
      gate: "session",
      body: SUPPORTER_PREFS_BODY,
      detail: {
        summary: "A confirmed supporter chooses whether and under which name to be listed",
        description: "Only public and name; 409 not_a_supporter for an account that is not a confirmed supporter.",
        tags: ["Support"],
        responses: answers("the supporter state and listing choices as changed", SUPPORTER_PREFS),
      },
    })
    .post("/api/support/confirm", ({ body }) => confirmSupporter(gw, body), {
      gate: "ingest",
      body: SUPPORTER_CONFIRM_BODY,
      detail: {
        summary: "The operator's backend confirms an account as a supporter",
        description: "Names the account by call (verified) or email; 404 when no account matches.",
        tags: ["Support"],
        responses: answers("confirmed", SUPPORTER_CONFIRMED),
      },
    });
}
