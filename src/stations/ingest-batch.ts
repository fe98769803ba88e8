/**
 * POST /ingest bodies: TNC2 lines as text (one per line, as APRS-IS writes
 * them), or a JSON batch of packets, positions and finds. Everything is
 * checked before anything is written; the batch is written in one transaction.
 */
import type { Core } from "../core/core.ts";
import type { Caller } from "../accounts/caller.ts";
import { badRequest, forbidden, unprocessable } from "../lib/errors.ts";
import { baseCall, isCallsign } from "../lib/callsign.ts";
import { flushEvents, ingestLinesTx, ingestPositionsTx, newSink, type IngestLine, type IngestReport, type PositionReport } from "./ingest.ts";

/** Lines per request, to keep one transaction short. */
export const MAX_BATCH = 20_000;

/**
 * Finds in ingest batches belong to the game (src/game/): it registers the
 * function that applies them, inside the batch's transaction. Until then a
 * batch carrying finds is refused whole with 422 finds_not_supported.
 */
export type FindIngest = (gw: Core, finds: unknown[], ctx: { caller: Caller; heardAt: number }) => unknown;
declare module "../core/services.ts" {
  interface Services {
    /** the game's function for finds in an ingest batch (src/hosts/services.ts sets it), or null */
    findIngest: FindIngest | null;
  }
}

export interface IngestResult {
  packets: IngestReport;
  positions: { stored: number };
  finds?: unknown;
}

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

const num = (v: unknown, min: number, max: number) => typeof v === "number" && Number.isFinite(v) && v >= min && v <= max;

function checkPosition(v: unknown, k: number): PositionReport {
  const where = `positions[${k}]`;
  if (!v || typeof v !== "object" || Array.isArray(v)) throw badRequest("invalid", `${where} must be an object`);
  const p = v as Record<string, unknown>;
  if (typeof p.call !== "string" || !/^[A-Za-z0-9]{1,9}(-[A-Za-z0-9]{1,2})?$/.test(p.call)) throw badRequest("invalid", `${where}.call is not a callsign`);
  if (!num(p.lat, -90, 90) || !num(p.lon, -180, 180)) throw badRequest("invalid", `${where}.lat/lon must be decimal degrees`);
  if (p.ts !== undefined && !num(p.ts, 0, 1e14)) throw badRequest("invalid", `${where}.ts must be unix milliseconds`);
  for (const f of ["altitudeM", "speedKmh"] as const)
    if (p[f] !== undefined && !num(p[f], -1e5, 1e6)) throw badRequest("invalid", `${where}.${f} must be a number`);
  if (p.course !== undefined && !num(p.course, 0, 360)) throw badRequest("invalid", `${where}.course must be 0-360`);
  if (p.symbol !== undefined && (typeof p.symbol !== "string" || p.symbol.length !== 2))
    throw badRequest("invalid", `${where}.symbol is a table and a code, 2 characters`);
  if (p.comment !== undefined && (typeof p.comment !== "string" || p.comment.length > 200))
    throw badRequest("invalid", `${where}.comment must be text up to 200 characters`);
  if (p.source !== undefined && !["rf", "ingest", "browser"].includes(p.source as string))
    throw badRequest("invalid", `${where}.source is rf, ingest or browser`);
  if (p.igate !== undefined && p.igate !== null && (typeof p.igate !== "string" || !isCallsign(p.igate)))
    throw badRequest("invalid", `${where}.igate is not a callsign`);
  if (p.source === "rf" && !p.igate) throw badRequest("invalid", `${where}: an rf position names the igate that heard it`);
  return p as unknown as PositionReport;
}

function checkPacket(v: unknown, k: number): IngestLine {
  if (typeof v === "string") return { line: v };
  if (!v || typeof v !== "object" || Array.isArray(v) || typeof (v as { line?: unknown }).line !== "string")
    throw badRequest("invalid", `packets[${k}] is a TNC2 line or {line, heardAt?, igate?}`);
  const p = v as { line: string; heardAt?: unknown; igate?: unknown };
  if (p.heardAt !== undefined && !num(p.heardAt, 0, 1e14)) throw badRequest("invalid", `packets[${k}].heardAt must be unix milliseconds`);
  if (p.igate !== undefined && p.igate !== null && (typeof p.igate !== "string" || !isCallsign(p.igate)))
    throw badRequest("invalid", `packets[${k}].igate is not a callsign`);
  return { line: p.line, heardAt: p.heardAt as number | undefined, igate: p.igate as string | null | undefined };
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
    const b = body as Record<string, unknown>;
    const known = new Set(["packets", "positions", "finds", "heardAt", "igate", "key", "at", "sig"]);
    const unknownKeys = Object.keys(b).filter((k) => !known.has(k));
    if (unknownKeys.length) throw badRequest("invalid", `unknown field(s) ${unknownKeys.join(", ")}; a batch has packets, positions, finds, heardAt, igate`);
    if (b.heardAt !== undefined) {
      if (!num(b.heardAt, 0, 1e14)) throw badRequest("invalid", "heardAt must be unix milliseconds");
      heardAt = b.heardAt as number;
    }
    for (const f of ["packets", "positions", "finds"] as const)
      if (b[f] !== undefined && !Array.isArray(b[f])) throw badRequest("invalid", `${f} must be an array`);
    lines = ((b.packets as unknown[]) ?? []).map(checkPacket);
    positions = ((b.positions as unknown[]) ?? []).map(checkPosition);
    finds = (b.finds as unknown[]) ?? [];
    if (b.igate !== undefined) {
      if (typeof b.igate !== "string" || !isCallsign(b.igate)) throw badRequest("invalid", "igate is not a callsign");
      namedIgate = true;
      if (igate === undefined) lines = lines.map((l) => (l.igate === undefined ? { ...l, igate: (b.igate as string).toUpperCase() } : l));
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
