/**
 * The federation's JSON answers, defined once: the schemas the OpenAPI
 * document shows for /.well-known/svc and /federation/*, and the types the
 * services build (descriptor.ts, surface.ts, admin.ts, sync.ts, apply.ts,
 * relay.ts, beacon.ts, ...). Shapes the protocol library keeps as its own
 * types (endpoints, rotation records, link capabilities) are mirrored here,
 * and the compiler holds them equal (below).
 *
 * This file imports only the library: every service imports its types from
 * here, so nothing here may import a service.
 */
import { t } from "elysia";
import type { Static, TOptional, TSchema } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber, type Same } from "../lib/schema.ts";
import type { Endpoint } from "../lib/fed/endpoints.ts";
import type { RotationRecord } from "../lib/fed/keys.ts";
import type { LinkCaps, NegotiatedLink } from "../lib/fed/caps.ts";
import { FED_DOMAIN, SYNC_KINDS, type SyncKind } from "../lib/fed/record.ts";
import { FIND_LOG_KINDS } from "../lib/log-kinds.ts";

const unixS = (description = "unix seconds") => wholeNumber({ description });
const literals = <T extends string>(values: readonly T[], description?: string) =>
  t.Union(
    values.map((v) => t.Literal(v)),
    description ? { description } : {},
  );

/** A record kind of a sync feed. */
export const SYNC_KIND = literals(SYNC_KINDS, "a sync feed's record kind");
/** A value per sync feed, by the feed's kind (feeds without one are left out). */
const perFeed = <T extends TSchema>(value: T, description: string) =>
  closed(Object.fromEntries(SYNC_KINDS.map((k) => [k, t.Optional(value) as TOptional<T>])) as Record<SyncKind, TOptional<T>>, { description });

export const TRUST_TIER = literals(["trusted", "unvetted", "blocked"] as const, "how far the peer is trusted");
export type TrustTier = Static<typeof TRUST_TIER>;

/** A typed endpoint (lib/fed/endpoints.ts), parsed. */
export const ENDPOINT = closed({
  transport: literals(["https", "ampr", "ax25", "netrom", "bbs"] as const),
  address: t.String(),
  priority: wholeNumber({ description: "lower is preferred" }),
});

/** A signed key rotation (lib/fed/keys.ts). */
export const ROTATION_RECORD = closed({
  type: t.Literal("key-rotation"),
  instance: t.String(),
  from: t.String({ description: "the old key (base64url)" }),
  to: t.String({ description: "the new key (base64url)" }),
  revoke: t.Boolean({ description: "the old key is retired" }),
  at: unixS(),
  sig: t.String({ description: "base64url signature by `from`" }),
});

const COMPRESSION = literals(["deflateDict1", "none"] as const);
const LINK_CAPS_FIELDS = {
  tier: literals(["full", "compact", "beacon"] as const, "rate class"),
  baud: wholeNumber({ description: "bits per second; 0: not limited by a radio" }),
  mtu: wholeNumber({ description: "the largest unit, bytes" }),
  batch: wholeNumber({ description: "records per page at most" }),
  compress: t.Array(COMPRESSION, { description: "page compressions supported" }),
  records: t.Array(wholeNumber(), { description: "record types carried, ascending" }),
};
/** Link capabilities (lib/fed/caps.ts). */
export const LINK_CAPS = closed(LINK_CAPS_FIELDS);
/** Link capabilities intersected: with the one compression to use. */
export const NEGOTIATED_LINK = closed({ ...LINK_CAPS_FIELDS, compression: COMPRESSION });

// ---------------------------------------------------------------- this instance

export const OWN_KEY = closed({
  key: t.String({ description: "base64url Ed25519 key" }),
  status: literals(["active", "revoked"] as const),
  since: unixS("first used, unix seconds"),
});
export type OwnKey = Static<typeof OWN_KEY>;

