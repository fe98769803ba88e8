/**
 * Routes of the federation network: pull now, the sysop's peer
 * list and trust, gossip. Thin: parse, gate, one service call.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { mirroredRecords, peerList, setPeerTrust } from "./admin.ts";
import { receiveNotify } from "./gossip.ts";
import { syncAll } from "./sync.ts";
import { onboard44net } from "./onboard.ts";
import { answerQuery } from "./corroborate.ts";
import { submit } from "./hub-and-spoke.ts";
import { answerRelayFrames, dispatchQueries, leaseQueries, MAX_RELAY_ANSWERS, postAnswers, queueQuery, relayFrameList, relayResult } from "./relay.ts";
import { cborBody, cborPageRoute } from "../http/params.ts";
import { closed, wholeNumber } from "../lib/schema.ts";
import { mediaType } from "../http/body.ts";
import { CBOR_TYPE, MAX_PAGE_BYTES } from "../lib/fed/page.ts";
import { encodeCbor } from "../lib/fed/cbor.ts";
import { B64URL_KEY_PATTERN, INSTANCE_ID_PATTERN, SYNC_KINDS } from "../lib/fed/record.ts";
import { answers, answersMedia } from "../http/openapi.ts";
import {
  CORROBORATION_ANSWER,
  MIRRORED_RECORDS,
  NOTIFY_ANSWER,
  ONBOARD_ADMITTED,
  ONBOARD_CONFIRM,
  PEER_LIST,
  PEER_VIEW,
  RELAY_ANSWERS_STORED,
  RELAY_DISPATCH,
  RELAY_LEASE,
  RELAY_QUEUED,
  RELAY_RESULT,
  SUBMIT_REPORT,
  SYNC_ALL_REPORT,
} from "./shapes.ts";

const tags = ["Federation"];
const instanceId = (description: string) => t.String({ pattern: INSTANCE_ID_PATTERN, description });
/** A peer named in the path: one this instance does not know answers 404. */
const peerParams = t.Object({ instance: t.String({ description: "the peer's instance id (one not known here answers 404)" }) });
const relayParams = t.Object({ instance: t.String({ description: "the spoke: the peer the relay carries queries to (one not relayed for answers 404)" }) });

/** The JSON leg of /relay/:instance/query: a sync query to queue for the spoke. */
const RELAY_QUERY = closed(
  {
    type: t.String({ description: `the record kind: ${SYNC_KINDS.join(", ")}` }),
    since: t.Optional(wholeNumber({ description: "the cursor (default 0)" })),
    limit: t.Optional(wholeNumber({ description: "records per page" })),
  },
  { description: "JSON: a sync query to queue for the spoke" },
);
/** The JSON leg of /relay/:instance/answer: the spoke's answers as base64url frames. */
const RELAY_ANSWERS = closed(
  {
    answers: t.Array(closed({ id: t.Optional(wholeNumber()), frame: t.String({ description: "a base64url relayAnswer frame" }) }), {
      maxItems: MAX_RELAY_ANSWERS,
    }),
  },
  { description: "JSON, the HTTP leg (needs the spoke's x-relay-token)" },
);

