/**
 * The first view of a record page (a cache, a station, a BBS bulletin, a
 * profile), drawn by the server into the page (ui.ts serveIndex) so that it
 * shows on a slow link long before the app's script has come and asked for
 * it, with the API answers the page asks for first carried inline (the app's
 * firstAnswer, ui/api.ts, uses each once instead of asking). Both are what a
 * signed-out visitor sees: a draft cache, personal mail or a profile's
 * private parts get nothing here (the app asks for them, with the visitor's
 * session, as it always did). Plain HTML in the app's own classes, every
 * piece of user text escaped; the app takes it out of the page before its
 * first render (ui/map/server-view.ts takeServerView: the element is
 * #ssr-view, as the map's drawing).
 */
import type { Core } from "../core/core.ts";
import { cachePage } from "../game/cache-lookup.ts";
import type { Cache } from "../game/caches.ts";
import type { CacheBasics } from "../lib/fed/bodies.ts";
import { logbook } from "../game/logs.ts";
import { getStation } from "../stations/registry.ts";
import { messageHeader, threadOf } from "../bbs/messages.ts";
import { canRead, type Viewer } from "../bbs/access.ts";
import { publicProfile } from "../accounts/profile.ts";
import { translator, type Translate } from "../i18n/server.ts";

export interface FirstView {
  /** the page's body until the app takes over */
  html: string;
  /** GET path (as the app writes it) -> its JSON answer */
  answers: Record<string, unknown>;
}

/** Text and attribute values: `<`, `>`, `&` and quotes as character references. */
const esc = (s: unknown) => String(s ?? "").replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
/** A code's word in the reader's language ("traditional" → "Traditional", "find" → "Gefunden"), else the code itself. */
const word = (t: Translate, section: string, code: string) => t(`${section}.${code}`, { defaultValue: code });
const when = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC" : "");
/** A route parameter as preact-iso hands it to the page (decoded once). */
const param = (seg: string) => decodeURIComponent(seg);

const ANONYMOUS: Viewer = { signedIn: false, sysop: false, calls: new Set() };

/** What the first view draws of a cache: the game's own Cache shape (src/game/caches.ts), not a copy of it. */
type CacheJson = Pick<Cache, "id" | "code" | keyof CacheBasics | "status" | "description" | "ownerCall" | "placedBy" | "finds" | "favorites">;

function cacheView(gw: Core, seg: string, t: Translate): FirstView | null {
  const id = param(seg);
  const full = cachePage(gw, id, null);
  const c: CacheJson = full;
  if (c.status === "draft") return null;
  const logs = logbook(gw, id, null);
  const key = `/api/caches/${encodeURIComponent(id)}`;
  const html =
    `<section class="page cache-page"><div class="page-head"><h1>${esc(c.name)}</h1> <span class="tag">${esc(word(t, "game.status", c.status))}</span></div>` +
    `<p class="muted" data-testid="cache-facts">${esc(c.code)} · ${esc(word(t, "game.type", c.type))} · ${esc(word(t, "game.size", c.size))} · D${esc(c.difficulty)}/T${esc(c.terrain)} · ${t("page.by")} ${esc(c.ownerCall ?? c.placedBy ?? "?")} · ${c.lat.toFixed(5)}, ${c.lon.toFixed(5)}</p>` +
    (c.finds !== undefined ? `<p>${t("page.finds", { count: c.finds })} · ${t("page.favorites", { count: c.favorites ?? 0 })}</p>` : "") +
    (c.description ? `<p class="description">${esc(c.description)}</p>` : "") +
    `<h2>${t("page.logs")}</h2><ul class="logs">${logs.logs
      .slice(0, 20)
      .map(
        (l) =>
          `<li><b>${esc(word(t, "game.logKind", l.kind))}</b> ${esc(l.call ?? t("page.withdrawn"))} <span class="muted">${when(l.foundAt)}</span>${l.text ? `<p>${esc(l.text)}</p>` : ""}</li>`,
      )
      .join("")}</ul></section>`;
  // the page's answer as GET /api/caches/:id gives it to a visitor
  return { html, answers: { [key]: full, [`${key}/logs`]: logs } };
}

