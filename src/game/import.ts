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
 *
 * A large file never holds the event loop for long: a scanner finds the
 * top-level records (<wpt>, <waypoint>) and checks that the tags nest, the
 * records are parsed in batches of about 16 KiB, and the caches are written
 * in transactions of WRITE_BATCH, each through the write gate, each step
 * giving way (setImmediate) once it has run SLICE_MS. The whole file is read
 * and checked before anything is written. Bodies are capped per account
 * (MAX_IMPORT_BYTES, or MAX_IMPORT_BYTES_UNVERIFIED without a verified
 * callsign), before they are read (exports/routes.ts).
 */
import type { XMLParser } from "fast-xml-parser";
import type { Core } from "../core/core.ts";
import { badRequest, notFound, tooLarge } from "../lib/errors.ts";
import { bodyText } from "../lib/text.ts";
import { upsertCatalogCache, type CatalogCache } from "./catalog-caches.ts";
import type { Actor } from "./model.ts";
import { keepListedBugs, type ListedBug } from "./trackables-gpx.ts";
import { maintenanceFromGpxLogs, setImportedMaintenance } from "./maintenance-gpx.ts";
import { eventFromGpx, setImportedEvent, type EventTimes } from "./events.ts";
import { eventFromGcTime } from "./events-gc.ts";
import { waypointsOfFile, type GpxWaypoint } from "./waypoints-gpx.ts";
import { gpxAttributes, setImportedAttributes } from "./attributes.ts";
import type { CacheAttribute } from "../lib/cache-attributes.ts";
import { catalogLogsOfGpx, setCatalogLogs, type CatalogLog } from "./catalog-logs.ts";
import { collectLight } from "../system/runtime.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, wholeNumber } from "../lib/schema.ts";

export const IMPORT_SOURCES = ["gpx", "loc"] as const;
/** Largest file a verified account (or the ingest box, or a device key) may import. */
export const MAX_IMPORT_BYTES = 8 * 1024 * 1024;
/** Largest file an account without a verified callsign may import. */
export const MAX_IMPORT_BYTES_UNVERIFIED = 512 * 1024;
const MAX_IMPORT_CACHES = 20_000;
/** Largest single record (<wpt> with its logs, <waypoint>), characters. */
const MAX_RECORD_CHARS = 256 * 1024;
/** Caches written per transaction. */
const WRITE_BATCH = 200;
/** Longest the import runs before it gives way to other work, ms. */
const SLICE_MS = 10;
const PARSE_BATCH_CHARS = 16 * 1024;

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
    isArray: (name) => ["wpt", "log", "waypoint", "travelbug", "attribute"].includes(name),
  }));
}

const TYPE_FROM_GS: Array<[RegExp, string]> = [
  [/^traditional/i, "traditional"],
  [/^multi/i, "multi"],
  [/^(unknown|mystery|puzzle|quiz)/i, "mystery"],
  [/^letterbox/i, "letterbox"],
  [/^virtual/i, "virtual"],
  [/(cache in trash out|cito)/i, "cito"],
  [/(event|mega|giga)/i, "event"],
  [/^earth/i, "earth"],
  [/^webcam/i, "webcam"],
];
const SIZE_FROM_GS: Record<string, string> = {
  micro: "micro",
  nano: "micro",
  small: "small",
  regular: "regular",
  medium: "regular",
  large: "large",
  "very large": "large",
  virtual: "none",
  "not chosen": "other",
  other: "other",
  none: "none",
};

const str = (v: unknown): string =>
  (v === undefined || v === null ? "" : typeof v === "object" ? String((v as Record<string, unknown>)["#text"] ?? "") : String(v)).trim();
const half = (v: unknown) => {
  const n = Number(str(v));
  return Number.isFinite(n) ? Math.min(5, Math.max(1, Math.round(n * 2) / 2)) : 1;
};
const truthy = (v: unknown) => /^(true|1)$/i.test(str(v));
const stripHtml = (s: string) =>
  s
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/p>/gi, "\n\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&nbsp;/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();

function coord(v: unknown, lim: number): number | null {
  const n = Number(str(v));
  return Number.isFinite(n) && Math.abs(n) <= lim ? Math.round(n * 1e7) / 1e7 : null;
}

