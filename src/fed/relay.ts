/**
 * The relay: a poll-based rendezvous at a hub for spokes that peers cannot
 * reach (packet-only, or behind no public address). Anyone holding the relay
 * key (`x-relay-secret`) may queue a sync query for a spoke and fetch its
 * result; the spoke answers over one of two legs:
 *
 *   HTTP leg    the spoke leases its queries (`/lease`) and posts its answers
 *               (`/answer`, JSON), each call with its per-spoke HMAC token
 *               (`x-relay-token`);
 *   packet leg  the hub's operator packs the queued queries into signed
 *               relayQuery frames (`/dispatch`), carries them over the air, and
 *               posts the spoke's signed relayAnswer frames back (`/answer`,
 *               CBOR). No secret or token rides on the radio link.
 *
 * Relay frames bind both directions to instances: a relayQuery is signed by
 * the hub, a relayAnswer by the spoke (signed bytes `svc-relay/1` LF +
 * payload). Their CBOR payloads carry the query and the answer as JSON text:
 *
 *   relayQuery  {"kind": "relayQuery",  "hub", "spoke", "id", "at", "query":  "{\"type\":\"cache\",\"since\":0,\"limit\":25}"}
 *   relayAnswer {"kind": "relayAnswer", "hub", "spoke", "id", "at", "answer": "{\"type\":\"cache\",\"since\":0,\"next\":42,\"more\":false,\"pageB64\":\"...\"}"}
 *
 * `pageB64` is a base64 CBOR sync page of the spoke's own signed frames: the
 * querier applies it through the one apply pipeline like any page. A spoke
 * answers only queries addressed to itself, and the hub stores an answer only
 * for a query addressed to the spoke that signed it. Stale entries are pruned
 * (RELAY_QUEUE_TTL_HOURS).
 */
import { createHmac } from "node:crypto";
import type { Core } from "../core/core.ts";
import { AppError, badRequest, conflict, notFound, unauthorized } from "../lib/errors.ts";
import { sameSecret } from "../lib/secret.ts";
import { CborError, decodeCbor, encodeCbor } from "../lib/fed/cbor.ts";
import { verifyEd25519 } from "../lib/fed/ed25519.ts";
import { DEFAULT_PAGE_LIMIT, instanceSigner, MAX_PAGE_LIMIT } from "./feed.ts";
import { DialError, fedJson } from "./dial.ts";
import { getPeer, peerKeys } from "./peers.ts";
import { isB64urlKey, isInstanceId, SYNC_KINDS, type SyncKind } from "../lib/fed/record.ts";
import { syncPage } from "./surface.ts";
import { decodePage } from "../lib/fed/page.ts";
import type { RelayAnswersStored, RelayDispatch, RelayLease, RelayQuery, RelayQueued, RelayResult, StoredAnswer } from "./shapes.ts";

const RELAY_PREFIX = new TextEncoder().encode("svc-relay/1\n");
/** Queries handed to one lease or dispatch at most. */
const RELAY_BATCH = 20;
/** A leased query not answered within this goes back to the queue. */
const RELAY_LEASE_MS = 10 * 60_000;

/** The per-spoke token of the HTTP legs: base64url(HMAC-SHA256(FED_RELAY_SECRET, "svc-relay-token/1" LF instance)). */
export function relayToken(relaySecret: string, instance: string): string {
  return createHmac("sha256", relaySecret).update(`svc-relay-token/1\n${instance}`).digest("base64url");
}

function checkToken(gw: Core, instance: string, given: string | null): void {
  const secret = gw.config.fedRelaySecret!;
  if (!given) throw unauthorized(`the ${instance} leg needs its per-spoke x-relay-token`);
  if (!sameSecret(given, relayToken(secret, instance))) throw new AppError(401, "unauthorized", `x-relay-token is not ${instance}'s token`);
}

function checkRelayQuery(q: unknown): RelayQuery {
  const b = q as Record<string, unknown> | null;
  if (!b || typeof b !== "object" || Array.isArray(b)) throw badRequest("invalid", "a relay query is {type, since?, limit?}");
  if (typeof b.type !== "string" || !(SYNC_KINDS as readonly string[]).includes(b.type))
    throw badRequest("invalid", `type must be one of ${SYNC_KINDS.join(", ")}`);
  const since = b.since ?? 0;
  const limit = b.limit ?? DEFAULT_PAGE_LIMIT;
  if (typeof since !== "number" || !Number.isSafeInteger(since) || since < 0) throw badRequest("invalid", "since must be a cursor");
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
    throw badRequest("invalid", `limit must be 1-${MAX_PAGE_LIMIT}`);
  return { type: b.type as SyncKind, since, limit };
}

