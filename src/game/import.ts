/**
 * Catalog imports (`POST /api/import/:source`): caches from another
 * catalog's files, idempotently by the catalog's own code.
 *
 *   gpx  GPX 1.0 or 1.1 with the Groundspeak cache extension (1.0 / 1.0.1):
 *        a geocaching.com pocket query, an Opencaching export, c:geo, GSAK
 *   loc  the geocaching.com LOC file (<loc><waypoint>...)
 *
 * Imported caches belong to the importing account (it may edit them), show
 * the catalog's placer as `placedBy`, and are never federated: they are
 * another catalog's listings.
 */
import type { XMLParser } from "fast-xml-parser";
import type { Gateway } from "../gateway.ts";
import { badRequest, notFound } from "../errors.ts";
import { bodyText } from "../http/body.ts";
import { upsertCatalogCache, type CatalogCache } from "./caches.ts";
import type { Actor } from "./model.ts";

export const IMPORT_SOURCES = ["gpx", "loc"] as const;
export const MAX_IMPORT_BYTES = 16 * 1024 * 1024;
export const MAX_IMPORT_CACHES = 20_000;

let parser: XMLParser | undefined;
/** The XML parser, made at the first import (loading it is not worth a slower start). */
async function xmlParser(): Promise<XMLParser> {
  if (parser) return parser;
  const { XMLParser } = await import("fast-xml-parser");
  return (parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@",
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    processEntities: true,
    isArray: (name) => ["wpt", "log", "waypoint"].includes(name),
  }));
}

const TYPE_FROM_GS: Array<[RegExp, string]> = [
  [/^traditional/i, "traditional"],
  [/^multi/i, "multi"],
  [/^(unknown|mystery|puzzle|quiz)/i, "mystery"],
  [/^letterbox/i, "letterbox"],
  [/^virtual/i, "virtual"],
  [/(event|cito|mega|giga)/i, "event"],
  [/^earth/i, "earth"],
  [/^webcam/i, "webcam"],
];
const SIZE_FROM_GS: Record<string, string> = { micro: "micro", nano: "micro", small: "small", regular: "regular", medium: "regular", large: "large", "very large": "large", virtual: "none", "not chosen": "other", other: "other", none: "none" };

const str = (v: unknown): string => (v === undefined || v === null ? "" : typeof v === "object" ? String((v as Record<string, unknown>)["#text"] ?? "") : String(v)).trim();
const half = (v: unknown) => {
  const n = Number(str(v));
  return Number.isFinite(n) ? Math.min(5, Math.max(1, Math.round(n * 2) / 2)) : 1;
};
const truthy = (v: unknown) => /^(true|1)$/i.test(str(v));
const stripHtml = (s: string) => s.replace(/<br\s*\/?>/gi, "\n").replace(/<\/p>/gi, "\n\n").replace(/<[^>]*>/g, "").replace(/&nbsp;/g, " ").replace(/\n{3,}/g, "\n\n").trim();

function coord(v: unknown, lim: number): number | null {
  const n = Number(str(v));
  return Number.isFinite(n) && Math.abs(n) <= lim ? Math.round(n * 1e7) / 1e7 : null;
}