/** GET /.well-known/svc: this instance as others see it. */
export const DESCRIPTOR = closed({
  instance: t.String(),
  protocol: t.Literal(FED_DOMAIN),
  software: closed({ name: t.String(), version: t.String() }),
  signed: t.Boolean({ description: "it has a signing key (FED_PRIVATE_KEY): it serves sync feeds" }),
  keys: t.Array(OWN_KEY, { description: "every key this instance has signed with, oldest first; records verify under any active one" }),
  rotations: t.Array(ROTATION_RECORD, { description: "the signed rotation records chaining those keys, oldest first" }),
  endpoints: t.Array(ENDPOINT, { description: "typed endpoints from FED_ENDPOINTS, by priority" }),
  url: nullable(t.String(), "PUBLIC_URL: the legacy https fallback"),
  capabilities: t.Array(t.String()),
  feeds: t.Array(SYNC_KIND, { description: "the sync feeds served (none on an unsigned instance)" }),
  heads: perFeed(wholeNumber(), "per feed, the cursor of its newest frame: a puller whose cursor is there has nothing to ask for"),
  operator: nullable(t.String()),
  aprsCall: nullable(t.String()),
  record: nullable(t.String(), "base64url of this instance's signed peer-descriptor frame (type 7); null when unsigned"),
  link: nullable(LINK_CAPS, "the link capabilities of the HTTP sync surface; null when unsigned"),
});
export type Descriptor = Static<typeof DESCRIPTOR>;

// ---------------------------------------------------------------- browse feeds and the registry view

const ITEM = {
  gid: t.String({ description: "the record's global id" }),
  v: wholeNumber({ description: "its version" }),
  at: unixMs("when it was signed, unix ms"),
  signed: t.Boolean({ description: "a signed frame is held (false: not signed yet)" }),
};
const nullableText = (description?: string) => nullable(t.String(), description);

/** The JSON browse feeds' items by record kind: the record's gid, version, signing time and its body in the domains' JSON terms (times in ms). */
export const BROWSE_ITEMS = {
  cache: closed({
    ...ITEM,
    name: t.String(),
    type: t.String(),
    size: t.String(),
    difficulty: t.Number(),
    terrain: t.Number(),
    lat: t.Number(),
    lon: t.Number(),
    status: t.String(),
    hint: nullableText(),
    description: nullableText("null when there is none, and always for an unlisted cache"),
    attributes: t.Array(t.Number(), { description: "signed attribute ids: +id yes, -id no" }),
    unlisted: t.Boolean(),
    ownerCall: nullableText(),
    ownerAccount: nullableText("the owner's account gid"),
    placedAt: nullable(unixMs()),
    needsMaintenance: t.Optional(t.Literal(true, { description: "present while a needs-maintenance or needs-archive log is open" })),
    eventStartAt: t.Optional(unixMs("event caches")),
    eventEndAt: t.Optional(unixMs("event caches")),
    timeZone: t.Optional(t.String({ description: "event caches: the IANA time zone" })),
    waypoints: t.Optional(
      t.Array(closed({ kind: t.String(), name: t.String(), lat: nullable(t.Number()), lon: nullable(t.Number()), note: nullableText() }), {
        description: "its public waypoints",
      }),
    ),
  }),
  find: closed({
    ...ITEM,
    cache: t.String({ description: "the cache's gid" }),
    kind: literals(FIND_LOG_KINDS),
    loggedAt: unixMs(),
    call: nullableText("null once the find is withdrawn"),
    account: nullableText(),
    text: nullableText(),
    tier: nullableText(),
    state: nullableText(),
    distanceM: nullable(t.Number()),
  }),
  bulletin: closed({
    ...ITEM,
    from: t.String(),
    category: t.String(),
    area: t.Optional(t.String()),
    subject: t.String(),
    text: t.String(),
    bid: t.Optional(t.String()),
    postedAt: unixMs(),
  }),
  key: closed({
    ...ITEM,
    call: t.String(),
    key: t.String({ description: "base64url Ed25519 key" }),
    account: t.Optional(t.String()),
    createdAt: unixMs(),
    revokedAt: t.Optional(unixMs()),
  }),
  tombstone: closed(ITEM, { description: "the gid is the record it deletes" }),
  "account-move": closed({ ...ITEM, from: t.String({ description: "the account here" }), to: t.String({ description: "the account it moved to" }) }),
};
/** The record kinds served as JSON browse feeds. */
export type BrowseKind = keyof typeof BROWSE_ITEMS;
export type BrowseItem = Static<(typeof BROWSE_ITEMS)[BrowseKind]>;

const pageOf = <I extends TSchema>(item: I) =>
  closed({
    instance: t.String(),
    items: t.Array(item),
    next: wholeNumber({ description: "the cursor: `since` of the next page" }),
    more: t.Boolean({ description: "there is more after `next`" }),
  });