// ---------------------------------------------------------------- relay frames

export interface RelayPayload {
  kind: "relayQuery" | "relayAnswer";
  hub: string;
  spoke: string;
  id: number;
  /** unix seconds */
  at: number;
  /** JSON text: the query (relayQuery) or the answer (relayAnswer) */
  body: string;
}

function signRelay(gw: Core, p: RelayPayload): Uint8Array {
  const signer = instanceSigner(gw);
  if (!signer) throw conflict("unsigned", "this instance has no FED_PRIVATE_KEY: it cannot sign relay frames");
  const payload = encodeCbor({ kind: p.kind, hub: p.hub, spoke: p.spoke, id: p.id, at: p.at, [p.kind === "relayQuery" ? "query" : "answer"]: p.body });
  const msg = new Uint8Array(RELAY_PREFIX.length + payload.length);
  msg.set(RELAY_PREFIX);
  msg.set(payload, RELAY_PREFIX.length);
  return encodeCbor(
    new Map<number, Uint8Array | string>([
      [1, payload],
      [2, signer.publicKey],
      [3, signer.sign(msg)],
    ]),
  );
}

/** Decodes a relay frame and checks its signature under its own key; who that key belongs to is the caller's question. */
function openRelayFrame(bytes: Uint8Array): { payload: RelayPayload; signerKey: string } {
  const bad = (m: string) => badRequest("bad_relay_frame", m);
  let m: unknown;
  try {
    m = decodeCbor(bytes, { maxBytes: 16 * 1024 * 1024 + 65_536, maxDepth: 4 });
  } catch (e) {
    if (e instanceof CborError) throw bad(`the relay frame is not canonical CBOR: ${e.message}`);
    throw e;
  }
  if (!(m instanceof Map) || m.size !== 3) throw bad("a relay frame is a map of the keys 1-3");
  const payload = m.get(1);
  const key = m.get(2);
  const sig = m.get(3);
  if (!(payload instanceof Uint8Array) || typeof key !== "string" || !isB64urlKey(key) || !(sig instanceof Uint8Array) || sig.length !== 64)
    throw bad("a relay frame is {1: payload, 2: key, 3: sig}");
  const msg = new Uint8Array(RELAY_PREFIX.length + payload.length);
  msg.set(RELAY_PREFIX);
  msg.set(payload, RELAY_PREFIX.length);
  const verdict = verifyEd25519(Buffer.from(key, "base64url"), msg, sig);
  if (verdict !== "ok") throw bad(`the relay frame's signature does not verify (${verdict})`);
  let p: unknown;
  try {
    p = decodeCbor(payload, { maxBytes: 16 * 1024 * 1024 + 4096, maxDepth: 2, textMaps: "object" });
  } catch (e) {
    if (e instanceof CborError) throw bad(`the relay payload is not canonical CBOR: ${e.message}`);
    throw e;
  }
  const o = p as Record<string, unknown>;
  const kind = o?.kind;
  const body = kind === "relayQuery" ? o.query : o.answer;
  if (
    (kind !== "relayQuery" && kind !== "relayAnswer") ||
    typeof o.hub !== "string" ||
    !isInstanceId(o.hub) ||
    typeof o.spoke !== "string" ||
    !isInstanceId(o.spoke) ||
    typeof o.id !== "number" ||
    typeof o.at !== "number" ||
    typeof body !== "string"
  ) {
    throw bad("a relay payload is {kind, hub, spoke, id, at, query|answer}");
  }
  return { payload: { kind, hub: o.hub, spoke: o.spoke, id: o.id, at: o.at, body }, signerKey: key };
}

/** A CBOR list of relay frames (byte strings), as the packet legs carry them; 400 otherwise. */
export function relayFrameList(bytes: Uint8Array): Uint8Array[] {
  let list: unknown;
  try {
    list = decodeCbor(bytes, { maxBytes: 64 * 1024 * 1024, maxDepth: 2 });
  } catch (e) {
    if (e instanceof CborError) throw badRequest("bad_body", `a CBOR list of relay frames was expected: ${e.message}`);
    throw e;
  }
  if (!Array.isArray(list) || !list.every((f) => f instanceof Uint8Array))
    throw badRequest("bad_body", "a CBOR list of relay frames (byte strings) was expected");
  return list as Uint8Array[];
}

function isActiveKeyOf(gw: Core, instance: string, key: string): boolean {
  const p = getPeer(gw, instance);
  return !!p && p.trust !== "blocked" && peerKeys(gw, instance).some((k) => k.publicKey === key && k.status === "active");
}

