/**
 * The HTTP status of a browser navigation the web app answers (ui.ts): 200 for
 * the app's own pages and for a cache, station, profile or BBS message that
 * exists; 404 for any other address, or a record that is not there. The body
 * is the app's page either way, and the app shows its own "not found".
 * Checked as a signed-out visitor sees it: a draft or a private message is a
 * 404 here, and the app still shows it to whoever may read it.
 */
import type { Core } from "../core/core.ts";
import { resolveCache } from "../game/cache-lookup.ts";
import { parseCallsign, verifiedHolder } from "../accounts/users.ts";
import { PROFILE_SECTIONS } from "../accounts/profile.ts";
import { baseCall } from "../lib/callsign.ts";
import { findTrackable } from "../game/trackables.ts";

/** The app's fixed pages (ui/app.tsx's routes). */
const PAGES = new Set([
  "/",
  "/map",
  "/about",
  "/setup",
  "/decode",
  "/account",
  "/signin/email",
  "/hide",
  "/review",
  "/leaderboard",
  "/activity",
  "/support",
  "/peers",
  "/bbs",
  "/bbs/bulletins",
  "/bbs/compose",
  "/bbs/wp",
  "/sysop/bbs",
  "/radio",
  "/messages",
  "/offline",
  "/embed",
  "/trackables",
  "/lists",
]);

/** Pages with a record in the address: whether that record exists. */
const RECORDS: Array<[RegExp, (gw: Core, key: string) => boolean]> = [
  [/^\/cache\/([^/]+)$/, (gw, id) => !!resolveCache(gw, id, null)],
  [/^\/station\/([^/]+)$/, (gw, call) => !!gw.db.query("SELECT 1 FROM stations WHERE call = ?").get(call)],
  [
    /^\/profile\/([^/]+)$/,
    (gw, raw) => {
      const call = baseCall(parseCallsign(raw));
      return verifiedHolder(gw.db, call) !== null || PROFILE_SECTIONS.some((s) => s.build(gw, call) != null);
    },
  ],
  [/^\/bbs\/msg\/(\d{1,15})$/, (gw, id) => !!gw.db.query("SELECT 1 FROM bbs_messages WHERE id = ? AND killed_at IS NULL").get(Number(id))],
  // a list's page is a 404 as a signed-out visitor sees it unless the list is public
  [/^\/list\/(\d{1,15})$/, (gw, id) => !!gw.db.query("SELECT 1 FROM cache_lists WHERE id = ? AND public = 1").get(Number(id))],
  [/^\/trackable\/([^/]+)(?:\/tag)?$/, (gw, ref) => !!findTrackable(gw, ref)], // throws not found,
  // a conversation may be started with any callsign
  [/^\/messages\/([^/]+)$/, (_gw, call) => /^[A-Z0-9-]{1,12}$/i.test(call)],
];

export function pageStatus(gw: Core, path: string): 200 | 404 {
  const p = path.length > 1 ? path.replace(/\/+$/, "") : path;
  if (PAGES.has(p)) return 200;
  for (const [re, exists] of RECORDS) {
    const m = re.exec(p);
    if (!m) continue;
    try {
      return exists(gw, decodeURIComponent(m[1]!)) ? 200 : 404;
    } catch {
      return 404; // malformed (a bad callsign, a bad escape) or not found
    }
  }
  return 404;
}
