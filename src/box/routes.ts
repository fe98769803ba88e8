/**
 * Remote box commands (SPEC "Remote box"): users and the operator enqueue,
 * the box leases and acknowledges, the operator reads the log.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { intParam } from "../http/params.ts";
import { conflict } from "../errors.ts";
import { radioOf } from "../node/radio.ts";
import { acknowledge, boxId, commandLog, enqueue, lease, LOCAL_BOX, parseAcks } from "./service.ts";

export function boxRoutes(gw: Gateway) {
  return new Elysia({ name: "box" })
    .use(gatesPlugin(gw))
    .post(
      "/api/box/:id/command",
      ({ params, body, caller }) => {
        const id = boxId(params.id);
        if (id === LOCAL_BOX && !radioOf(gw))
          throw conflict("no_radio", "this gateway has no radio port (KISS_PORTS), so its local box cannot carry out commands");
        return { command: enqueue(gw, id, body, caller) };
      },
      { gate: "actor" },
    )
    .get("/api/box/:id/commands", ({ params, query }) => ({ commands: lease(gw, boxId(params.id), { limit: intParam(query.limit, "limit") }) }), {
      gate: "ingest",
    })
    .post("/api/box/:id/commands/ack", ({ params, body }) => acknowledge(gw, boxId(params.id), parseAcks(body)), { gate: "ingest" })
    .get(
      "/api/box/:id/log",
      ({ params, query, caller }) =>
        commandLog(gw, boxId(params.id), caller, { limit: intParam(query.limit, "limit"), before: intParam(query.before, "before") }),
      { gate: "actor" },
    );
}