// ---------------------------------------------------------------- hub side

interface QueueRow {
  id: number;
  instance: string;
  state: "queued" | "leased" | "answered";
  query: string;
  answer: Uint8Array | null;
  createdAt: number;
  leasedAt: number | null;
  answeredAt: number | null;
}

const ROW = "id, instance, state, query, answer, created_at AS createdAt, leased_at AS leasedAt, answered_at AS answeredAt";

/** The hub relays for spokes it knows (peers that are not blocked: their keys verify their answers). */
function requireRelayHub(gw: Core, spoke: string): void {
  if (!isInstanceId(spoke)) throw badRequest("invalid", `${spoke} is not an instance id`);
  if (spoke === gw.config.instance) throw badRequest("invalid", "that is this instance: ask it directly");
  const p = getPeer(gw, spoke);
  if (!p || p.trust === "blocked") throw new AppError(404, "unknown_spoke", `${spoke} is not a peer this hub relays for`);
}

/** POST /federation/relay/:instance/query (JSON): queues a sync query for the spoke. */
export function queueQuery(gw: Core, spoke: string, body: unknown): RelayQueued {
  requireRelayHub(gw, spoke);
  const q = checkRelayQuery(body);
  const id = Number(
    gw.db.query("INSERT INTO relay_queue (instance, state, query, created_at) VALUES (?, 'queued', ?, ?)").run(spoke, JSON.stringify(q), gw.clock.now())
      .lastInsertRowid,
  );
  return { id, instance: spoke, state: "queued" };
}

/** Takes the spoke's queued queries (and stale leases) and marks them leased. */
function takeQueries(gw: Core, spoke: string): QueueRow[] {
  const now = gw.clock.now();
  return gw.db.transaction(() => {
    const rows = gw.db
      .query(`SELECT ${ROW} FROM relay_queue WHERE instance = ? AND (state = 'queued' OR (state = 'leased' AND leased_at < ?)) ORDER BY id LIMIT ?`)
      .all(spoke, now - RELAY_LEASE_MS, RELAY_BATCH) as QueueRow[];
    const lease = gw.db.query("UPDATE relay_queue SET state = 'leased', leased_at = ? WHERE id = ?");
    for (const r of rows) lease.run(now, r.id);
    return rows;
  })();
}

function queryFrame(gw: Core, r: QueueRow): Uint8Array {
  return signRelay(gw, { kind: "relayQuery", hub: gw.config.instance, spoke: r.instance, id: r.id, at: Math.floor(gw.clock.now() / 1000), body: r.query });
}

/** POST /federation/relay/:instance/lease (HTTP leg, per-spoke token). */
export function leaseQueries(gw: Core, spoke: string, token: string | null): RelayLease {
  requireRelayHub(gw, spoke);
  checkToken(gw, spoke, token);
  if (!instanceSigner(gw)) throw conflict("unsigned", "this hub has no FED_PRIVATE_KEY: it cannot sign relay queries");
  const rows = takeQueries(gw, spoke);
  return {
    instance: spoke,
    queries: rows.map((r) => ({ id: r.id, query: JSON.parse(r.query) as RelayQuery, frame: Buffer.from(queryFrame(gw, r)).toString("base64url") })),
  };
}

/** POST /federation/relay/:instance/dispatch (sysop or ingest): queued queries as signed relayQuery frames for the packet leg. */
export function dispatchQueries(gw: Core, spoke: string): RelayDispatch {
  requireRelayHub(gw, spoke);
  if (!instanceSigner(gw)) throw conflict("unsigned", "this hub has no FED_PRIVATE_KEY: it cannot sign relay queries");
  const rows = takeQueries(gw, spoke);
  return { instance: spoke, ids: rows.map((r) => r.id), frames: rows.map((r) => Buffer.from(queryFrame(gw, r)).toString("base64url")) };
}