/** One page of a JSON browse feed, by the feed's record kind. */
export const BROWSE_PAGES = {
  cache: pageOf(BROWSE_ITEMS.cache),
  find: pageOf(BROWSE_ITEMS.find),
  bulletin: pageOf(BROWSE_ITEMS.bulletin),
  key: pageOf(BROWSE_ITEMS.key),
  tombstone: pageOf(BROWSE_ITEMS.tombstone),
  "account-move": pageOf(BROWSE_ITEMS["account-move"]),
};
/** A page of any browse feed (what the service builds; each route declares its own kind's page). */
const BROWSE_PAGE = pageOf(t.Union(Object.values(BROWSE_ITEMS)));
export type BrowsePage = Static<typeof BROWSE_PAGE>;

export const REGISTRY_BINDING = closed({
  instance: t.String(),
  keys: t.Array(t.String(), { description: "the keys the registry binds it to" }),
  operators: t.Array(t.String()),
  aprsCall: nullable(t.String()),
});
export type RegistryBinding = Static<typeof REGISTRY_BINDING>;

export const REGISTRY_SOURCE = closed({
  source: t.String({ description: "the document's URL" }),
  name: nullable(t.String()),
  signerKey: t.String(),
  signedAt: unixS("the document's `at`, unix seconds"),
  dnssec: nullable(t.Boolean(), "the DNS anchor's AD flag; null without a DNS anchor"),
  fetchedAt: unixMs(),
  error: nullable(t.String(), "the last refresh's failure"),
});
export type RegistrySource = Static<typeof REGISTRY_SOURCE>;

/** GET /federation/registry: this instance first (on the first page), then its peers that are not blocked. */
export const REGISTRY_VIEW = closed({
  instance: t.String(),
  registry: nullable(REGISTRY_SOURCE, "the registry this instance follows, if any"),
  items: t.Array(
    t.Union([
      closed({
        instance: t.String(),
        self: t.Literal(true),
        trust: t.Null(),
        keys: t.Array(t.String(), { description: "active keys" }),
        operator: nullable(t.String()),
        aprsCall: nullable(t.String()),
        endpoints: t.Array(ENDPOINT, { description: "its ampr endpoints" }),
      }),
      closed({
        instance: t.String(),
        self: t.Literal(false),
        trust: TRUST_TIER,
        keys: t.Array(t.String(), { description: "the active keys its records are accepted under" }),
        verifiedVia: nullable(t.String()),
        endpoints: t.Array(ENDPOINT),
        registry: nullable(REGISTRY_BINDING),
      }),
    ]),
  ),
  next: wholeNumber({ description: "the cursor: `since` of the next page" }),
  more: t.Boolean(),
});
export type RegistryView = Static<typeof REGISTRY_VIEW>;

// ---------------------------------------------------------------- applying frames

/** What the apply pipeline did with a batch of frames. */
export const APPLY_REPORT = closed({
  received: wholeNumber(),
  applied: wholeNumber(),
  duplicate: wholeNumber({ description: "already held at this or a newer version" }),
  suppressed: wholeNumber({ description: "a tombstoned gid, or a record of an erased account" }),
  quarantined: wholeNumber({ description: "from an unknown or blocked origin" }),
  own: wholeNumber({ description: "this instance's own records, come back" }),
  skipped: wholeNumber({ description: "of a record type this version does not know" }),
  rejected: wholeNumber(),
  reasons: t.Record(t.String(), wholeNumber(), { description: "rejections by code" }),
  failures: t.Array(closed({ index: wholeNumber(), gid: t.Optional(t.String()), code: t.String(), message: t.String() }), {
    description: "the first rejections (at most 20)",
  }),
});
export type ApplyReport = Static<typeof APPLY_REPORT>;

/** POST /federation/submit: a spoke's records applied at its hub. */
export const SUBMIT_REPORT = closed({
  ...APPLY_REPORT.properties,
  submitter: t.String(),
  added: t.Boolean({ description: "the submitter was not known: it joined as an unvetted peer" }),
});
export type SubmitReport = Static<typeof SUBMIT_REPORT>;

// ---------------------------------------------------------------- peers

export const QUARANTINE_ROW = closed({
  origin: t.String(),
  reason: t.String({ description: "unknown or blocked" }),
  frames: wholeNumber({ description: "frames refused" }),
  firstAt: unixMs(),
  lastAt: unixMs(),
});
export type QuarantineRow = Static<typeof QUARANTINE_ROW>;

export const PEER_HEALTH_STATUS = literals(["ok", "failing", "never", "no_sync_endpoint", "blocked"] as const);
export type HealthStatus = Static<typeof PEER_HEALTH_STATUS>;