export function fedNetworkRoutes(gw: Core, kit: RouteKit) {
  return kit.app
    .post("/federation/sync", () => syncAll(gw), {
      gate: "ingest",
      detail: {
        summary: "Pull from every peer now (as the scheduler does); answers what each pull applied",
        tags,
        responses: answers("each peer's pull, the FED_PEERS that could not be reached, and the registry refresh", SYNC_ALL_REPORT),
      },
    })
    .get("/federation/peers", () => peerList(gw), {
      gate: "sysop",
      detail: {
        summary: "The peers this instance knows: trust, keys, endpoints, cursors and quarantined records",
        tags,
        responses: answers("the peers and the quarantined origins", PEER_LIST),
      },
    })
    .post("/federation/peers/trust", ({ body }) => setPeerTrust(gw, body), {
      gate: "sysop",
      body: closed({
        instance: instanceId("the peer's instance id"),
        trust: t.Union([t.Literal("trusted"), t.Literal("unvetted"), t.Literal("blocked")], { description: "the trust tier to set" }),
      }),
      detail: { summary: "Set a peer's trust: trusted, unvetted or blocked", tags, responses: answers("the peer as it is now", PEER_VIEW) },
    })
    .post(
      "/federation/peers/44net",
      async ({ body, set }) => {
        const r = await onboard44net(gw, body);
        set.status = r.admitted ? 201 : 200;
        return r;
      },
      {
        gate: "sysop",
        body: closed({
          callsign: t.String({ description: "the operator's callsign: its <call>.ampr.org host is the peer" }),
          confirm: t.Optional(t.Boolean({ description: "true: admit the binding shown (when DNS had no DNSSEC)" })),
          key: t.Optional(t.String({ pattern: B64URL_KEY_PATTERN, description: "with confirm: the base64url key you were shown" })),
        }),
        detail: {
          summary: "Onboard a 44net peer from its _svc.<call>.ampr.org TXT record: admitted (201), or its binding back for confirmation (200)",
          tags,
          responses: {
            ...answers("admitted: the binding and the peer", ONBOARD_ADMITTED, 201),
            ...answers("without DNSSEC: the binding, to confirm (send again with confirm: true and its key)", ONBOARD_CONFIRM),
          },
        },
      },
    )
    .get("/federation/peers/:instance/records", ({ params, query }) => mirroredRecords(gw, params.instance, query), {
      gate: "sysop",
      params: peerParams,
      query: t.Object({
        after: t.Optional(t.String({ description: "the next page: the `next` gid of the previous one" })),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 5000, description: "records, 1-5000 (default 500)" })),
      }),
      detail: { summary: "What is mirrored from a peer, by gid, paged", tags, responses: answers("a page of mirrored records", MIRRORED_RECORDS) },
    })
    .post("/federation/corroborate", ({ body }) => answerQuery(gw, body), {
      gate: "fed-secret-if-set",
      rateLimit: "fed",
      body: closed({
        v: t.Literal(1),
        from: instanceId("the asking instance's id"),
        id: t.String({ pattern: "^[A-Za-z0-9_-]{1,64}$", description: "the question's id, 1-64 of A-Z a-z 0-9 _ -" }),
        call: t.String({ description: "the callsign asked about" }),
        lat: t.Number({ minimum: -90, maximum: 90, description: "the cell's centre, degrees" }),
        lon: t.Number({ minimum: -180, maximum: 180 }),
        gridDeg: t.Number({ minimum: 0.0001, maximum: 1, description: "the cell's size, degrees (no finer than ours)" }),
        timeBucket: t.Number({ minimum: 0, maximum: 1e11, description: "unix seconds, a multiple of bucketS" }),
        bucketS: t.Number({ minimum: 60, maximum: 86_400, description: "seconds (at most 3600)" }),
        windowS: t.Number({ minimum: 0, maximum: 86_400, description: "seconds either side (no wider than ours)" }),
        exclude: t.Array(t.String(), { maxItems: 16, description: "the asker's own IGates (their sightings are not independent)" }),
        revealIgate: t.Boolean({ description: "name the IGate that heard it, if this instance allows" }),
      }),
      detail: {
        summary: "Corroborate a find: did this instance hear the callsign near there, then (coarse cell and time only)",
        tags,
        responses: answers("this instance's answer", CORROBORATION_ANSWER),
      },
    })
    .post("/federation/submit", ({ request, body }) => submit(gw, cborBody(request, body)), {
      gate: "fed-secret",
      ...cborPageRoute({
        body: "a CBOR sync page of the submitter's own signed records",
        summary: "A spoke pushes its own signed records to this hub (CBOR page)",
        tags,
        responses: answers("what was applied, and whether the submitter joined", SUBMIT_REPORT),
      }),
    })
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
      {
        gate: "relay",
        bodyLimit: 4 * MAX_PAGE_BYTES,
        params: relayParams,
        body: t.Union([RELAY_QUERY, t.Uint8Array({ description: "CBOR, at the spoke itself: a list of relayQuery frames heard on the air" })]),
        detail: {
          summary: "Queue a sync query for a spoke behind the relay (202); at the spoke itself, answer relayQuery frames with relayAnswer frames (CBOR)",
          tags,
          responses: {
            ...answers("queued for the spoke", RELAY_QUEUED, 202),
            ...answersMedia("at the spoke itself: a CBOR list of signed relayAnswer frames (x-relay-refused: how many frames were refused)", CBOR_TYPE),
          },
        },
      },
    )
    .post("/federation/relay/:instance/lease", ({ params, request }) => leaseQueries(gw, params.instance, request.headers.get("x-relay-token")), {
      gate: "relay",
      params: relayParams,
      detail: {
        summary: "The spoke leases its queued queries as signed relayQuery frames (needs its x-relay-token)",
        tags,
        responses: answers("the queries leased (at most 20)", RELAY_LEASE),
      },
    })
    .post(
      "/federation/relay/:instance/answer",
      ({ params, request, body }) => {
        const cbor = mediaType(request.headers.get("content-type")) === CBOR_TYPE;
        return postAnswers(gw, params.instance, cbor ? cborBody(request, body) : body, cbor, request.headers.get("x-relay-token"));
      },
      {
        gate: "relay",
        bodyLimit: 4 * MAX_PAGE_BYTES,
        params: relayParams,
        body: t.Union([
          RELAY_ANSWERS,
          t.Uint8Array({ description: "CBOR, the packet leg: a list of relayAnswer frames (the spoke's signature authenticates each)" }),
        ]),
        detail: {
          summary: "The spoke's answers to relayed queries, stored against their queries; one result per answer",
          tags,
          responses: answers("whether each answer was stored", RELAY_ANSWERS_STORED),
        },
      },
    )
    .get("/federation/relay/:instance/result/:id", ({ params }) => relayResult(gw, params.instance, params.id), {
      gate: "relay",
      params: t.Object({
        instance: relayParams.properties.instance,
        id: t.String({ pattern: "^\\d{1,15}$", description: "the relay query's id (from POST .../query)" }),
      }),
      detail: { summary: "A relayed query's state and, once answered, its page (base64)", tags, responses: answers("the query's state", RELAY_RESULT) },
    })
    .post("/federation/relay/:instance/dispatch", ({ params }) => dispatchQueries(gw, params.instance), {
      gate: "sysop",
      params: relayParams,
      detail: {
        summary: "Pack a spoke's queued queries into signed relayQuery frames for the packet leg",
        tags,
        responses: answers("the queries packed (at most 20)", RELAY_DISPATCH),
      },
    })
    .post(
      "/federation/notify",
      ({ body, set }) => {
        set.status = 202;
        return receiveNotify(gw, body);
      },
      {
        gate: "public",
        rateLimit: "fed",
        // open on purpose: a newer peer's ping may carry more, and an older gateway still pulls it (no version member to say so)
        body: t.Object({ instance: instanceId("the sender's instance id") }, { additionalProperties: true }),
        detail: {
          summary: "Gossip: a peer says it has new records; a known, unblocked peer is pulled soon",
          tags,
          responses: answers("whether a pull was started (or joined), or why not", NOTIFY_ANSWER, 202),
        },
      },
    );
}