/** Checks one relayAnswer frame from `spoke` and stores it against its query. */
function storeAnswer(gw: Core, spoke: string, bytes: Uint8Array): StoredAnswer {
  const { payload, signerKey } = openRelayFrame(bytes);
  const id = payload.id;
  if (payload.kind !== "relayAnswer") return { id, stored: false, reason: "not a relayAnswer" };
  if (payload.spoke !== spoke) return { id, stored: false, reason: `signed for ${payload.spoke}, posted for ${spoke}` };
  if (payload.hub !== gw.config.instance) return { id, stored: false, reason: `addressed to hub ${payload.hub}` };
  if (!isActiveKeyOf(gw, spoke, signerKey)) return { id, stored: false, reason: `not signed by a key of ${spoke} known here` };
  const row = gw.db.query(`SELECT ${ROW} FROM relay_queue WHERE id = ?`).get(id) as QueueRow | null;
  if (!row || row.instance !== spoke) return { id, stored: false, reason: `query ${id} is not addressed to ${spoke}` };
  if (row.state === "answered") return { id, stored: false, reason: "already answered" };
  let answer: { pageB64?: unknown };
  try {
    answer = JSON.parse(payload.body);
  } catch {
    return { id, stored: false, reason: "the answer is not JSON text" };
  }
  if (typeof answer?.pageB64 !== "string") return { id, stored: false, reason: "the answer carries no pageB64" };
  gw.db.query("UPDATE relay_queue SET state = 'answered', answer = ?, answered_at = ? WHERE id = ?").run(bytes, gw.clock.now(), id);
  return { id, stored: true, reason: null };
}

/**
 * POST /federation/relay/:instance/answer. JSON `{answers: [{id, frame}]}`
 * is the HTTP leg (per-spoke token required); a CBOR list of relayAnswer
 * frames is the packet leg, carried back by the hub's own operator (no token:
 * the spoke's signature authenticates each answer).
 */
/** The most answers one JSON post carries. */
export const MAX_RELAY_ANSWERS = 1000;

export function postAnswers(gw: Core, spoke: string, body: unknown, cbor: boolean, token: string | null): RelayAnswersStored {
  requireRelayHub(gw, spoke);
  let frames: Uint8Array[];
  if (cbor) {
    frames = relayFrameList(body as Uint8Array);
  } else {
    checkToken(gw, spoke, token);
    // {answers: [{id, frame}]}, at most MAX_RELAY_ANSWERS (its form checked at the route)
    frames = (body as { answers: Array<{ frame: string }> }).answers.map((a) => new Uint8Array(Buffer.from(a.frame, "base64url")));
  }
  return { instance: spoke, answers: frames.map((f) => storeAnswer(gw, spoke, f)) };
}

/** GET /federation/relay/:instance/result/:id */
export function relayResult(gw: Core, spoke: string, id: string): RelayResult {
  requireRelayHub(gw, spoke);
  const row = gw.db.query(`SELECT ${ROW} FROM relay_queue WHERE id = ? AND instance = ?`).get(Number(id), spoke) as QueueRow | null;
  if (!row) throw notFound(`relay query ${id} for ${spoke}`);
  let pageB64: string | null = null;
  if (row.answer) pageB64 = (JSON.parse(openRelayFrame(row.answer).payload.body) as { pageB64: string }).pageB64;
  return {
    id: row.id,
    instance: row.instance,
    state: row.state,
    query: JSON.parse(row.query) as RelayQuery,
    createdAt: row.createdAt,
    answeredAt: row.answeredAt,
    pageB64,
    frame: row.answer ? Buffer.from(row.answer).toString("base64url") : null,
  };
}

// ---------------------------------------------------------------- spoke side

/**
 * Answers relayQuery frames addressed to this instance and signed by a peer
 * it knows (its hub): each becomes a signed relayAnswer carrying one sync
 * page. A frame addressed elsewhere, or signed by a key not known here, is
 * refused, never answered.
 */
export function answerRelayFrames(gw: Core, frames: Uint8Array[]): { answers: Uint8Array[]; refused: Array<{ index: number; reason: string }> } {
  const answers: Uint8Array[] = [];
  const refused: Array<{ index: number; reason: string }> = [];
  frames.forEach((f, index) => {
    try {
      const { payload, signerKey } = openRelayFrame(f);
      if (payload.kind !== "relayQuery") throw new Error("not a relayQuery");
      if (payload.spoke !== gw.config.instance) throw new Error(`addressed to ${payload.spoke}, not to this instance`);
      if (!isActiveKeyOf(gw, payload.hub, signerKey)) throw new Error(`not signed by a key of ${payload.hub} known here`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(payload.body);
      } catch {
        throw new Error("the query is not JSON text");
      }
      const q = checkRelayQuery(parsed);
      const page = syncPage(gw, q.type, { since: q.since, limit: Math.min(q.limit, gw.config.fedSyncBatch) });
      const d = decodePage(page);
      const answer = JSON.stringify({ type: q.type, since: q.since, next: d.next, more: d.more, pageB64: Buffer.from(page).toString("base64") });
      answers.push(
        signRelay(gw, {
          kind: "relayAnswer",
          hub: payload.hub,
          spoke: gw.config.instance,
          id: payload.id,
          at: Math.floor(gw.clock.now() / 1000),
          body: answer,
        }),
      );
    } catch (e) {
      refused.push({ index, reason: e instanceof AppError ? e.message : (e as Error).message });
    }
  });
  return { answers, refused };
}

