/**
 * White Pages: which BBS is a callsign's home, learnt the way FBB learns it:
 * from forwarded WP update messages (personal mail to WP, one line per entry:
 * `On 930123 FD1CDC/U @ F6FBB.FMLR.FRA.EU zip 31240 Claude Saint Jean`), and
 * from the R: lines of mail passing through (/I: each BBS in the path; /G:
 * the sender's home guessed from the oldest R: line). User-given (/U) beats
 * path information (/I), which beats a guess (/G); within a rank the newer
 * information wins.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Database } from "../core/store/db.ts";
import { closed, nullable, unixMs } from "../lib/schema.ts";
import { isBaseCallsign } from "../lib/callsign.ts";
import { checkRoute } from "./address.ts";
import { bbsDate, parseRouteLine } from "./text.ts";

/** U given by the user (a WP update), I from the path of mail passing through, G guessed from the oldest R: line. */
export const WP_SOURCE = t.Union([t.Literal("U"), t.Literal("I"), t.Literal("G")], {
  description: "where it was learnt: U given by the user, I from a message's path, G guessed from its oldest R: line",
});
export type WpSource = Static<typeof WP_SOURCE>;

/** A White Pages entry: a callsign's home BBS. */
export const WP_ENTRY = closed({
  call: t.String({ description: "a base callsign" }),
  homeBbs: t.String({ description: "its home BBS as a hierarchical address, e.g. N0BBS.#NCA.CA.USA.NOAM" }),
  zip: nullable(t.String()),
  name: nullable(t.String()),
  qth: nullable(t.String()),
  source: WP_SOURCE,
  infoAt: unixMs("when the information was given, unix ms"),
  updatedAt: unixMs("when this directory last changed it, unix ms"),
});
export type WpEntry = Static<typeof WP_ENTRY>;

const RANK: Record<WpSource, number> = { U: 3, I: 2, G: 1 };

interface Row {
  call: string;
  home_bbs: string;
  zip: string | null;
  name: string | null;
  qth: string | null;
  source: WpSource;
  info_at: number;
  updated_at: number;
}

const toEntry = (r: Row): WpEntry => ({
  call: r.call,
  homeBbs: r.home_bbs,
  zip: r.zip,
  name: r.name,
  qth: r.qth,
  source: r.source,
  infoAt: r.info_at,
  updatedAt: r.updated_at,
});

export function wpLookup(db: Database, call: string): WpEntry | null {
  const r = db.query("SELECT * FROM bbs_wp WHERE call = ?").get(call.toUpperCase()) as Row | null;
  return r ? toEntry(r) : null;
}

/** By callsign prefix, or a word of the home BBS, name or QTH. */
export function wpSearch(db: Database, q: string, limit: number): WpEntry[] {
  const t = q.trim().toUpperCase();
  if (t === "") return (db.query("SELECT * FROM bbs_wp ORDER BY updated_at DESC LIMIT ?").all(limit) as Row[]).map(toEntry);
  const like = `%${t.replace(/[%_\\]/g, (c) => "\\" + c)}%`;
  const rows = db
    .query(
      `SELECT * FROM bbs_wp WHERE call LIKE ?1 ESCAPE '\\' OR home_bbs LIKE ?2 ESCAPE '\\' OR upper(coalesce(name, '')) LIKE ?2 ESCAPE '\\' OR upper(coalesce(qth, '')) LIKE ?2 ESCAPE '\\'
       ORDER BY (call LIKE ?1 ESCAPE '\\') DESC, call LIMIT ?3`,
    )
    .all(`${t.replace(/[%_\\]/g, (c) => "\\" + c)}%`, like, limit) as Row[];
  return rows.map(toEntry);
}

export interface WpUpdate {
  call: string;
  homeBbs: string;
  zip?: string | null;
  name?: string | null;
  qth?: string | null;
  source: WpSource;
  infoAt: number;
}

/** Applies one update if it is better than what is known; true when it changed the directory. */
function wpUpdate(db: Database, u: WpUpdate, now: number): boolean {
  const call = u.call.toUpperCase();
  if (!isBaseCallsign(call)) return false;
  const home = checkRoute(u.homeBbs);
  if (!home.ok || !isBaseCallsign(home.value.split(".")[0]!)) return false;
  const old = db.query("SELECT * FROM bbs_wp WHERE call = ?").get(call) as Row | null;
  if (old) {
    const better = RANK[u.source] > RANK[old.source] || (RANK[u.source] === RANK[old.source] && u.infoAt > old.info_at);
    if (!better) return false;
  }
  db.query(
    `INSERT INTO bbs_wp (call, home_bbs, zip, name, qth, source, info_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(call) DO UPDATE SET home_bbs = excluded.home_bbs,
       zip = coalesce(excluded.zip, bbs_wp.zip), name = coalesce(excluded.name, bbs_wp.name), qth = coalesce(excluded.qth, bbs_wp.qth),
       source = excluded.source, info_at = excluded.info_at, updated_at = excluded.updated_at`,
  ).run(call, home.value, u.zip ?? null, u.name ?? null, u.qth ?? null, u.source, u.infoAt, now);
  return true;
}

const unknown = (v: string | undefined) => (v === undefined || v === "?" || v === "" ? null : v);

/** The entries of a WP update message body. Lines that do not parse are skipped. */
function parseWpMessage(body: string, now = Date.now()): WpUpdate[] {
  const out: WpUpdate[] = [];
  for (const line of body.split("\n")) {
    const m = /^On\s+(\d{2})(\d{2})(\d{2})\s+([A-Z0-9]{1,6})(?:-\d{1,2})?\/([UGI])\s+@\s+(\S+)\s+zip\s+(\S+)\s+(\S+)\s*(.*)$/i.exec(line.trim());
    if (!m) continue;
    const infoAt = bbsDate(Number(m[1]), Number(m[2]), Number(m[3]), 0, 0, now);
    if (infoAt === null) continue;
    out.push({
      call: m[4]!.toUpperCase(),
      source: m[5]!.toUpperCase() as WpSource,
      homeBbs: m[6]!.toUpperCase(),
      zip: unknown(m[7]),
      name: unknown(m[8]),
      qth: unknown(m[9]?.trim()),
      infoAt,
    });
  }
  return out;
}

/** What a stored message teaches the directory. Returns the number of entries changed. */
export function wpLearn(db: Database, m: { type: string; from: string; to: string; body: string; route: string[] }, now: number): number {
  let changed = 0;
  if (m.type === "P" && m.to === "WP") for (const u of parseWpMessage(m.body, now)) if (wpUpdate(db, u, now)) changed++;
  const infos = m.route.map((l) => parseRouteLine(l, now));
  for (const i of infos) {
    if (!i.ha || i.at === null) continue;
    if (wpUpdate(db, { call: i.ha.split(".")[0]!, homeBbs: i.ha, qth: i.qth, zip: i.zip, source: "I", infoAt: i.at }, now)) changed++;
  }
  const origin = infos[infos.length - 1];
  if (origin?.ha && origin.at !== null && m.from !== "WP") {
    if (wpUpdate(db, { call: m.from, homeBbs: origin.ha, source: "G", infoAt: origin.at }, now)) changed++;
  }
  return changed;
}
