/**
 * The logs a GPX file brings with an imported cache (another catalog's: a
 * pocket query's newest five, a GSAK or c:geo export's). They are kept as
 * the file had them, by Groundspeak type, finder's name, date and text, so
 * that the cache's GPX export writes them again (c:geo and GSAK show them
 * offline: the recent DNFs, the maintenance notes, who attends an event).
 * They are not logs of this instance: no account wrote them, they count as
 * no find, in no statistics, no log count, and are never federated (an
 * imported cache is not). A type without a log kind here ("Publish Listing")
 * is left out. Importing the file again replaces them.
 */
import type { Core } from "../core/core.ts";
import type { LogKind } from "./model.ts";
import { logKindOfGroundspeak } from "./maintenance-gpx.ts";

/** Logs kept per imported cache (the newest). */
export const MAX_CATALOG_LOGS = 20;
const MAX_TEXT = 4000;

/** One log of the file, as kept. */
export interface CatalogLog {
  kind: LogKind;
  /** the catalog's name of its writer, not a callsign of ours */
  finder: string;
  text: string;
  loggedAt: number;
}

const str = (v: unknown): string =>
  (v === undefined || v === null ? "" : typeof v === "object" ? String((v as Record<string, unknown>)["#text"] ?? "") : String(v)).trim();

/** The logs of a cache's parsed `<groundspeak:logs><groundspeak:log>` list, newest first, at most MAX_CATALOG_LOGS. */
export function catalogLogsOfGpx(logs: unknown): CatalogLog[] {
  const list = Array.isArray(logs) ? (logs as Array<Record<string, unknown>>) : [];
  const out: CatalogLog[] = [];
  for (const l of list) {
    const kind = logKindOfGroundspeak(str(l.type));
    const at = Date.parse(str(l.date));
    if (!kind || !Number.isFinite(at)) continue;
    out.push({ kind, finder: str(l.finder).slice(0, 100), text: str(l.text).slice(0, MAX_TEXT), loggedAt: at });
  }
  return out.sort((a, b) => b.loggedAt - a.loggedAt).slice(0, MAX_CATALOG_LOGS);
}

/** Replaces an imported cache's kept logs with the file's; whether they changed. Inside the import's transaction. */
export function setCatalogLogs(gw: Core, cacheId: number, logs: CatalogLog[]): boolean {
  if (JSON.stringify(catalogLogs(gw, cacheId)) === JSON.stringify(logs)) return false;
  gw.db.query("DELETE FROM catalog_logs WHERE cache_id = ?").run(cacheId);
  const insert = gw.db.query("INSERT INTO catalog_logs (cache_id, seq, kind, finder, text, logged_at) VALUES (?, ?, ?, ?, ?, ?)");
  logs.forEach((l, i) => insert.run(cacheId, i, l.kind, l.finder, l.text, l.loggedAt));
  return true;
}

/** An imported cache's kept logs, newest first. */
export function catalogLogs(gw: Core, cacheId: number): CatalogLog[] {
  return gw.db.query("SELECT kind, finder, text, logged_at AS loggedAt FROM catalog_logs WHERE cache_id = ? ORDER BY seq").all(cacheId) as CatalogLog[];
}

/** The kept logs of many caches at once (a GPX export), by cache id. */
export function catalogLogsOf(gw: Core, cacheIds: number[]): Map<number, CatalogLog[]> {
  const out = new Map<number, CatalogLog[]>();
  if (!cacheIds.length) return out;
  const rows = gw.db
    .query(
      "SELECT cache_id AS cacheId, kind, finder, text, logged_at AS loggedAt FROM catalog_logs WHERE cache_id IN (SELECT value FROM json_each(?)) ORDER BY cache_id, seq",
    )
    .all(JSON.stringify(cacheIds)) as Array<CatalogLog & { cacheId: number }>;
  for (const { cacheId, ...l } of rows) {
    const list = out.get(cacheId) ?? [];
    list.push(l);
    out.set(cacheId, list);
  }
  return out;
}
