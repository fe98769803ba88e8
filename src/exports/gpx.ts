/**
 * GPX 1.0 with the Groundspeak cache extension 1.0.1: the pocket-query
 * layout c:geo, GSAK and gpsbabel import. One <wpt> per cache with its
 * details, hint, logs and travel bugs. Never the owner's contact fields (the Cache shape
 * does not carry them).
 */
import type { Cache } from "../game/caches.ts";
import type { Log } from "../game/logs.ts";
import type { Waypoint } from "../game/waypoints-store.ts";
import { esc, isoTime } from "./xml.ts";
import { GS_LOG_TYPE } from "../game/maintenance-gpx.ts";
import { eventLine } from "../game/events.ts";
import { attributeById, type CacheAttribute } from "../lib/cache-attributes.ts";

export const GPX_TYPE = "application/gpx+xml";

const GS_TYPE: Record<string, string> = {
  traditional: "Traditional Cache",
  multi: "Multi-cache",
  mystery: "Unknown Cache",
  letterbox: "Letterbox Hybrid",
  virtual: "Virtual Cache",
  event: "Event Cache",
  cito: "Cache In Trash Out Event",
  audio: "Multi-cache",
  earth: "Earthcache",
  webcam: "Webcam Cache",
  living: "Unknown Cache",
  other: "Unknown Cache",
};
const GS_CONTAINER: Record<string, string> = { micro: "Micro", small: "Small", regular: "Regular", large: "Large", other: "Other", none: "Virtual" };
/** Groundspeak's log type name of each log kind (src/game/maintenance-gpx.ts reads them back). */
export const GS_LOG: Record<string, string> = GS_LOG_TYPE;

/** Groundspeak's type name of one of our cache types (and back, for imports). */
export const groundspeakType = (t: string) => GS_TYPE[t] ?? "Unknown Cache";
export const groundspeakContainer = (s: string) => GS_CONTAINER[s] ?? "Other";

/** A travel bug listed in a cache (groundspeak:travelbug): a trackable of the network, or one an import listed. */
export interface TravelBug {
  /** Groundspeak's numeric id; for ours, the local id in the trackable's gid */
  id: string;
  ref: string;
  name: string;
}

export interface GpxOptions {
  /** the instance's public base URL, for links */
  base: string;
  instance: string;
  now: number;
  title?: string;
}

function travelbugsXml(bugs: TravelBug[]): string {
  if (!bugs.length) return "      <groundspeak:travelbugs></groundspeak:travelbugs>";
  const items = bugs.map(
    (b) => `        <groundspeak:travelbug id="${esc(b.id)}" ref="${esc(b.ref)}">
          <groundspeak:name>${esc(b.name)}</groundspeak:name>
        </groundspeak:travelbug>`,
  );
  return `      <groundspeak:travelbugs>\n${items.join("\n")}\n      </groundspeak:travelbugs>`;
}

/** groundspeak:attributes, as a pocket query writes them (left out when the cache has none). */
function attributesXml(attrs: readonly CacheAttribute[]): string {
  if (!attrs.length) return "";
  const items = attrs.map(
    (a) =>
      `        <groundspeak:attribute id="${a.id}" inc="${a.inc ? 1 : 0}">${esc(attributeById(a.id)?.name ?? `Attribute ${a.id}`)}</groundspeak:attribute>`,
  );
  return `      <groundspeak:attributes>\n${items.join("\n")}\n      </groundspeak:attributes>\n`;
}