/** A peer as the sysop sees it. */
export const PEER_VIEW = closed({
  instance: t.String(),
  trust: TRUST_TIER,
  trustSetBy: nullable(t.String(), "config, discovery, operator or auto"),
  foundVia: nullable(t.String(), "config, registry, transitive:<instance>, 44net, submit, operator"),
  verifiedVia: nullable(t.String()),
  url: nullable(t.String()),
  syncUrl: nullable(t.String(), "the URL sync uses, or null"),
  endpoints: t.Array(ENDPOINT),
  keyPin: nullable(t.String()),
  keys: t.Array(
    closed({
      key: t.String(),
      status: literals(["active", "revoked"] as const),
      via: literals(["pin", "rotation", "operator", "registry"] as const),
    }),
  ),
  repConfirmed: wholeNumber(),
  repFailed: wholeNumber(),
  health: closed({
    status: PEER_HEALTH_STATUS,
    lastSyncAt: nullable(unixMs()),
    lastOkAt: nullable(unixMs()),
    lastError: nullable(t.String()),
    failures: wholeNumber({ description: "failed syncs in a row" }),
    framesApplied: wholeNumber(),
    framesRejected: wholeNumber(),
    lastAppliedAt: nullable(unixMs()),
  }),
  link: nullable(NEGOTIATED_LINK, "what its last pull negotiated"),
  feeds: t.Array(t.String(), { description: "the feeds its last pull asked for" }),
  cursors: perFeed(wholeNumber(), "where the pull of each feed stands"),
  mirrored: wholeNumber({ description: "records mirrored from it now" }),
  registry: nullable(
    closed({ keys: t.Array(t.String()), operators: t.Array(t.String()), matches: t.Boolean({ description: "its active keys are all bound" }) }),
    "the registry's binding of it, when a registry binds it",
  ),
});
export type PeerView = Static<typeof PEER_VIEW>;

/** GET /federation/peers */
export const PEER_LIST = closed({
  instance: t.String(),
  peers: t.Array(PEER_VIEW),
  quarantined: t.Array(QUARANTINE_ROW, { description: "origins whose frames were refused, latest first (at most 1000)" }),
});
export type PeerList = Static<typeof PEER_LIST>;

export const MIRRORED_RECORD = closed({
  gid: t.String(),
  type: wholeNumber({ description: "the record type" }),
  kind: t.String({ description: "the record kind (the type's number for a type this version does not know)" }),
  v: wholeNumber(),
  at: unixS("signing time, unix seconds"),
  via: t.String({ description: "how it came: sync, frames, bbs, beacon, submit, relay..." }),
  receivedAt: unixMs(),
});
export type MirroredRecord = Static<typeof MIRRORED_RECORD>;

/** GET /federation/peers/:instance/records */
export const MIRRORED_RECORDS = closed({
  instance: t.String(),
  items: t.Array(MIRRORED_RECORD),
  next: nullable(t.String(), "`after` of the next page; null on the last"),
});
export type MirroredRecords = Static<typeof MIRRORED_RECORDS>;

/** The TXT binding a 44net onboarding found. */
export const BINDING = closed({
  callsign: t.String(),
  host: t.String(),
  name: t.String({ description: "where the TXT record was read" }),
  instance: t.String(),
  key: t.String(),
  dnssec: t.Boolean({ description: "the resolver validated it with DNSSEC (AD flag)" }),
  descriptor: literals(["matches", "unreachable"] as const, "what the live descriptor said (unreachable: not checked)"),
  form: literals(["wire", "json"] as const, "the DoH form that answered"),
});
export type Binding = Static<typeof BINDING>;

export const ONBOARD_ADMITTED = closed({ admitted: t.Literal(true), binding: BINDING, peer: PEER_VIEW });
export const ONBOARD_CONFIRM = closed({ admitted: t.Literal(false), needsConfirm: t.Literal(true), binding: BINDING });
export type OnboardAnswer = Static<typeof ONBOARD_ADMITTED> | Static<typeof ONBOARD_CONFIRM>;

// ---------------------------------------------------------------- pulls

export const FEED_REPORT = closed({
  pages: wholeNumber(),
  received: wholeNumber(),
  applied: wholeNumber(),
  duplicate: wholeNumber(),
  suppressed: wholeNumber(),
  quarantined: wholeNumber(),
  rejected: wholeNumber(),
  bytes: wholeNumber({ description: "bytes on the wire (page bodies as received)" }),
});
export type FeedReport = Static<typeof FEED_REPORT>;

