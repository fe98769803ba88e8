/**
 * POST /ingest bodies: TNC2 lines as text (one per line, as APRS-IS writes
 * them), or a JSON batch of packets, positions and finds. Everything is
 * checked before anything is written; the batch is written in one transaction.
 */
import { t } from "elysia";
import type { Core } from "../core/core.ts";
import type { Caller } from "../accounts/caller.ts";
import { badRequest, forbidden, unprocessable } from "../lib/errors.ts";
import { check, closed, nullable, wholeNumber } from "../lib/schema.ts";
import { baseCall, isCallsign } from "../lib/callsign.ts";
import { flushEvents, INGEST_REPORT, ingestLinesTx, ingestPositionsTx, newSink, type IngestLine, type PositionReport } from "./ingest.ts";
import type { Static } from "@sinclair/typebox";
import { FINDS_INGESTED, type FindsIngested } from "../game/shapes.ts";

/** Lines per request, to keep one transaction short. */
export const MAX_BATCH = 20_000;

/**
 * Finds in ingest batches belong to the game (src/game/): it registers the
 * function that applies them, inside the batch's transaction. Until then a
 * batch carrying finds is refused whole with 422 finds_not_supported.
 */
export type FindIngest = (gw: Core, finds: unknown[], ctx: { caller: Caller; heardAt: number }) => FindsIngested;
declare module "../core/services.ts" {
  interface Services {
    /** the game's function for finds in an ingest batch (src/hosts/services.ts sets it), or null */
    findIngest: FindIngest | null;
  }
}

/** What an /ingest request answers: what became of its lines, positions and finds. */
export const INGEST_RESULT = closed({
  packets: INGEST_REPORT,
  positions: closed({ stored: wholeNumber() }),
  finds: t.Optional(FINDS_INGESTED),
});
export type IngestResult = Static<typeof INGEST_RESULT>;

/** Splits raw bytes into lines without decoding them (a line may not be UTF-8). */
function splitLines(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 10) {
      let end = i;
      if (end > start && bytes[end - 1] === 13) end--;
      if (end > start) out.push(bytes.subarray(start, end));
      start = i + 1;
    }
  }
  return out;
}

/** A time a batch names, unix ms (any number in range: a feed's clock may give fractions). */
const batchMs = (description: string) => t.Number({ minimum: 0, maximum: 1e14, description });
const callOrNull = (description: string) => t.Optional(nullable(t.String(), description));

/** A packet of a batch given as an object (a bare string is its line alone). */
export const INGEST_PACKET = closed({
  line: t.String({ description: "the TNC2 line" }),
  heardAt: t.Optional(batchMs("when it was heard, unix ms; default the batch's heardAt")),
  igate: callOrNull("the IGate that heard it (a callsign); null: none"),
});

/** A position report of a batch. */
export const INGEST_POSITION = closed({
  call: t.String({ pattern: "^[A-Za-z0-9]{1,9}(-[A-Za-z0-9]{1,2})?$", description: "a callsign with an optional SSID (the station)" }),
  lat: t.Number({ minimum: -90, maximum: 90, description: "decimal degrees" }),
  lon: t.Number({ minimum: -180, maximum: 180, description: "decimal degrees" }),
  ts: t.Optional(batchMs("when, unix ms; default the batch's heardAt")),
  altitudeM: t.Optional(t.Number({ minimum: -1e5, maximum: 1e6, description: "metres" })),
  speedKmh: t.Optional(t.Number({ minimum: -1e5, maximum: 1e6, description: "km/h" })),
  course: t.Optional(t.Number({ minimum: 0, maximum: 360, description: "degrees" })),
  symbol: t.Optional(t.String({ minLength: 2, maxLength: 2, description: "a table and a code, 2 characters" })),
  comment: t.Optional(t.String({ maxLength: 200, description: "up to 200 characters" })),
  source: t.Optional(
    t.Union([t.Literal("rf"), t.Literal("ingest"), t.Literal("browser")], { description: "rf (then igate names who heard it), ingest or browser" }),
  ),
  igate: callOrNull("the IGate that heard it (a callsign); an rf position names one"),
});

/**
 * A JSON batch. The route takes it as it comes (it may be signed by a device
 * key, whose gate runs after the route's schema: a validator that coerced a
 * member would break the signature, and an unauthenticated caller is refused
 * before its batch is looked at); ingestBody checks it here, then each item
 * against INGEST_PACKET / INGEST_POSITION, so a failure names the item
 * ("packets.3.heardAt"). Finds are the game's: it checks them.
 */
export const INGEST_BATCH = closed(
  {
    packets: t.Optional(t.Array(t.Unknown(), { description: 'TNC2 lines, or {"line", "heardAt", "igate"} (INGEST_PACKET)' })),
    positions: t.Optional(t.Array(t.Unknown(), { description: "position reports {call, lat, lon, ...} (INGEST_POSITION)" })),
    finds: t.Optional(t.Array(t.Unknown(), { description: "RF finds (checked by the game)" })),
    heardAt: t.Optional(batchMs("when they were heard, unix ms; default now")),
    igate: t.Optional(t.String({ description: "the IGate that heard them (a callsign)" })),
    key: t.Optional(t.String({ description: "a device key registered here, signing the batch" })),
    at: t.Optional(t.Number({ description: "the signature's time" })),
    sig: t.Optional(t.String({ description: "the device key's signature" })),
  },
  { description: `a JSON batch, at most ${MAX_BATCH} items` },
);

