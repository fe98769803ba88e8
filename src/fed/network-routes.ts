/**
 * Routes of the federation network: pull now, the sysop's peer
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
import { submit } from "./hub.ts";
import { answerRelayFrames, dispatchQueries, leaseQueries, postAnswers, queueQuery, relayFrameList, relayResult } from "./relay.ts";
import { cborBody } from "../http/params.ts";
import { acceptOnly, allowLargerBody, mediaType } from "../http/body.ts";
import { CBOR_TYPE, MAX_PAGE_BYTES } from "./page.ts";
import { encodeCbor } from "./cbor.ts";

allowLargerBody("POST", /^\/federation\/submit$/, MAX_PAGE_BYTES);
acceptOnly("POST", /^\/federation\/submit$/, CBOR_TYPE);
allowLargerBody("POST", /^\/federation\/relay\/[^/]+\/(answer|query)$/, 4 * MAX_PAGE_BYTES);

export function fedNetworkRoutes(gw: Gateway) {
  return new Elysia({ name: "fed-network" })
    .use(gatesPlugin(gw))
    .post("/federation/sync", () => syncAll(gw), { gate: "ingest" })
    .get("/federation/peers", () => peerList(gw), { gate: "sysop" })
    .post("/federation/peers/trust", ({ body }) => setPeerTrust(gw, body), { gate: "sysop" })
    .post(
      "/federation/peers/44net",
      async ({ body, set }) => {
        const r = await onboard44net(gw, body);
        set.status = r.admitted ? 201 : 200;
        return r;
      },
      { gate: "sysop" },
    )
    .get("/federation/peers/:instance/records", ({ params, query }) => mirroredRecords(gw, params.instance, query), { gate: "sysop" })
    .post("/federation/corroborate", ({ body }) => answerQuery(gw, body), { gate: "fed-secret-if-set", rateLimit: "fed" })
    .post("/federation/submit", ({ request, body }) => submit(gw, cborBody(request, body)), { gate: "fed-secret" })
    .post(
      "/federation/relay/:instance/query",
      ({ params, request, body, set }) => {
        if (params.instance === gw.config.instance) {
          // The packet leg at the spoke: relayQuery frames heard on the air, answered with relayAnswer frames.
          const list = relayFrameList(cborBody(request, body));
          const r = answerRelayFrames(gw, list);
          set.headers["content-type"] = CBOR_TYPE;
          set.headers["x-relay-refused"] = String(r.refused.length);
          return new Response(encodeCbor(r.answers) as Uint8Array<ArrayBuffer>, { headers: set.headers as Record<string, string> });
        }
        set.status = 202;
        return queueQuery(gw, params.instance, body);
      },
      { gate: "relay" },
    )
    .post("/federation/relay/:instance/lease", ({ params, request }) => leaseQueries(gw, params.instance, request.headers.get("x-relay-token")), {
      gate: "relay",
    })
    .post(
      "/federation/relay/:instance/answer",
      ({ params, request, body }) => {
        const cbor = mediaType(request.headers.get("content-type")) === CBOR_TYPE;
        return postAnswers(gw, params.instance, cbor ? cborBody(request, body) : body, cbor, request.headers.get("x-relay-token"));
      },
      { gate: "relay" },
    )
    .get("/federation/relay/:instance/result/:id", ({ params }) => relayResult(gw, params.instance, params.id), { gate: "relay" })
    .post("/federation/relay/:instance/dispatch", ({ params }) => dispatchQueries(gw, params.instance), { gate: "sysop" })
    .post(
      "/federation/notify",
      ({ body, set }) => {
        set.status = 202;
        return receiveNotify(gw, body);
      },
      { gate: "public", rateLimit: "fed" },
    );
}