const PROBLEM = closed({ code: t.String(), message: t.String() });

/** One pull of one peer. */
export const PEER_SYNC_REPORT = closed({
  instance: t.String(),
  ok: t.Boolean(),
  error: nullable(PROBLEM),
  url: nullable(t.String(), "the URL pulled from"),
  unreachable: t.Array(closed({ url: t.String(), code: t.String(), message: t.String() }), {
    description: "the peer's URLs tried before `url` that did not answer, best first",
  }),
  link: nullable(NEGOTIATED_LINK),
  feeds: perFeed(FEED_REPORT, "the feeds asked for"),
  applied: wholeNumber(),
  received: wholeNumber(),
  bytes: wholeNumber(),
  ms: wholeNumber(),
});
export type PeerSyncReport = Static<typeof PEER_SYNC_REPORT>;

export const BOOTSTRAP_PROBLEM = closed({ url: t.String({ description: "a FED_PEERS URL" }), code: t.String(), message: t.String() });
export type BootstrapProblem = Static<typeof BOOTSTRAP_PROBLEM>;

export const REGISTRY_REFRESH = closed({
  ok: t.Boolean(),
  error: nullable(t.String()),
  source: nullable(t.String()),
  entries: wholeNumber(),
  skipped: wholeNumber({ description: "entries that broke the layout" }),
  added: t.Array(t.String(), { description: "peers that joined (unvetted) from the registry" }),
  dnssec: nullable(t.Boolean()),
});
export type RegistryRefresh = Static<typeof REGISTRY_REFRESH>;

/** POST /federation/sync: every peer pulled. */
export const SYNC_ALL_REPORT = closed({
  peers: t.Array(PEER_SYNC_REPORT),
  bootstrap: t.Array(BOOTSTRAP_PROBLEM, { description: "FED_PEERS URLs whose descriptor could not be had" }),
  registry: nullable(REGISTRY_REFRESH, "the registry refresh, when one was due"),
});
export type SyncAllReport = Static<typeof SYNC_ALL_REPORT>;

/** POST /federation/notify */
export const NOTIFY_ANSWER = closed({
  accepted: t.Boolean({ description: "a pull was started or joined" }),
  coalesced: t.Boolean({ description: "a pull of that peer was already running: it goes round once more" }),
  reason: nullable(literals(["unknown_peer", "blocked", "no_sync_endpoint"] as const), "why not accepted"),
});
export type NotifyAnswer = Static<typeof NOTIFY_ANSWER>;

/** POST /federation/corroborate */
export const CORROBORATION_ANSWER = closed({
  v: t.Literal(1),
  id: t.String(),
  instance: t.String(),
  heard: t.Boolean(),
  distanceBucketM: nullable(t.Number(), "upper bound of the sighting's distance from the cell's centre, metres"),
  timeBucket: nullable(t.Number({ description: "the sighting's time, floored to the asker's bucket (bucketS), unix seconds" })),
  igate: t.Optional(t.String({ description: "the exact IGate, only when both sides reveal" })),
});
export type CorroborationAnswer = Static<typeof CORROBORATION_ANSWER>;

// ---------------------------------------------------------------- the relay

export const RELAY_QUERY_JSON = closed({ type: SYNC_KIND, since: wholeNumber(), limit: wholeNumber() });
export type RelayQuery = Static<typeof RELAY_QUERY_JSON>;

/** POST /federation/relay/:instance/query (JSON): queued. */
export const RELAY_QUEUED = closed({ id: wholeNumber(), instance: t.String(), state: t.Literal("queued") });
export type RelayQueued = Static<typeof RELAY_QUEUED>;

/** POST /federation/relay/:instance/lease */
export const RELAY_LEASE = closed({
  instance: t.String(),
  queries: t.Array(closed({ id: wholeNumber(), query: RELAY_QUERY_JSON, frame: t.String({ description: "the signed relayQuery frame, base64url" }) })),
});
export type RelayLease = Static<typeof RELAY_LEASE>;

/** POST /federation/relay/:instance/dispatch */
export const RELAY_DISPATCH = closed({
  instance: t.String(),
  ids: t.Array(wholeNumber()),
  frames: t.Array(t.String({ description: "a signed relayQuery frame, base64url" })),
});
export type RelayDispatch = Static<typeof RELAY_DISPATCH>;

