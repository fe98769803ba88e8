/**
 * The hub's HTTP surface: a sysop disconnects a client of the KISS or APRS-IS
 * server (the clients themselves are listed in GET /api/ports).
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { notFound } from "../lib/errors.ts";
import type { Hub } from "./index.ts";
import { answers } from "../http/openapi.ts";
import { HUB_CLIENT_DISCONNECTED } from "./shapes.ts";

/** `hub`: the station hub once a server host has started it (src/hosts/gateway.ts), else null */
export function hubRoutes(gw: Core, kit: RouteKit, hub: () => Hub | null) {
  return kit.app.delete(
    "/api/hub/clients/:id",
    ({ params, caller }) => {
      const by = caller.user?.call ?? "the ingest box";
      if (!hub()?.clients.disconnect(params.id, `sysop ${by}`)) throw notFound(`hub client ${params.id}`);
      gw.log.info("hub", `client ${params.id} disconnected by ${by}`);
      return { disconnected: params.id };
    },
    {
      gate: "sysop",
      params: t.Object({ id: t.String({ description: "the client's id as GET /api/ports lists it, e.g. kiss-3 or aprs-is-12" }) }),
      detail: {
        summary: "Disconnect a client of the hub's KISS or APRS-IS server, for the sysop",
        description: "Answers { disconnected: id }; 404 when no client has that id.",
        tags: ["Hub"],
        responses: answers("the disconnected client's id", HUB_CLIENT_DISCONNECTED),
      },
    },
  );
}
