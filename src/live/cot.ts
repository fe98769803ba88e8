/**
 * Cursor-on-Target (CoT event schema 2.0) for TAK clients: stations and
 * caches as `<event>`s (docs/api.md "Cursor-on-Target"). Pure: the snapshot
 * and the stream (stream.ts) choose what to send.
 *
 *   stationEvent({ call: "N0CALL-9", lat: 42.6, lon: -71.3, ts, ... }, now)
 *   // <event version="2.0" uid="APRS.N0CALL-9" type="a-n-G" how="m-g" time=... start=... stale=...>
 *   //   <point lat="42.6" lon="-71.3" hae="9999999.0" ce="9999999.0" le="9999999.0"/>
 *   //   <detail><contact callsign="N0CALL-9"/>...</detail></event>
 */
import { esc } from "../exports/xml.ts";
import type { LivePosition } from "./rooms.ts";
import type { Cache } from "../game/caches.ts";

/** A station's position is current for this long after it was heard (CoT `stale`). */
export const STATION_STALE_MS = 2 * 3_600_000;
/** Caches are restated at least this often: their events go stale after it. */
const CACHE_STALE_MS = 24 * 3_600_000;
/** CoT's "unknown" for hae, ce and le. */
const UNKNOWN = "9999999.0";

const COT_TYPES = {
  /** an APRS station, object or item: a ground atom of unknown allegiance shown neutral */
  station: "a-n-G",
  /** a geocache: a map spot marker */
  cache: "b-m-p-s-m",
} as const;

const iso = (ms: number) => new Date(ms).toISOString();
const coord = (v: number) => String(Math.round(v * 1e7) / 1e7);

interface EventParts {
  uid: string;
  type: string;
  how: string;
  time: number;
  start: number;
  stale: number;
  lat: number;
  lon: number;
  hae?: number;
  callsign: string;
  /** detail children after contact, already XML */
  detail?: string;
}

function event(e: EventParts): string {
  const hae = e.hae === undefined ? UNKNOWN : String(Math.round(e.hae * 10) / 10);
  return (
    `<event version="2.0" uid="${esc(e.uid)}" type="${e.type}" how="${e.how}" time="${iso(e.time)}" start="${iso(e.start)}" stale="${iso(e.stale)}">` +
    `<point lat="${coord(e.lat)}" lon="${coord(e.lon)}" hae="${hae}" ce="${UNKNOWN}" le="${UNKNOWN}"/>` +
    `<detail><contact callsign="${esc(e.callsign)}"/>${e.detail ?? ""}</detail></event>`
  );
}

/** A station's latest position; an object or item that was killed goes stale at once. */
export function stationEvent(p: LivePosition, now: number): string {
  let detail = "";
  if (p.course !== undefined || p.speedKmh !== undefined) {
    detail += `<track course="${p.course ?? 0}" speed="${Math.round(((p.speedKmh ?? 0) / 3.6) * 100) / 100}"/>`;
  }
  const remarks = [p.comment, p.symbol ? `APRS symbol ${p.symbol}` : null, p.source ? `via ${p.source}${p.igate ? " " + p.igate : ""}` : null]
    .filter(Boolean)
    .join(" · ");
  if (remarks) detail += `<remarks>${esc(remarks)}</remarks>`;
  return event({
    uid: `APRS.${p.call}`,
    type: COT_TYPES.station,
    how: "m-g",
    time: now,
    start: p.ts,
    stale: p.alive ? p.ts + STATION_STALE_MS : now,
    lat: p.lat,
    lon: p.lon,
    hae: p.altitudeM,
    callsign: p.call,
    detail,
  });
}

export interface CotCache extends Pick<Cache, "gid" | "name" | "type" | "size" | "difficulty" | "terrain" | "lat" | "lon" | "status"> {
  /** the cache page */
  url: string;
}

export function cacheEvent(c: CotCache, now: number): string {
  const remarks = `Geocache: ${c.type}, ${c.size}, D${c.difficulty}/T${c.terrain}${c.status === "disabled" ? ", disabled" : ""}. ${c.url}`;
  return event({
    uid: c.gid,
    type: COT_TYPES.cache,
    how: "h-e",
    time: now,
    start: now,
    stale: now + CACHE_STALE_MS,
    lat: c.lat,
    lon: c.lon,
    callsign: c.name,
    detail: `<remarks>${esc(remarks)}</remarks>`,
  });
}

/** A snapshot document: the events under one `<events>` root. */
export function cotDocument(events: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<events>\n${events.join("\n")}\n</events>\n`;
}