export interface SpokeReport {
  ok: boolean;
  skipped?: string;
  error: string | null;
  leased: number;
  answered: number;
  refused: number;
}

/** The spoke's HTTP leg (the relay-spoke task): lease its queries at FED_HUB_URL and post the answers. */
export async function relaySpoke(gw: Core): Promise<SpokeReport> {
  const c = gw.config;
  const out: SpokeReport = { ok: false, error: null, leased: 0, answered: 0, refused: 0 };
  if (!c.fedHubUrl || !c.fedRelayToken || !c.fedRelaySecret)
    return { ...out, ok: true, skipped: "FED_HUB_URL, FED_RELAY_SECRET and FED_RELAY_TOKEN are not all set" };
  if (!instanceSigner(gw)) return { ...out, skipped: "this instance is unsigned" };
  const headers = { "x-relay-secret": c.fedRelaySecret, "x-relay-token": c.fedRelayToken };
  const base = `${c.fedHubUrl}/federation/relay/${c.instance}`;
  try {
    const { body } = await fedJson<{ queries?: Array<{ id: number; frame: string }> }>(gw, `${base}/lease`, {
      method: "POST",
      json: {},
      headers,
      timeoutMs: 15_000,
    });
    const frames = (body.queries ?? []).map((q) => new Uint8Array(Buffer.from(q.frame, "base64url")));
    out.leased = frames.length;
    if (frames.length === 0) return { ...out, ok: true };
    const { answers, refused } = answerRelayFrames(gw, frames);
    out.refused = refused.length;
    if (answers.length) {
      const ids = answers.map((a) => openRelayFrame(a).payload.id);
      const r = await fedJson<{ answers: StoredAnswer[] }>(gw, `${base}/answer`, {
        method: "POST",
        json: { answers: answers.map((a, i) => ({ id: ids[i], frame: Buffer.from(a).toString("base64url") })) },
        headers,
        timeoutMs: 60_000,
        maxBytes: 1024 * 1024,
      });
      out.answered = r.body.answers.filter((a) => a.stored).length;
    }
    out.ok = true;
  } catch (e) {
    if (!(e instanceof DialError)) throw e;
    out.error = `${e.code}: ${e.message}`;
  }
  return out;
}

// ---------------------------------------------------------------- querier side

/** Queues a query for `spoke` at a relay hub; returns its id. */
export async function askRelay(gw: Core, hubUrl: string, spoke: string, q: RelayQuery): Promise<number> {
  if (!gw.config.fedRelaySecret) throw new DialError("no_relay_secret", "FED_RELAY_SECRET is not set: the relay hub's key is needed");
  const { body } = await fedJson<{ id: number }>(gw, `${hubUrl}/federation/relay/${spoke}/query`, {
    method: "POST",
    json: q,
    headers: { "x-relay-secret": gw.config.fedRelaySecret },
    timeoutMs: 15_000,
  });
  return body.id;
}

/**
 * Fetches a relay result; when answered, checks the relayAnswer is the
 * spoke's own (signed by its key, for this query) and returns the page bytes
 * and where the feed's cursor goes next. Null while not answered.
 */
export async function fetchRelayResult(gw: Core, hubUrl: string, spoke: string, id: number): Promise<{ page: Uint8Array; next: number; more: boolean } | null> {
  const { body } = await fedJson<{ state: string; frame: string | null }>(gw, `${hubUrl}/federation/relay/${spoke}/result/${id}`, {
    headers: { "x-relay-secret": gw.config.fedRelaySecret ?? "" },
    timeoutMs: 30_000,
    maxBytes: 32 * 1024 * 1024,
  });
  if (body.state !== "answered" || !body.frame) return null;
  const { payload, signerKey } = openRelayFrame(new Uint8Array(Buffer.from(body.frame, "base64url")));
  if (payload.kind !== "relayAnswer" || payload.spoke !== spoke || payload.id !== id)
    throw new DialError("bad_relay_answer", `the answer is not ${spoke}'s answer to query ${id}`);
  if (!isActiveKeyOf(gw, spoke, signerKey)) throw new DialError("bad_relay_answer", `the answer is not signed by a key of ${spoke} known here`);
  const a = JSON.parse(payload.body) as { pageB64: string; next: number; more: boolean };
  return { page: new Uint8Array(Buffer.from(a.pageB64, "base64")), next: a.next, more: a.more };
}
