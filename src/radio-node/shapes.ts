/**
 * The node's answers over HTTP (src/radio-node/routes.ts), defined once: the
 * envelopes around the MHeard rows, counter samples and NET/ROM routes that
 * heard.ts and netrom.ts build.
 */
import { t } from "elysia";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { COUNTER_SAMPLE, MHEARD_ROW } from "./heard.ts";
import { NODE_ROUTE } from "./netrom.ts";

/** GET /api/node/mheard. */
export const MHEARD = closed({ heard: t.Array(MHEARD_ROW, { description: "most recent first" }) });

/** GET /api/node/counters. */
export const COUNTERS = closed({
  port: t.String({ description: "the radio port asked for" }),
  samples: t.Array(COUNTER_SAMPLE, { description: "oldest first" }),
});

/** GET /api/node/nodes. */
export const NODES = closed({
  node: nullable(
    closed({
      alias: t.String({ description: "NODE_ALIAS" }),
      call: nullable(t.String(), "the node's callsign (NODE_CALL, else RADIO_CALL); null when neither is set"),
      broadcastMinutes: wholeNumber({ description: "minutes between NODES broadcasts (0: never)" }),
      lastBroadcastAt: nullable(unixMs(), "the last NODES broadcast, unix ms; null before the first, or without a radio"),
    }),
    "this station as a NET/ROM node; null when NODE_ALIAS is not set",
  ),
  nodes: t.Array(NODE_ROUTE, { description: "the NODES table: the best route to each node" }),
  routes: t.Array(NODE_ROUTE, { description: "every route, best first per node" }),
});