/** A cache of a GPX file with the travel bugs it lists (groundspeak:travelbugs). */
type GpxCache = CatalogCache & {
  travelbugs?: ListedBug[];
  attributes?: CacheAttribute[];
  needsMaintenance?: boolean;
  event?: EventTimes | null;
  logs?: CatalogLog[];
};

/** `<groundspeak:travelbug id=".." ref=".."><groundspeak:name>..</groundspeak:name></groundspeak:travelbug>`, at most 100 a cache. */
function travelbugsOf(gs: Record<string, unknown>): ListedBug[] {
  const list = ((gs.travelbugs as Record<string, unknown> | undefined)?.travelbug as Array<Record<string, unknown>> | undefined) ?? [];
  const out: ListedBug[] = [];
  for (const b of list.slice(0, 100)) {
    const ref = str(b["@ref"]).toUpperCase();
    if (!/^[A-Z0-9]{2,20}$/.test(ref) || out.some((x) => x.ref === ref)) continue;
    const id = str(b["@id"]);
    out.push({ ref, id: /^\d{1,20}$/.test(id) ? id : null, name: (str(b.name) || ref).slice(0, 100) });
  }
  return out;
}

function fromGpx(doc: Record<string, unknown>, kids?: GpxWaypoint[]): GpxCache[] {
  const gpx = doc.gpx as Record<string, unknown> | undefined;
  if (!gpx || typeof gpx !== "object") throw badRequest("bad_gpx", "not a GPX document (no <gpx> root)");
  const out: GpxCache[] = [];
  for (const w of (gpx.wpt as Array<Record<string, unknown>> | undefined) ?? []) {
    const gs = (w.cache ?? (w.extensions as Record<string, unknown> | undefined)?.cache) as Record<string, unknown> | undefined;
    const code = str(w.name);
    const lat = coord(w["@lat"], 90);
    const lon = coord(w["@lon"], 180);
    if (!gs && kids && /^Waypoint\|/i.test(str(w.type))) kids.push({ code, lat, lon, type: str(w.type), desc: str(w.desc) || str(w.urlname), cmt: str(w.cmt) });
    if (!gs || !code || lat === null || lon === null) continue; // a plain waypoint (parking, stage) is not a cache: kept above as a child
    if (!/^[A-Za-z0-9_-]{2,20}$/.test(code)) continue;
    const gsType = str(gs.type) || str(w.type).replace(/^Geocache\|/, "");
    const type = TYPE_FROM_GS.find(([re]) => re.test(gsType))?.[1] ?? "other";
    const longDesc = gs.long_description as Record<string, unknown> | string | undefined;
    const shortDesc = gs.short_description as Record<string, unknown> | string | undefined;
    const html = (d: unknown) => typeof d === "object" && d !== null && truthy((d as Record<string, unknown>)["@html"]);
    const text = (d: unknown) => (html(d) ? stripHtml(str(d)) : str(d));
    // an event's day, times and zone: the line our export writes first in the short description
    const short = eventFromGpx(text(shortDesc));
    const description = [short.text, text(longDesc)].filter(Boolean).join("\n\n").slice(0, 20_000);
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
      travelbugs: travelbugsOf(gs),
      needsMaintenance: maintenanceFromGpxLogs((gs.logs as Record<string, unknown> | undefined)?.log),
      logs: catalogLogsOfGpx((gs.logs as Record<string, unknown> | undefined)?.log),
      // a pocket query's event has no line of ours: its day is its <time>, its times maybe in its text
      event: short.event ?? (type === "event" || type === "cito" ? eventFromGcTime(str(w.time), description) : null),
      attributes: gpxAttributes(((gs.attributes as Record<string, unknown> | undefined)?.attribute as Array<Record<string, unknown>> | undefined) ?? []),
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

/** Gives way to other work once a slice has run SLICE_MS. */
class Slicer {
  private start = performance.now();
  async pause(): Promise<void> {
    if (performance.now() - this.start < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.start = performance.now();
  }
}

/** An XML name (XML 1.0, section 2.3), at a position. */
const NAME_START =
  ":A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD";
const NAME = new RegExp(`[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040]*`, "y");
/** A reference after "&": a character reference, or an entity's name (never expanded unless XML's own). */
const REFERENCE = new RegExp(`(?:#[0-9]+|#x[0-9a-fA-F]+|[${NAME_START}][${NAME_START}\\-.0-9]{0,31});`, "y");
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * The top-level records of a catalog file (the text of each <wpt> or
 * <waypoint> under the root), checking on the way that the file is well-formed
 * XML, so the parser need not check it again (its own check took half of what
 * an import's parse allocates): one root of the expected name, names that are
 * XML names, every tag closed by its own end tag, attributes each once with a
 * quoted value and no "<", no text outside the root, and every "&" starting a
 * character or entity reference. Comments, CDATA sections, processing
 * instructions and the DOCTYPE are skipped (no entity the file declares is ever
 * expanded).
 */
async function splitRecords(text: string, source: "gpx" | "loc", slicer = new Slicer()): Promise<string[]> {
  const bad = (m: string) => badRequest(`bad_${source}`, `the file is not well-formed XML: ${m}`);
  const record = source === "gpx" ? "wpt" : "waypoint";
  const stack: string[] = [];
  const out: string[] = [];
  let root: string | null = null;
  let recStart = -1;
  let i = 0;
  let tags = 0;
  const skip = (from: number, end: string, what: string) => {
    const e = text.indexOf(end, from);
    if (e < 0) throw bad(`unterminated ${what}`);
    return e + end.length;
  };
  // the next "&" at or after a position, looked for once: the scan only moves forward, so each
  // character is passed once however many short stretches of text and values there are (none: past every index)
  let nextAmp = -1;
  const ampFrom = (from: number) => (nextAmp >= from ? nextAmp : (nextAmp = text.indexOf("&", from) >>> 0));
  /** every "&" from `from` to `to` starts a reference */
  const checkReferences = (from: number, to: number, where: string) => {
    for (let amp = ampFrom(from); amp < to; amp = ampFrom(amp + 1)) {
      REFERENCE.lastIndex = amp + 1;
      if (!REFERENCE.test(text) || REFERENCE.lastIndex > to) throw bad(`an "&" that starts no reference ${where} at character ${amp}`);
    }
  };
  /** the text from `from` to `to`: only white space outside the root (a byte order mark may lead) */
  const checkText = (from: number, to: number) => {
    if (stack.length) return checkReferences(from, to, "in text");
    for (let k = from; k < to; k++)
      if (!isSpace(text.charCodeAt(k)) && !(k === 0 && text.charCodeAt(0) === 0xfeff)) throw bad(`text outside the root element at character ${k}`);
  };
  for (;;) {
    const lt = text.indexOf("<", i);
    checkText(i, lt < 0 ? text.length : lt);
    if (lt < 0) break;
    if (++tags % 256 === 0) await slicer.pause();
    if (text.startsWith("<!--", lt)) {
      i = skip(lt + 4, "-->", "comment");
      continue;
    }
    if (text.startsWith("<![CDATA[", lt)) {
      if (!stack.length) throw bad("CDATA outside the root element");
      i = skip(lt + 9, "]]>", "CDATA section");
      continue;
    }
    if (text.startsWith("<?", lt)) {
      i = skip(lt + 2, "?>", "processing instruction");
      continue;
    }
    if (text.startsWith("<!", lt)) {
      if (root !== null) throw bad("a declaration inside the document");
      const gt = text.indexOf(">", lt);
      const bracket = text.indexOf("[", lt);
      i = bracket >= 0 && (gt < 0 || bracket < gt) ? skip(skip(bracket, "]", "DOCTYPE"), ">", "DOCTYPE") : skip(lt, ">", "declaration");
      continue;
    }
    let j = lt + 1;
    const closing = text.charCodeAt(j) === 47; // "/"
    if (closing) j++;
    NAME.lastIndex = j;
    const m = NAME.exec(text);
    if (!m) throw bad(`a "<" that starts no tag at character ${lt}`);
    const name = m[0];
    j += name.length;
    // the attributes: each after white space, a name, "=", a quoted value; then ">" or "/>"
    // (in linear time however many a tag holds: the next "<" looked for once, and a set of the names)
    let attributes: Set<string> | null = null;
    let nextLt = -1;
    let selfClosing = false;
    for (;;) {
      const spaced = j;
      while (isSpace(text.charCodeAt(j))) j++;
      if (j >= text.length) throw bad(`unterminated tag <${name}>`);
      const c = text.charCodeAt(j);
      if (c === 62) break; // ">"
      if (c === 47 && !closing && text.charCodeAt(j + 1) === 62) {
        selfClosing = true;
        j++;
        break;
      }
      if (closing) throw bad(`the end tag </${name}> has more than its name at character ${j}`);
      NAME.lastIndex = j;
      const a = j > spaced ? NAME.exec(text) : null;
      if (!a) throw bad(`${c === 60 ? '"<"' : "a bad attribute"} inside the tag <${name}> at character ${j}`);
      const attribute = a[0];
      j += attribute.length;
      while (isSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) !== 61) throw bad(`the attribute ${attribute} of <${name}> has no value`);
      j++;
      while (isSpace(text.charCodeAt(j))) j++;
      const quote = text[j];
      if (quote !== '"' && quote !== "'") throw bad(`the value of the attribute ${attribute} of <${name}> is not quoted`);
      const end = text.indexOf(quote, j + 1);
      if (end < 0) throw bad(`unterminated tag <${name}>`);
      if (nextLt <= j) nextLt = text.indexOf("<", j + 1) >>> 0; // (none: past every index)
      if (nextLt < end) throw bad(`"<" inside the tag <${name}>`);
      if (attributes?.has(attribute)) throw bad(`the attribute ${attribute} is repeated in <${name}>`);
      (attributes ??= new Set()).add(attribute);
      checkReferences(j + 1, end, `in the attribute ${attribute} of <${name}>`);
      j = end + 1;
    }
    const local = name.slice(name.indexOf(":") + 1);
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw bad(open ? `</${name}> closes <${open}>` : `</${name}> closes nothing`);
      if (stack.length === 1 && recStart >= 0) {
        if (j + 1 - recStart > MAX_RECORD_CHARS) throw badRequest(`bad_${source}`, `a <${record}> is larger than ${MAX_RECORD_CHARS / 1024} KiB`);
        out.push(text.slice(recStart, j + 1));
        recStart = -1;
      }
    } else {
      if (stack.length === 0) {
        if (root !== null) throw bad("more than one root element");
        root = local;
        if (root !== source) throw badRequest(`bad_${source}`, `not a ${source.toUpperCase()} document (no <${source}> root)`);
      } else if (stack.length === 1 && local === record) {
        if (selfClosing) out.push(text.slice(lt, j + 1));
        else recStart = lt;
        if (out.length > MAX_IMPORT_CACHES * 4) throw badRequest("too_many", `at most ${MAX_IMPORT_CACHES} caches per file`);
      }
      if (!selfClosing) stack.push(name);
    }
    i = j + 1;
  }
  if (root === null) throw badRequest(`bad_${source}`, `not a ${source.toUpperCase()} document (no <${source}> root)`);
  if (stack.length) throw bad(`<${stack[stack.length - 1]}> is never closed`);
  return out;
}

/** The caches of a catalog file, parsed record batch by record batch. */
export async function parseCatalog(text: string, source: "gpx" | "loc", slicer = new Slicer(), kids?: GpxWaypoint[]): Promise<CatalogCache[]> {
  const records = await splitRecords(text, source, slicer);
  const xml = await xmlParser();
  const caches: CatalogCache[] = [];
  const parseBatch = (batch: string[]) => {
    let doc: Record<string, unknown>;
    try {
      // (splitRecords checked the file is well-formed: the parser's own check is not asked for)
      doc = xml.parse(`<${source}>${batch.join("")}</${source}>`) as Record<string, unknown>;
    } catch (e) {
      throw badRequest(`bad_${source}`, `the file is not well-formed XML: ${String((e as Error).message ?? e).split("\n")[0]}`);
    }
    if (!doc[source] || typeof doc[source] !== "object") doc = { [source]: {} };
    for (const c of source === "gpx" ? fromGpx(doc, kids) : fromLoc(doc)) caches.push(c);
    if (caches.length > MAX_IMPORT_CACHES) throw badRequest("too_many", `at most ${MAX_IMPORT_CACHES} caches per file`);
  };
  let batch: string[] = [];
  let size = 0;
  for (const r of records) {
    batch.push(r);
    size += r.length;
    if (size >= PARSE_BATCH_CHARS) {
      parseBatch(batch);
      batch = [];
      size = 0;
      // a light collection: the next batch reuses what this one's parse dropped (system/runtime.ts)
      collectLight();
      await slicer.pause();
    }
  }
  if (batch.length) parseBatch(batch);
  return caches;
}

/** The largest file this actor may import, bytes. */
export function importByteCap(actor: Pick<Actor, "verified" | "ingest">): number {
  return actor.verified || actor.ingest ? MAX_IMPORT_BYTES : MAX_IMPORT_BYTES_UNVERIFIED;
}

/**
 * Imports a catalog file; answers what changed. The whole file is checked
 * before anything is written; it is then written in transactions of
 * WRITE_BATCH caches (importing the same file again after a crash half way
 * completes it: caches are matched by code).
 */
/** What an import answers: how many caches the file held and what became of them. */
export const IMPORTED = closed({
  source: t.String({ description: "the file's format: gpx or loc" }),
  caches: wholeNumber({ description: "caches in the file" }),
  created: wholeNumber(),
  updated: wholeNumber(),
  unchanged: wholeNumber(),
  waypoints: wholeNumber({ description: "child waypoints (parking, stages, final) taken to their caches" }),
  codes: t.Array(t.String(), { description: "the file's cache codes, in its order" }),
});

export async function importCatalog(gw: Core, actor: Actor, source: string, body: unknown): Promise<Static<typeof IMPORTED>> {
  if (!(IMPORT_SOURCES as readonly string[]).includes(source)) throw notFound(`import source ${source} (known: ${IMPORT_SOURCES.join(", ")})`);
  // The body was read under this cap already (exports/routes.ts); this holds for callers in process too.
  const cap = importByteCap(actor);
  if ((body instanceof Uint8Array ? body.byteLength : typeof body === "string" ? Buffer.byteLength(body) : 0) > cap) throw tooLarge(cap);
  const text = bodyText(body);
  if (!text.trim()) throw badRequest("bad_body", `send the ${source.toUpperCase()} file as the body`);
  const slicer = new Slicer();
  const kids: GpxWaypoint[] = [];
  const caches = await parseCatalog(text, source as "gpx" | "loc", slicer, kids);
  const counts = { created: 0, updated: 0, unchanged: 0 };
  const selectId = gw.db.query("SELECT id FROM caches WHERE source = 'catalog' AND source_ref = ?");
  for (let k = 0; k < caches.length; k += WRITE_BATCH) {
    // each batch passes the write gate: the request passed it once, but a checkpoint may hold it between batches
    await gw.writeGate.run(
      gw.db.transaction(() => {
        // One namespace for every catalog format: the same GC code from a LOC and a GPX file is one cache.
        for (const c of caches.slice(k, k + WRITE_BATCH) as GpxCache[]) {
          const { travelbugs, attributes, needsMaintenance, event, logs, ...cache } = c;
          let done = upsertCatalogCache(gw, "catalog", actor.userId, cache);
          if (source === "gpx") {
            const id = (selectId.get(cache.code) as { id: number }).id;
            keepListedBugs(gw, id, travelbugs ?? []);
            if (setImportedMaintenance(gw, id, needsMaintenance === true) && done === "unchanged") done = "updated";
            if (setImportedEvent(gw, id, event ?? null) && done === "unchanged") done = "updated";
            if (setImportedAttributes(gw, id, attributes ?? []) && done === "unchanged") done = "updated";
            if (setCatalogLogs(gw, id, logs ?? []) && done === "unchanged") done = "updated";
          }
          counts[done]++;
        }
      }),
    );
    await slicer.pause();
  }
  // a pocket query's child waypoints (parking, stages, final), each by its code's tail to its cache in the file or one this account imported before
  const waypoints = kids.length ? await gw.writeGate.run(gw.db.transaction(() => waypointsOfFile(gw, actor, caches, kids))) : 0;
  return { source, caches: caches.length, ...counts, waypoints, codes: caches.map((c) => c.code) };
}