export const STORED_ANSWER = closed({ id: wholeNumber(), stored: t.Boolean(), reason: nullable(t.String(), "why not stored") });
export type StoredAnswer = Static<typeof STORED_ANSWER>;

/** POST /federation/relay/:instance/answer */
export const RELAY_ANSWERS_STORED = closed({ instance: t.String(), answers: t.Array(STORED_ANSWER, { description: "one result per answer" }) });
export type RelayAnswersStored = Static<typeof RELAY_ANSWERS_STORED>;

/** GET /federation/relay/:instance/result/:id */
export const RELAY_RESULT = closed({
  id: wholeNumber(),
  instance: t.String(),
  state: literals(["queued", "leased", "answered"] as const),
  query: RELAY_QUERY_JSON,
  createdAt: unixMs(),
  answeredAt: nullable(unixMs()),
  pageB64: nullable(t.String(), "the answer's sync page, base64"),
  frame: nullable(t.String(), "the spoke's signed relayAnswer frame, base64url"),
});
export type RelayResult = Static<typeof RELAY_RESULT>;

// ---------------------------------------------------------------- beacons

const DATAGRAM_JSON = {
  datagram: t.String({ description: "the datagram, base64" }),
  bytes: wholeNumber({ description: "its size" }),
  limit: wholeNumber({ description: "the most a datagram may be (one UI frame)" }),
};
/** GET /federation/beacon?format=json: the datagram in base64 with what it carries. */
export const BEACON_JSON_ANSWER = t.Union([
  closed({
    ...DATAGRAM_JSON,
    endpoints: t.Array(t.String(), { description: "the presence beacon: the endpoints it carries, most preferred first" }),
    dropped: t.Array(t.String(), { description: "the endpoints trimmed away to fit" }),
  }),
  closed({
    ...DATAGRAM_JSON,
    have: perFeed(wholeNumber(), "the have-list: each feed that holds records, and its highest cursor"),
    dropped: t.Array(SYNC_KIND, { description: "feeds left out so the datagram fits" }),
  }),
]);

/** POST /federation/beacon: what a heard datagram did. */
export const BEACON_REPORT = closed({
  type: literals(["peer", "have", "tombstone"] as const, "what the datagram carried"),
  origin: t.String(),
  gid: t.String(),
  outcome: literals(["applied", "duplicate", "suppressed", "quarantined", "own", "rejected"] as const),
  report: APPLY_REPORT,
  have: t.Optional(perFeed(wholeNumber(), "a verified have-list from a known peer: what it holds")),
  behind: t.Optional(t.Array(SYNC_KIND, { description: "the feeds whose cursor here is behind it" })),
  pull: t.Optional(nullable(literals(["started", "coalesced", "no_sync_endpoint"] as const), "what was done about `behind`")),
});
export type BeaconReport = Static<typeof BEACON_REPORT>;

// ---------------------------------------------------------------- SVCFED bulletins

/** POST /federation/bbs/enqueue */
export const ENQUEUE_RESULT = closed({
  posted: t.Boolean({ description: "a new bulletin was stored" }),
  reason: nullable(literals(["unchanged", "nothing_to_send"] as const), "why not"),
  bid: nullable(t.String(), "the bulletin's BID (null when there was nothing to send)"),
  id: nullable(wholeNumber(), "the bulletin's message id, while it is kept"),
  frames: wholeNumber(),
  bytes: wholeNumber({ description: "payload (sync page) bytes" }),
  size: wholeNumber({ description: "the bulletin text's size (body only, without R: lines)" }),
  next: wholeNumber({ description: "the cursor: send as `since` to carry only what comes after this bulletin" }),
  more: t.Boolean({ description: "records after `next` were left for another bulletin" }),
  partners: t.Array(t.String(), { description: "the partners the bulletin is queued for" }),
});
export type EnqueueResult = Static<typeof ENQUEUE_RESULT>;

// The library's types and these schemas are one shape: the compiler refuses a drift either way.
const sameEndpoint: Same<Static<typeof ENDPOINT>, Endpoint> = true;
const sameRotation: Same<Static<typeof ROTATION_RECORD>, RotationRecord> = true;
const sameCaps: Same<Static<typeof LINK_CAPS>, LinkCaps> = true;
const sameLink: Same<Static<typeof NEGOTIATED_LINK>, NegotiatedLink> = true;
void sameEndpoint;
void sameRotation;
void sameCaps;
void sameLink;