function wpt(c: Cache, logs: Log[], bugs: TravelBug[], o: GpxOptions): string {
  const id = typeof c.id === "number" ? c.id : 0;
  const gsType = groundspeakType(c.type);
  const owner = c.ownerCall ?? c.placedBy ?? "";
  const url = `${o.base}/cache/${encodeURIComponent(String(c.id))}`;
  const logXml = logs
    .filter((l) => l.state === "active")
    .map(
      (l) => `        <groundspeak:log id="${typeof l.id === "number" ? l.id : 0}">
          <groundspeak:date>${isoTime(l.foundAt)}</groundspeak:date>
          <groundspeak:type>${esc(GS_LOG[l.kind])}</groundspeak:type>
          <groundspeak:finder id="0">${esc(l.call ?? "")}</groundspeak:finder>
          <groundspeak:text encoded="false">${esc(l.text ?? "")}${l.tier === "a" ? esc(`${l.text ? "\n" : ""}[RF-verified find${l.corroboration?.igate ? `, heard by ${l.corroboration.igate}` : ""}]`) : ""}</groundspeak:text>
        </groundspeak:log>`,
    )
    .join("\n");
  return `  <wpt lat="${c.lat}" lon="${c.lon}">
    <time>${isoTime(c.placedAt ?? c.updatedAt)}</time>
    <name>${esc(c.code)}</name>
    <desc>${esc(`${c.name} by ${owner}, ${gsType} (${c.difficulty}/${c.terrain})`)}</desc>
    <url>${esc(url)}</url>
    <urlname>${esc(c.name)}</urlname>
    <sym>Geocache</sym>
    <type>${esc(`Geocache|${gsType}`)}</type>
    <groundspeak:cache id="${id}" available="${c.status === "active" ? "true" : "false"}" archived="${c.status === "archived" ? "true" : "false"}" xmlns:groundspeak="http://www.groundspeak.com/cache/1/0/1">
      <groundspeak:name>${esc(c.name)}</groundspeak:name>
      <groundspeak:placed_by>${esc(owner)}</groundspeak:placed_by>
      <groundspeak:owner id="0">${esc(owner)}</groundspeak:owner>
      <groundspeak:type>${esc(gsType)}</groundspeak:type>
      <groundspeak:container>${esc(groundspeakContainer(c.size))}</groundspeak:container>
${attributesXml(c.attributes ?? [])}      <groundspeak:difficulty>${c.difficulty}</groundspeak:difficulty>
      <groundspeak:terrain>${c.terrain}</groundspeak:terrain>
      <groundspeak:country></groundspeak:country>
      <groundspeak:state></groundspeak:state>
      <groundspeak:short_description html="false">${c.event ? esc(eventLine(c.event)) : ""}</groundspeak:short_description>
      <groundspeak:long_description html="false">${esc(c.description ?? "")}</groundspeak:long_description>
      <groundspeak:encoded_hints>${esc(c.hint ?? "")}</groundspeak:encoded_hints>
      <groundspeak:logs>
${logXml}
      </groundspeak:logs>
${travelbugsXml(bugs)}
    </groundspeak:cache>
  </wpt>`;
}

/** Groundspeak's waypoint types (`Waypoint|...`) of our waypoint kinds; import.ts reads these and the newer names back. */
export const GS_WAYPOINT: Record<string, string> = {
  parking: "Parking Area",
  "physical-stage": "Stages of a Multicache",
  "virtual-stage": "Virtual Stage",
  question: "Question to Answer",
  trailhead: "Trailhead",
  reference: "Reference Point",
  final: "Final Location",
};

/** A cache's waypoint as a pocket query writes it: its own <wpt> after the cache's (one without coordinates has none to write). */
function childWpt(c: Cache, w: Waypoint, o: GpxOptions): string {
  if (w.lat === null || w.lon === null) return "";
  const gsType = GS_WAYPOINT[w.kind] ?? "Reference Point";
  return `  <wpt lat="${w.lat}" lon="${w.lon}">
    <time>${isoTime(c.placedAt ?? c.updatedAt)}</time>
    <name>${esc(w.code)}</name>
    <cmt>${esc(w.note ?? "")}</cmt>
    <desc>${esc(w.name)}</desc>
    <url>${esc(`${o.base}/cache/${encodeURIComponent(String(c.id))}`)}</url>
    <urlname>${esc(w.name)}</urlname>
    <sym>${esc(gsType)}</sym>
    <type>${esc(`Waypoint|${gsType}`)}</type>
  </wpt>
`;
}

/**
 * The whole document. `logsOf` gives each cache's logs (newest first; tools
 * show them in order), `bugsOf` the travel bugs in it now, `waypointsOf` its
 * waypoints (as the reader may see them: a final only for its owner and finders).
 */
export function gpxDocument(
  caches: Cache[],
  logsOf: (c: Cache) => Log[],
  o: GpxOptions,
  bugsOf: (c: Cache) => TravelBug[] = () => [],
  waypointsOf: (c: Cache) => Waypoint[] = () => [],
): string {
  const lats = caches.map((c) => c.lat);
  const lons = caches.map((c) => c.lon);
  const bounds = caches.length
    ? `  <bounds minlat="${Math.min(...lats)}" minlon="${Math.min(...lons)}" maxlat="${Math.max(...lats)}" maxlon="${Math.max(...lons)}"/>\n`
    : "";
  const parts: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?>
<gpx xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" version="1.0" creator="svc-gateway ${esc(o.instance)}" xsi:schemaLocation="http://www.topografix.com/GPX/1/0 http://www.topografix.com/GPX/1/0/gpx.xsd http://www.groundspeak.com/cache/1/0/1 http://www.groundspeak.com/cache/1/0/1/cache.xsd" xmlns="http://www.topografix.com/GPX/1/0">
  <name>${esc(o.title ?? `Caches from ${o.instance}`)}</name>
  <desc>Geocaches exported by svc-gateway</desc>
  <author>${esc(o.instance)}</author>
  <url>${esc(o.base)}</url>
  <urlname>${esc(o.instance)}</urlname>
  <time>${isoTime(o.now)}</time>
  <keywords>cache, geocache, svc-gateway</keywords>
${bounds}`,
  ];
  for (const c of caches) parts.push(wpt(c, logsOf(c), bugsOf(c), o), "\n", ...waypointsOf(c).map((w) => childWpt(c, w, o)));
  parts.push("</gpx>\n");
  return parts.join("");
}
