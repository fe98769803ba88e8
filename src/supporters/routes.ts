/** Supporter recognition: /support (the page), /api/support, prefs, and the backend's confirmation. */
import { Elysia, t } from "elysia";
import type { Gateway } from "../http/gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { contentSecurityPolicy, serveIndex } from "../http/ui.ts";
import { confirmSupporter, listSupporters, setSupporterPrefs, supporterPrefs } from "./service.ts";

// Undeclared members are kept (not dropped by the validator), so the service still refuses an unknown field by name.
const prefsBody = t.Object(
  {
    public: t.Optional(t.Boolean({ description: "list this account on /support" })),
    name: t.Optional(
      t.Nullable(t.String({ minLength: 1, maxLength: 60, pattern: "\\S", description: "the name to list (default: the callsign); null clears it" })),
    ),
  },
  { additionalProperties: true },
);

const confirmBody = t.Object(
  {
    call: t.Optional(t.String({ description: "the supporter's verified callsign (or give email)" })),
    email: t.Optional(t.String({ description: "the supporter's account e-mail (when there is no call)" })),
    until: t.Optional(t.Nullable(t.Integer({ description: "when the support ends, unix milliseconds; null: no end" }))),
    level: t.Optional(t.Nullable(t.String({ maxLength: 40, description: "a level to show, e.g. club" }))),
  },
  { additionalProperties: true },
);

export function supportRoutes(gw: Gateway) {
  const csp = contentSecurityPolicy(gw.config);
  return new Elysia({ name: "support" })
    .use(gatesPlugin(gw))
    .get("/support", () => serveIndex(csp), { gate: "public", detail: { summary: "The supporters page of the web app", tags: ["Support"] } })
    .get("/api/support", () => listSupporters(gw), {
      gate: "public",
      detail: {
        summary: "List the current supporters who chose to be listed",
        description: "Answers { supporters: [{ name, call, level, since }] }.",
        tags: ["Support"],
      },
    })
    .get("/api/support/prefs", ({ caller }) => supporterPrefs(gw, caller.user!.id), {
      gate: "session",
      detail: { summary: "The signed-in user's supporter state and listing choices", tags: ["Support"] },
    })
    .post("/api/support/prefs", ({ caller, body }) => setSupporterPrefs(gw, caller.user!.id, body), {
      gate: "session",
      body: prefsBody,
      detail: {
        summary: "A confirmed supporter chooses whether and under which name to be listed",
        description: "Only public and name; 409 not_a_supporter for an account that is not a confirmed supporter.",
        tags: ["Support"],
      },
    })
    .post("/api/support/confirm", ({ body }) => confirmSupporter(gw, body), {
      gate: "ingest",
      body: confirmBody,
      detail: {
        summary: "The operator's backend confirms an account as a supporter",
        description: "Names the account by call (verified) or email; 404 when no account matches.",
        tags: ["Support"],
      },
    });
}
