/**
 * Routes of the federation network (issue 7): pull now, the sysop's peer
 * list and trust, gossip. Thin: parse, gate, one service call.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { mirroredRecords, peerList, setPeerTrust } from "./admin.ts";
import { receiveNotify } from "./gossip.ts";
import { syncAll } from "./sync.ts";
import { onboard44net } from "./onboard.ts";
import { answerQuery } from "./corroborate.ts";

export function fedNetworkRoutes(gw: Gateway) {
  return new Elysia({ name: "fed-network" })
    .use(gatesPlugin(gw))
    .post("/federation/sync", () => syncAll(gw), { gate: "ingest" })
    .get("/federation/peers", () => peerList(gw), { gate: "sysop" })
    .post("/federation/peers/trust", ({ body }) => setPeerTrust(gw, body), { gate: "sysop" })
    .post("/federation/peers/44net", async ({ body, set }) => {
      const r = await onboard44net(gw, body);
      set.status = r.admitted ? 201 : 200;
      return r;
    }, { gate: "sysop" })
    .get("/federation/peers/:instance/records", ({ params, query }) => mirroredRecords(gw, params.instance, query), { gate: "sysop" })
    .post("/federation/corroborate", ({ body }) => answerQuery(gw, body), { gate: "fed-secret-if-set", rateLimit: "fed" })
    .post("/federation/notify", ({ body, set }) => {
      set.status = 202;
      return receiveNotify(gw, body);
    }, { gate: "public", rateLimit: "fed" });
}
