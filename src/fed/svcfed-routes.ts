/** The SVCFED carrier over HTTP: pack the local feed into one bulletin for the FBB carrier. */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { ENQUEUE_BODY, enqueueParams, enqueueSvcfed } from "./transports/svcfed.ts";
import { answers } from "../http/openapi.ts";
import { ENQUEUE_RESULT } from "./shapes.ts";

export function svcfedRoutes(gw: Core, kit: RouteKit) {
  return kit.app.post(
    "/federation/bbs/enqueue",
    ({ body, set }) => {
      const r = enqueueSvcfed(gw, enqueueParams(body ?? {}));
      set.status = r.posted ? 201 : 200;
      return r;
    },
    {
      gate: "sysop",
      body: t.Optional(ENQUEUE_BODY),
      detail: {
        summary: "Pack this instance's signed records into one SVCFED bulletin for the FBB carrier (201 when posted, 200 when nothing new)",
        tags: ["Federation"],
        responses: {
          ...answers("a new bulletin was stored and queued for the partners", ENQUEUE_RESULT, 201),
          ...answers("nothing posted: nothing to send, or the same snapshot is already a bulletin here (reason)", ENQUEUE_RESULT),
        },
      },
    },
  );
}
