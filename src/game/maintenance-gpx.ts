/**
 * Log kinds in GPX (Groundspeak's log type names, both ways) and what an
 * imported cache's logs say of its maintenance: open when its newest
 * maintenance log is a "Needs Maintenance" or "Needs Archived", closed by a
 * later "Owner Maintenance" or "Enable Listing". The logs themselves are
 * kept apart as the catalog's (catalog-logs.ts): only this flag acts here.
 */
import type { Core } from "../core/core.ts";
import type { LogKind } from "./model.ts";

/** Groundspeak's `<groundspeak:type>` of each log kind (GPX export). */
export const GS_LOG_TYPE: Readonly<Record<LogKind, string>> = {
  find: "Found it",
  dnf: "Didn't find it",
  note: "Write note",
  "needs-maintenance": "Needs Maintenance",
  "needs-archive": "Needs Archived",
  "owner-maintenance": "Owner Maintenance",
  "temp-disable": "Temporarily Disable Listing",
  enable: "Enable Listing",
  archive: "Archive",
  "reviewer-note": "Post Reviewer Note",
  "will-attend": "Will Attend",
  attended: "Attended",
};

const KIND_OF_TYPE = new Map<string, LogKind>(Object.entries(GS_LOG_TYPE).map(([k, v]) => [v.toLowerCase(), k as LogKind]));
// other spellings seen in pocket queries and c:geo exports
KIND_OF_TYPE.set("needs archive", "needs-archive");
KIND_OF_TYPE.set("temporarily disable", "temp-disable");
KIND_OF_TYPE.set("archive (show)", "archive");

/** The log kind of a Groundspeak log type name; null for one without a kind here (e.g. "Publish Listing"). */
export function logKindOfGroundspeak(type: string): LogKind | null {
  return KIND_OF_TYPE.get(type.trim().toLowerCase()) ?? null;
}

const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : ((v as { "#text"?: string } | null)?.["#text"] ?? ""));

/** Whether a cache's GPX logs (`<groundspeak:logs><groundspeak:log>`, parsed) leave a maintenance need open. */
export function maintenanceFromGpxLogs(logs: unknown): boolean {
  const list = Array.isArray(logs) ? (logs as Array<Record<string, unknown>>) : [];
  let newest: { at: number; open: boolean } | null = null;
  for (const l of list) {
    const kind = logKindOfGroundspeak(str(l.type));
    if (kind !== "needs-maintenance" && kind !== "needs-archive" && kind !== "owner-maintenance" && kind !== "enable") continue;
    const at = Date.parse(str(l.date));
    if (!Number.isFinite(at)) continue;
    if (!newest || at > newest.at) newest = { at, open: kind === "needs-maintenance" || kind === "needs-archive" };
  }
  return newest?.open ?? false;
}

/** Sets an imported cache's open-maintenance flag; whether it changed. Inside the import's transaction. */
export function setImportedMaintenance(gw: Core, cacheId: number, open: boolean): boolean {
  return gw.db.query("UPDATE caches SET needs_maintenance = ? WHERE id = ? AND needs_maintenance <> ?").run(open ? 1 : 0, cacheId, open ? 1 : 0).changes > 0;
}
