/**
 * Remote box commands (SPEC "Remote box"): users and the operator enqueue,
 * the box leases and acknowledges, the operator reads the log.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { conflict } from "../lib/errors.ts";
import { closed, wholeNumber } from "../lib/schema.ts";
import { radioOf } from "../radio-node/running-radio.ts";
import { BOX_KINDS } from "./kinds.ts";
import {
  acknowledge,
  ACKNOWLEDGED,
  boxId,
  COMMAND_LOG,
  COMMAND_QUEUED,
  commandLog,
  enqueue,
  lease,
  LEASED,
  LOCAL_BOX,
  MAX_ACKS,
  parseAcks,
} from "./service.ts";
import { answers } from "../http/openapi.ts";

const BOX = t.Object({
  id: t.String({
    pattern: "^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$",
    description: `the box: 1-32 of a-z 0-9 _ - (case does not matter); "${LOCAL_BOX}" is this gateway's own radio`,
  }),
});
const tags = ["Box"];

/**
 * Every argument a kind takes (BOX_KINDS checks which ones a kind takes, and
 * their values), in `args` or beside `kind`; `call` too, for the ingest box.
 */
const ARGS = {
  port: t.Optional(t.String({ description: "mheard: a radio port id" })),
  limit: t.Optional(t.Number({ description: "mheard: how many stations, 1-1000" })),
  peer: t.Optional(t.String({ description: "sync: the peer's instance id" })),
  line: t.Optional(t.String({ description: "ui: the TNC2 line" })),
};
const CALL = t.Optional(t.String({ description: "the ingest box only: the verified callsign a transmit kind acts as" }));

/** POST /api/box/:id/command. */
const BOX_COMMAND_BODY = closed({
  kind: t.Union(
    Object.keys(BOX_KINDS).map((k) => t.Literal(k)),
    {
      description: Object.entries(BOX_KINDS)
        .map(([k, v]) => `${k}: ${v.doc}`)
        .join("; "),
    },
  ),
  args: t.Optional(closed({ ...ARGS, call: CALL }, { description: "the kind's arguments (or give them beside kind)" })),
  call: CALL,
  ...ARGS,
});

/** POST /api/box/:id/commands/ack. */
const BOX_ACKS_BODY = closed({
  acks: t.Array(
    closed({
      id: wholeNumber({ description: "the command's id" }),
      ok: t.Optional(t.Boolean({ description: "false: it failed (default true)" })),
      result: t.Optional(t.Unknown({ description: "what the box answers: any JSON up to 8 KiB" })),
    }),
    { maxItems: MAX_ACKS },
  ),
});

export function boxRoutes(gw: Core, kit: RouteKit) {
  return kit.app
    .post(
      "/api/box/:id/command",
      ({ params, body, caller }) => {
        const id = boxId(params.id);
        if (id === LOCAL_BOX && !radioOf(gw))
          throw conflict("no_radio", "this gateway has no radio port (KISS_PORTS), so its local box cannot carry out commands");
        return { command: enqueue(gw, id, body, caller) };
      },
      {
        gate: "actor",
        params: BOX,
        body: BOX_COMMAND_BODY,
        detail: {
          summary: "Queue a command for a box (transmit kinds act as the caller's verified callsign)",
          description: "Read-only kinds need a session; transmit kinds a verified callsign, or the ingest box naming one in `call`.",
          tags,
          responses: answers("the queued command", COMMAND_QUEUED),
        },
      },
    )
    .get("/api/box/:id/commands", ({ params, query }) => ({ commands: lease(gw, boxId(params.id), { limit: query.limit }) }), {
      gate: "ingest",
      params: BOX,
      query: t.Object({ limit: t.Optional(t.Integer({ description: "commands to lease (default 10; 1-100, beyond is clamped)" })) }),
      detail: {
        summary: "Lease the box's due commands, oldest first (the box polls this)",
        tags,
        responses: answers("the leased commands", LEASED),
      },
    })
    .post("/api/box/:id/commands/ack", ({ params, body }) => acknowledge(gw, boxId(params.id), parseAcks(body.acks)), {
      gate: "ingest",
      params: BOX,
      body: BOX_ACKS_BODY,
      detail: { summary: "The box reports leased commands done or failed", tags, responses: answers("how many commands it acknowledged", ACKNOWLEDGED) },
    })
    .get("/api/box/:id/log", ({ params, query, caller }) => commandLog(gw, boxId(params.id), caller, { limit: query.limit, before: query.before }), {
      gate: "actor",
      params: BOX,
      query: t.Object({
        limit: t.Optional(t.Integer({ description: "commands (default 50; 1-500, beyond is clamped)" })),
        before: t.Optional(t.Integer({ description: "the next page: commands with a smaller id" })),
      }),
      detail: {
        summary: "A box's command log, newest first: all of it for the operator, one's own commands otherwise",
        tags,
        responses: answers("the box and its commands", COMMAND_LOG),
      },
    });
}
