/**
 * ADIF 3.1.4 for logging programs: a finder's RF-verified finds as contacts
 * (docs/api.md "ADIF mapping"). A find becomes a contact only where this
 * instance holds the RF sighting that corroborated it: the finder's station
 * was heard on the air by an IGate at a time and place. That hearing is the
 * contact: CALL is the IGate, STATION_CALLSIGN the finder's station as heard,
 * MODE PKT, QSO_DATE/TIME_ON the time it was heard.
 */
import type { Core } from "../core/core.ts";
import { baseCall } from "../lib/callsign.ts";
import { codeOf, type CacheRow } from "../game/caches.ts";
import { locator } from "../lib/maidenhead.ts";

export const ADIF_TYPE = "text/plain; charset=us-ascii";
const ADIF_VERSION = "3.1.4";

/** ADIF Location: XDDD MM.MMM */
function location(v: number, pos: string, neg: string): string {
  const d = Math.abs(v);
  const deg = Math.floor(d);
  const min = (d - deg) * 60;
  return `${v < 0 ? neg : pos}${String(deg).padStart(3, "0")} ${min.toFixed(3).padStart(6, "0")}`;
}

/** ADIF data fields are ASCII; anything else is dropped from free text. */
const ascii = (s: string) => s.replace(/[^\x20-\x7e]/g, "").trim();

function field(name: string, value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === "") return "";
  const v = String(value);
  return `<${name}:${v.length}>${v} `;
}

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10).replace(/-/g, "");
const hms = (ms: number) => new Date(ms).toISOString().slice(11, 19).replace(/:/g, "");

interface ContactRow {
  logId: number;
  posCall: string;
  posTs: number;
  posLat: number;
  posLon: number;
  igate: string;
  distanceM: number | null;
  cacheId: number | null;
  cacheGid: string;
  cacheName: string | null;
  sourceRef: string | null;
  igateLat: number | null;
  igateLon: number | null;
}

/** The ADIF file of a callsign's (any SSID) RF-verified finds on this instance. */
export function adifFinds(gw: Core, call: string, opts: { band?: string; now: number }): { text: string; contacts: number } {
  const base = baseCall(call);
  const rows = gw.db
    .query(
      `SELECT l.id AS logId, p.call AS posCall, p.ts AS posTs, p.lat AS posLat, p.lon AS posLon, l.corr_igate AS igate, l.corr_distance_m AS distanceM,
         l.cache_id AS cacheId, l.cache_gid AS cacheGid, COALESCE(c.name, m.name) AS cacheName, c.source_ref AS sourceRef,
         s.lat AS igateLat, s.lon AS igateLon
       FROM logs l JOIN positions p ON p.id = l.corr_position_id
       LEFT JOIN caches c ON c.id = l.cache_id LEFT JOIN mirror_caches m ON l.cache_id IS NULL AND m.gid = l.cache_gid
       LEFT JOIN stations s ON s.call = l.corr_igate
       WHERE l.base_call = ? AND l.kind = 'find' AND l.state = 'active' AND l.tier = 'a' AND l.corr_igate IS NOT NULL
         AND (c.id IS NULL OR c.unlisted = 0)
       ORDER BY p.ts`,
    )
    .all(base) as ContactRow[];
  const band = opts.band ?? "2m";
  const head =
    `svc-gateway ADIF export of RF-verified geocache finds by ${base} from ${gw.config.instance}\n` +
    `Each record is a hearing: the finder's station (STATION_CALLSIGN) heard on packet by an IGate (CALL) at the cache.\n` +
    field("ADIF_VER", ADIF_VERSION) +
    field("PROGRAMID", "svc-gateway") +
    field("CREATED_TIMESTAMP", `${ymd(opts.now)} ${hms(opts.now)}`) +
    "<EOH>\n";
  const records = rows.map((r) => {
    const code = r.cacheId !== null ? codeOf({ id: r.cacheId, source_ref: r.sourceRef } as CacheRow) : r.cacheGid;
    const name = ascii(r.cacheName ?? "");
    return (
      field("CALL", r.igate) +
      field("QSO_DATE", ymd(r.posTs)) +
      field("TIME_ON", hms(r.posTs)) +
      field("BAND", band) +
      field("MODE", "PKT") +
      field("STATION_CALLSIGN", r.posCall) +
      field("OPERATOR", base) +
      field("MY_GRIDSQUARE", locator(r.posLat, r.posLon)) +
      field("MY_LAT", location(r.posLat, "N", "S")) +
      field("MY_LON", location(r.posLon, "E", "W")) +
      (r.igateLat !== null && r.igateLon !== null ? field("GRIDSQUARE", locator(r.igateLat, r.igateLon)) : "") +
      field("MY_SIG", "GEOCACHE") +
      field("MY_SIG_INFO", code) +
      field(
        "COMMENT",
        ascii(`Geocache find ${code}${name ? " " + name : ""}${r.distanceM !== null ? `, heard ${Math.round(r.distanceM)} m from the cache` : ""}`),
      ) +
      field("APP_SVCGATEWAY_CACHE", r.cacheGid) +
      field("APP_SVCGATEWAY_LOG", r.logId) +
      "<EOR>\n"
    );
  });
  return { text: head + records.join(""), contacts: rows.length };
}
