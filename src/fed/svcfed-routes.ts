/** The SVCFED carrier over HTTP: pack the local feed into one bulletin for the FBB carrier. */
import { Elysia, t } from "elysia";
import { wholeNumber } from "../http/params.ts";
import type { Gateway } from "../http/gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "./feed.ts";
import { SYNC_KINDS } from "../lib/fed/record.ts";
import { enqueueParams, enqueueSvcfed } from "./transports/svcfed.ts";

/** A whole number in a JSON body (Elysia's t.Integer would also take the string "5"). */

export function svcfedRoutes(gw: Gateway) {
  return new Elysia({ name: "svcfed" }).use(gatesPlugin(gw)).post(
    "/federation/bbs/enqueue",
    ({ body, set }) => {
      const r = enqueueSvcfed(gw, enqueueParams(body ?? {}));
      set.status = r.posted ? 201 : 200;
      return r;
    },
    {
      gate: "sysop",
      body: t.Optional(
        t.Object(
          {
            types: t.Optional(
              t.Array(t.Union(SYNC_KINDS.map((k) => t.Literal(k))), {
                minItems: 1,
                description: `record kinds to pack (default all: ${SYNC_KINDS.join(", ")})`,
              }),
            ),
            since: t.Optional(wholeNumber({ minimum: 0, description: "the cursor: 0, or the `next` of a previous answer (default 0)" })),
            limit: t.Optional(
              wholeNumber({ minimum: 1, maximum: MAX_PAGE_LIMIT, description: `records, 1-${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT})` }),
            ),
          },
          { additionalProperties: true, description: "an empty body packs everything from the start" },
        ),
      ),
      detail: {
        summary: "Pack this instance's signed records into one SVCFED bulletin for the FBB carrier (201 when posted, 200 when nothing new)",
        tags: ["Federation"],
      },
    },
  );
}