function fromGpx(doc: Record<string, unknown>): CatalogCache[] {
  const gpx = doc.gpx as Record<string, unknown> | undefined;
  if (!gpx || typeof gpx !== "object") throw badRequest("bad_gpx", "not a GPX document (no <gpx> root)");
  const out: CatalogCache[] = [];
  for (const w of (gpx.wpt as Array<Record<string, unknown>> | undefined) ?? []) {
    const gs = (w.cache ?? (w.extensions as Record<string, unknown> | undefined)?.cache) as Record<string, unknown> | undefined;
    const code = str(w.name);
    const lat = coord(w["@lat"], 90);
    const lon = coord(w["@lon"], 180);
    if (!gs || !code || lat === null || lon === null) continue; // a plain waypoint (parking, stage) is not a cache
    if (!/^[A-Za-z0-9_-]{2,20}$/.test(code)) continue;
    const gsType = str(gs.type) || str(w.type).replace(/^Geocache\|/, "");
    const type = TYPE_FROM_GS.find(([re]) => re.test(gsType))?.[1] ?? "other";
    const longDesc = gs.long_description as Record<string, unknown> | string | undefined;
    const shortDesc = gs.short_description as Record<string, unknown> | string | undefined;
    const html = (d: unknown) => typeof d === "object" && d !== null && truthy((d as Record<string, unknown>)["@html"]);
    const text = (d: unknown) => (html(d) ? stripHtml(str(d)) : str(d));
    const description = [text(shortDesc), text(longDesc)].filter(Boolean).join("\n\n").slice(0, 20_000);
    const placed = Date.parse(str(w.time));
    out.push({
      code: code.toUpperCase(),
      name: (str(gs.name) || str(w.urlname) || code).slice(0, 100),
      type,
      size: SIZE_FROM_GS[str(gs.container).toLowerCase()] ?? "other",
      difficulty: half(gs.difficulty),
      terrain: half(gs.terrain),
      lat,
      lon: lon === -180 ? 180 : lon,
      status: truthy(gs["@archived"]) ? "archived" : gs["@available"] !== undefined && !truthy(gs["@available"]) ? "disabled" : "active",
      hint: str(gs.encoded_hints).slice(0, 1000) || null,
      description,
      placedAt: Number.isFinite(placed) ? placed : null,
      placedBy: (str(gs.placed_by) || str(gs.owner)).slice(0, 100) || null,
    });
  }
  return out;
}

function fromLoc(doc: Record<string, unknown>): CatalogCache[] {
  const loc = doc.loc as Record<string, unknown> | undefined;
  if (!loc || typeof loc !== "object") throw badRequest("bad_loc", "not a LOC document (no <loc> root)");
  const out: CatalogCache[] = [];
  const CONTAINER: Record<string, string> = { "1": "other", "2": "micro", "3": "regular", "4": "large", "5": "none", "6": "other", "8": "small" };
  for (const w of (loc.waypoint as Array<Record<string, unknown>> | undefined) ?? []) {
    const nameEl = w.name as Record<string, unknown> | string | undefined;
    const code = typeof nameEl === "object" && nameEl ? str(nameEl["@id"]) : "";
    const c = w.coord as Record<string, unknown> | undefined;
    const lat = coord(c?.["@lat"], 90);
    const lon = coord(c?.["@lon"], 180);
    if (!code || lat === null || lon === null || !/^[A-Za-z0-9_-]{2,20}$/.test(code)) continue;
    const full = str(nameEl);
    const by = / by (.+)$/.exec(full);
    out.push({
      code: code.toUpperCase(),
      name: (by ? full.slice(0, by.index) : full || code).slice(0, 100),
      type: "traditional",
      size: CONTAINER[str(w.container)] ?? "other",
      difficulty: half(w.difficulty),
      terrain: half(w.terrain),
      lat,
      lon,
      status: "active",
      hint: null,
      description: "",
      placedAt: null,
      placedBy: by ? by[1]!.slice(0, 100) : null,
    });
  }
  return out;
}

/** Imports a catalog file; answers what changed. All or nothing. */
export async function importCatalog(gw: Gateway, actor: Actor, source: string, body: unknown) {
  if (!(IMPORT_SOURCES as readonly string[]).includes(source)) throw notFound(`import source ${source} (known: ${IMPORT_SOURCES.join(", ")})`);
  const text = bodyText(body);
  if (!text.trim()) throw badRequest("bad_body", `send the ${source.toUpperCase()} file as the body`);
  const xml = await xmlParser();
  let doc: Record<string, unknown>;
  try {
    doc = xml.parse(text, true) as Record<string, unknown>;
  } catch (e) {
    throw badRequest(`bad_${source}`, `the file is not well-formed XML: ${String((e as Error).message ?? e).split("\n")[0]}`);
  }
  const caches = source === "gpx" ? fromGpx(doc) : fromLoc(doc);
  if (caches.length > MAX_IMPORT_CACHES) throw badRequest("too_many", `at most ${MAX_IMPORT_CACHES} caches per file`);
  const counts = { created: 0, updated: 0, unchanged: 0 };
  gw.db.transaction(() => {
    // One namespace for every catalog format: the same GC code from a LOC and a GPX file is one cache.
    for (const c of caches) counts[upsertCatalogCache(gw, "catalog", actor.userId, c)]++;
  })();
  return { source, caches: caches.length, ...counts, codes: caches.map((c) => c.code) };
}