const notACallsign = (field: string) => badRequest("invalid", `${field} is not a callsign`, { field });

function checkPosition(v: unknown, k: number): PositionReport {
  const where = `positions.${k}`;
  const p = check(INGEST_POSITION, v, where);
  if (p.igate !== undefined && p.igate !== null && !isCallsign(p.igate)) throw notACallsign(`${where}.igate`);
  if (p.source === "rf" && !p.igate) throw badRequest("invalid", `${where}: an rf position names the igate that heard it`, { field: `${where}.igate` });
  return p;
}

function checkPacket(v: unknown, k: number): IngestLine {
  if (typeof v === "string") return { line: v };
  const where = `packets.${k}`;
  const p = check(INGEST_PACKET, v, where);
  if (p.igate !== undefined && p.igate !== null && !isCallsign(p.igate)) throw notACallsign(`${where}.igate`);
  return p;
}

/**
 * Every station a line speaks for: its source and, for a third-party packet
 * (`}`), the inner packet's source too, however deep the wrappers nest.
 */
function sourcesOf(l: IngestLine): string[] {
  let t = typeof l.line === "string" ? l.line : new TextDecoder("latin1").decode(l.line);
  const out: string[] = [];
  for (;;) {
    const gt = t.indexOf(">");
    out.push(t.slice(0, Math.max(0, gt)));
    const colon = t.indexOf(":", Math.max(0, gt));
    if (gt < 0 || colon < 0 || t[colon + 1] !== "}") return out;
    t = t.slice(colon + 2);
  }
}

/** Handles one /ingest request body. */
export function ingestBody(gw: Core, body: unknown, caller: Caller, query: { igate?: string }): IngestResult {
  const now = gw.clock.now();
  if (query.igate !== undefined && !isCallsign(query.igate)) throw badRequest("invalid", "igate is not a callsign");
  const igate = query.igate?.toUpperCase();
  let lines: IngestLine[] = [];
  let positions: PositionReport[] = [];
  let finds: unknown[] = [];
  let heardAt = now;
  let namedIgate = igate !== undefined;
  if (body instanceof Uint8Array) {
    lines = splitLines(body).map((line) => ({ line }));
  } else if (body && typeof body === "object" && !Array.isArray(body)) {
    const b = check(INGEST_BATCH, body, "body");
    if (b.heardAt !== undefined) heardAt = b.heardAt;
    lines = (b.packets ?? []).map(checkPacket);
    positions = (b.positions ?? []).map(checkPosition);
    finds = b.finds ?? [];
    if (b.igate !== undefined) {
      if (!isCallsign(b.igate)) throw notACallsign("body.igate");
      namedIgate = true;
      const batchIgate = b.igate.toUpperCase();
      if (igate === undefined) lines = lines.map((l) => (l.igate === undefined ? { ...l, igate: batchIgate } : l));
    }
  } else {
    throw badRequest("bad_body", "send TNC2 lines as text/plain, or a JSON batch {packets, positions, finds}");
  }
  if (lines.length + positions.length + finds.length > MAX_BATCH) throw badRequest("batch_too_large", `at most ${MAX_BATCH} items per request`);
  // A device key speaks for its own callsign only: its beacons and positions,
  // and the packets its third-party wrappers carry.
  const device = !caller.ingest && !!caller.assertion;
  if (device) {
    const own = caller.assertion!.call;
    const foreign = [...lines.flatMap(sourcesOf), ...positions.map((p) => p.call)].find((c) => baseCall(c) !== own);
    if (foreign !== undefined) throw forbidden(`a device key of ${own} may only send ${own}'s own packets and positions, not ${foreign}'s`, "not_your_station");
    // Nor may it say an IGate heard them: RF sightings (Tier A) come from this gateway's radio and the operator's box.
    if (namedIgate || lines.some((l) => l.igate) || positions.some((p) => p.igate || p.source === "rf"))
      throw forbidden(
        "a device key's packets and positions are not RF sightings: leave out igate and source rf (only this gateway's radio and its ingest box report what was heard on the air)",
        "not_an_igate",
      );
  }
  const findIngest = gw.services.findIngest;
  if (finds.length && !findIngest) throw unprocessable("finds_not_supported", "this instance does not take finds in ingest batches yet");
  const sink = newSink();
  const result = gw.db.transaction(() => {
    const packets = ingestLinesTx(gw, lines, { source: "ingest", igate: igate ?? null, heardAt, device }, sink);
    const stored = ingestPositionsTx(
      gw,
      positions.map((p) => ({ ...p, ts: p.ts ?? heardAt })),
      "ingest",
      sink,
    );
    const out: IngestResult = { packets, positions: { stored } };
    if (finds.length && findIngest) out.finds = findIngest(gw, finds, { caller, heardAt });
    return out;
  })();
  flushEvents(gw, sink);
  return result;
}