function stationView(gw: Core, seg: string, t: Translate): FirstView | null {
  // the station page decodes its parameter once more (ui/pages/station.tsx)
  const call = decodeURIComponent(param(seg));
  const d = getStation(gw, call);
  const fact = (name: string, value: string) => (value ? `<dt>${name}</dt><dd>${value}</dd>` : "");
  const html =
    `<section class="page station-page"><h1>${esc(d.call)}</h1>` +
    (d.comment ? `<p>${esc(d.comment)}</p>` : "") +
    `<dl class="facts" data-testid="station-facts">` +
    (d.kind !== "station" ? fact(t("page.kind"), `${esc(d.kind)}${d.owner ? ` ${t("page.by")} ${esc(d.owner)}` : ""}`) : "") +
    (d.lat !== undefined && d.lon !== undefined ? fact(t("page.position"), `${d.lat.toFixed(5)}, ${d.lon.toFixed(5)}`) : "") +
    fact(t("page.status"), esc(d.status)) +
    fact(t("page.device"), esc(d.device)) +
    fact(t("page.lastHeard"), when(d.lastHeard)) +
    fact(t("page.packets"), String(d.packets)) +
    `</dl></section>`;
  return { html, answers: { [`/api/stations/${encodeURIComponent(call)}`]: d } };
}

function messageView(gw: Core, seg: string, t: Translate): FirstView | null {
  const id = Number(seg);
  const h = messageHeader(gw, id);
  if (!h || h.killed || !canRead(ANONYMOUS, h)) return null;
  const messages = threadOf(gw, id, ANONYMOUS);
  const subject = messages.find((m) => m.id === id)?.subject ?? t("page.message");
  const html =
    `<section class="page"><h1>${esc(subject)}</h1>` +
    messages
      .map(
        (m) =>
          `<article class="${m.id === id ? "card message current" : "card message"}"><header><strong>${esc(m.subject)}</strong>` +
          `<div class="muted">${t("page.fromTo", { from: esc(m.from), to: esc(m.address) })} · ${when(m.createdAt)} · ${esc(m.bid)}</div></header>` +
          `<pre class="message-body">${esc(m.body)}</pre></article>`,
      )
      .join("") +
    `</section>`;
  return { html, answers: { [`/api/bbs/thread/${id}`]: { threadId: messages[0]?.threadId ?? id, messages } } };
}

function profileView(gw: Core, seg: string, t: Translate): FirstView | null {
  const call = param(seg);
  const p = publicProfile(gw, call) as {
    call: string;
    profile: { about?: string; grid?: string } | null;
    game?: { finds: number; tierA: number; dnfs: number; hidden: number; favoritesReceived: number };
  };
  const g = p.game;
  const html =
    `<section class="page"><div class="page-head"><h1>${esc(p.call)}</h1></div>` +
    (p.profile?.about ? `<p>${esc(p.profile.about)}</p>` : "") +
    (p.profile?.grid ? `<p class="muted">${t("page.grid", { grid: esc(p.profile.grid) })}</p>` : "") +
    (g
      ? `<dl class="facts" data-testid="game-stats"><dt>${t("page.finds")}</dt><dd>${g.finds}</dd><dt>${t("page.rfVerified")}</dt><dd>${g.tierA}</dd><dt>${t("page.dnf")}</dt><dd>${g.dnfs}</dd>` +
        `<dt>${t("page.hidden")}</dt><dd>${g.hidden}</dd><dt>${t("page.favoritesReceived")}</dt><dd>${g.favoritesReceived}</dd></dl>`
      : `<p class="muted">${t("page.noActivity")}</p>`) +
    `</section>`;
  return { html, answers: { [`/api/profile/${encodeURIComponent(call)}`]: p } };
}

const PAGES: Array<[RegExp, (gw: Core, seg: string, t: Translate) => FirstView | null]> = [
  [/^\/cache\/([^/]+)$/, cacheView],
  [/^\/station\/([^/]+)$/, stationView],
  [/^\/bbs\/msg\/(\d{1,15})$/, messageView],
  [/^\/profile\/([^/]+)$/, profileView],
];

/** The first view of the record page at `path` in the visitor's language (src/i18n), or null (not such a page, no such record, or not public). */
export function recordFirstView(gw: Core, path: string, lang = "en"): FirstView | null {
  for (const [re, view] of PAGES) {
    const m = re.exec(path);
    if (!m) continue;
    try {
      return view(gw, m[1]!, translator(lang));
    } catch {
      return null; // not there, not readable, or a malformed address: the app says so itself
    }
  }
  return null;
}

/** The view in the app's frame (header, main), as #ssr-view: the element the app takes out before its first render. */
export function firstViewHtml(view: FirstView, instance: string, lang = "en"): string {
  const t = translator(lang);
  return (
    `<div id="ssr-view"><a class="skip-link" href="#main">${t("page.skip")}</a>` +
    `<header class="topbar"><a class="brand" href="/" aria-label="${t("page.home")}"><span class="brand-mark" aria-hidden="true">◈</span><span class="brand-name">${esc(instance)}</span></a></header>` +
    `<main id="main" tabindex="-1">${view.html}</main></div>`
  );
}
