/**
 * The service worker, hand-written: it precaches the app shell (the page,
 * every script, style, icon and the manifest of this build: the list is
 * compiled in by src/http/pwa.ts) on install, so after one visit the app opens
 * with no network; it keeps map tiles under /tiles/ as they are fetched, and
 * answers the map's range requests from the bytes saved with an area; and
 * when the network is gone it answers the cache API from the areas saved for
 * offline and keeps new logs as field notes, sent later with their clientId.
 * A new version waits until the page asks it to take over (the page shows
 * "A new version is ready: reload").
 */
import { parseRange } from "../../src/lib/net/byte-range.ts";
import {
  all,
  cachesIn,
  get,
  newClientId,
  notesChanged,
  put,
  rangeHolding,
  SAVE_HEADER,
  stationsIn,
  TILE_CACHE,
  type FieldNote,
  type SavedCache,
  type SavedStation,
} from "./db.ts";
import { sendPending } from "./notes.ts";

declare const SW_VERSION: string;
declare const SW_PRECACHE: string[];
declare const SW_NOT_UI: string[];

interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(r: Promise<Response> | Response): void;
}
interface SwScope {
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void>; openWindow(url: string): Promise<unknown> };
  registration: ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } };
  addEventListener(type: string, fn: (e: never) => void): void;
  location: Location;
}
const sw = self as unknown as SwScope;

const SHELL = `svc-shell-${SW_VERSION}`;
/** Last good answers of a few GETs the app needs to start (its config, who is signed in). */
const API_CACHE = "svc-api";
// the conversation list too, so the messaging screen opens offline with what it last showed
const KEEP_API = ["/api/config", "/auth/session", "/auth/account", "/api/tiles", "/api/messages/conversations"];

sw.addEventListener("install", (e: ExtendableEvent) => {
  e.waitUntil(
    (async () => {
      await (await caches.open(SHELL)).addAll(SW_PRECACHE.map((u) => new Request(u, { cache: "reload", credentials: "same-origin" })));
      // what the app asks first (its config, who is signed in), so the first offline start has it
      const api = await caches.open(API_CACHE);
      for (const u of KEEP_API) {
        const r = await fetch(u, { credentials: "same-origin" }).catch(() => null);
        if (r?.ok) await api.put(u, r);
      }
    })(),
  );
});

sw.addEventListener("activate", (e: ExtendableEvent) => {
  e.waitUntil(
    (async () => {
      for (const k of await caches.keys()) if (k.startsWith("svc-shell-") && k !== SHELL) await caches.delete(k);
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener("message", (e: MessageEvent) => {
  if (e.data?.type === "skip-waiting") void sw.skipWaiting();
  if (e.data?.type === "version") e.ports[0]?.postMessage({ version: SW_VERSION });
});

// Web push (account notifications): show it, and open its link when clicked.
sw.addEventListener("push", (e: ExtendableEvent & { data: { json(): { title?: string; body?: string; url?: string } } | null }) => {
  const d = e.data ? e.data.json() : {};
  e.waitUntil(sw.registration.showNotification(d.title || "svc-gateway", { body: d.body || "", data: { url: d.url || "/" } }));
});
sw.addEventListener("notificationclick", (e: ExtendableEvent & { notification: Notification }) => {
  e.notification.close();
  e.waitUntil(sw.clients.openWindow((e.notification.data as { url: string }).url));
});

// Chromium's Background Sync: the browser wakes us when the network is back.
sw.addEventListener("sync", (e: ExtendableEvent & { tag: string }) => {
  if (e.tag === "field-notes") e.waitUntil(sendPending());
});

sw.addEventListener("fetch", (e: FetchEvent) => {
  const req = e.request;
  const url = new URL(req.url);
  if (url.origin !== sw.location.origin) return;
  const path = url.pathname;
  if (req.method === "GET") {
    if (req.mode === "navigate") {
      if (isAppPage(path)) e.respondWith(shellPage(req));
      return;
    }
    if (SW_PRECACHE.includes(path)) return e.respondWith(cacheFirst(req));
    // what "Save area" fetches goes to IndexedDB, not a second time into the tile cache
    if (path.startsWith("/tiles/") && req.headers.has(SAVE_HEADER)) return;
    if (path.startsWith("/tiles/")) return e.respondWith(tile(req));
    if (KEEP_API.includes(path)) return e.respondWith(networkKeeping(req));
    if (path === "/api/caches" && url.searchParams.has("bbox")) return e.respondWith(orSaved(req, () => savedInBox(url.searchParams.get("bbox")!)));
    const m = /^\/api\/caches\/([^/]+)(\/logs)?$/.exec(path);
    if (m) return e.respondWith(orSaved(req, () => savedCache(decodeURIComponent(m[1]!), !!m[2])));
    if (path === "/api/stations" && url.searchParams.has("bbox")) return e.respondWith(orSaved(req, () => savedStationsInBox(url.searchParams.get("bbox")!)));
    const s = /^\/api\/stations\/([^/]+)(\/series|\/packets)?$/.exec(path);
    // (older packets than the saved page are not kept: that asks the network)
    if (s && !url.searchParams.has("before")) return e.respondWith(orSaved(req, () => savedStation(decodeURIComponent(s[1]!), s[2] ?? "")));
    return;
  }
  if (req.method === "POST" && /^\/api\/caches\/[^/]+\/logs$/.test(path) && !req.headers.has("x-field-note")) e.respondWith(postLog(req, path));
});

/** Whether a navigation is to a page of the web app (not the API, a feed or a server page). */
function isAppPage(path: string): boolean {
  if (/\.[a-z0-9]{2,5}$/i.test(path)) return false;
  return !SW_NOT_UI.some((p) => path === p.replace(/\/$/, "") || path.startsWith(p.endsWith("/") ? p : p + "/"));
}

/** The precached page, whatever app path was asked for; the network only if it is missing. */
async function shellPage(req: Request): Promise<Response> {
  const hit = await caches.match("/", { cacheName: SHELL });
  return hit ?? fetch(req);
}

async function cacheFirst(req: Request): Promise<Response> {
  return (await caches.match(req, { cacheName: SHELL })) ?? fetch(req);
}

async function networkKeeping(req: Request): Promise<Response> {
  const cache = await caches.open(API_CACHE);
  try {
    const res = await go(req);
    if (res.ok) await cache.put(req, res.clone());
    else if (res.status === 401) await cache.delete(req);
    return res;
  } catch (e) {
    const hit = await cache.match(req);
    if (hit) return hit;
    throw e;
  }
}

/**
 * Map tiles: whatever the map fetched under /tiles/ is kept, so a view seen
 * once draws again offline. Range requests (PMTiles archives) are kept per
 * range, under a key naming the range. Offline, the bytes saved with an area
 * answer first (any range inside them), then what was kept.
 */
async function tile(req: Request): Promise<Response> {
  const cache = await caches.open(TILE_CACHE);
  const range = req.headers.get("range");
  const key = range ? `${req.url}${req.url.includes("?") ? "&" : "?"}range=${encodeURIComponent(range)}` : req.url;
  try {
    const res = await go(req);
    if (res.status === 200 || res.status === 206) {
      const body = await res.clone().arrayBuffer();
      const headers = new Headers(res.headers);
      headers.set("x-status", String(res.status));
      await cache.put(key, new Response(body, { status: 200, headers }));
    }
    return res;
  } catch (e) {
    const saved = await fromSaved(new URL(req.url).pathname, range).catch(() => null);
    if (saved) return saved;
    const hit = await cache.match(key);
    if (!hit) throw e;
    const status = Number(hit.headers.get("x-status") ?? 200);
    return status === 206 ? new Response(hit.body, { status: 206, headers: hit.headers }) : hit;
  }
}

/**
 * A range of a map archive from the bytes saved with an area, answered as the
 * gateway answers it (206 with Content-Range, 200 for the whole archive, 416
 * past its end); null when no saved area holds those bytes.
 */
async function fromSaved(path: string, range: string | null): Promise<Response | null> {
  // any saved record of the archive tells its size
  const some = await rangeHolding(path, Number.MAX_SAFE_INTEGER, 0);
  if (!some) return null;
  const size = some.size;
  const headers: Record<string, string> = { "content-type": "application/vnd.pmtiles", "accept-ranges": "bytes", "x-offline": "saved" };
  if (some.etag) headers.etag = some.etag;
  const r = parseRange(range, size);
  if (r === "unsatisfiable") return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${size}` } });
  const want = r ?? { start: 0, end: size - 1 };
  const rec = await rangeHolding(path, want.start, want.end);
  if (!rec) return null;
  if (rec.etag) headers.etag = rec.etag;
  const body = rec.data.slice(want.start - rec.start, want.end - rec.start + 1);
  headers["content-length"] = String(want.end - want.start + 1);
  if (!r) return new Response(body, { status: 200, headers });
  headers["content-range"] = `bytes ${want.start}-${want.end}/${size}`;
  return new Response(body, { status: 206, headers });
}

/** Tells the pages whether the network answers, when that changes. */
let netOk = true;
function net(ok: boolean): void {
  if (ok === netOk) return;
  netOk = ok;
  try {
    const ch = new BroadcastChannel("svc-offline");
    ch.postMessage({ type: "net", ok });
    ch.close();
  } catch {
    // the pages probe on their own
  }
}

/** fetch, noting whether the network answered. */
async function go(req: Request | string, init?: RequestInit): Promise<Response> {
  try {
    const r = await fetch(req, init);
    net(true);
    return r;
  } catch (e) {
    net(false);
    throw e;
  }
}

const json = (v: unknown, status = 200) => new Response(JSON.stringify(v), { status, headers: { "content-type": "application/json", "x-offline": "saved" } });

/** The network's answer; when there is no network, what was saved for offline (or the error). */
async function orSaved(req: Request, saved: () => Promise<Response | null>): Promise<Response> {
  try {
    return await go(req);
  } catch (e) {
    const r = await saved();
    if (r) return r;
    throw e;
  }
}

async function savedInBox(bbox: string): Promise<Response> {
  const caches = (await cachesIn(bbox)).map((c) => c.summary);
  return json({ clustered: false, caches, clusters: [], total: caches.length, offline: true });
}

/** The saved stations in a box, in the map's answer's shape (never clustered: a saved area holds at most 200). */
async function savedStationsInBox(bbox: string): Promise<Response> {
  const stations = (await stationsIn(bbox)).map((s) => s.summary);
  return json({ clustered: false, stations, clusters: [], total: stations.length, offline: true });
}

/** A saved station's page: its detail, its charts' series or its recent packets, as saved. */
async function savedStation(call: string, part: string): Promise<Response | null> {
  const s = await get<SavedStation>("stations", call.toUpperCase());
  if (!s) return part ? null : json({ error: "not_saved", message: "Offline, and this station is not in an area saved for offline use." }, 404);
  if (part === "/series") return json(s.series);
  if (part === "/packets") return json(s.packets);
  return json({ ...s.detail, offline: true, savedAt: s.savedAt });
}

async function savedCache(key: string, logs: boolean): Promise<Response | null> {
  const c = (await get<SavedCache>("caches", key)) ?? (await all<SavedCache>("caches")).find((x) => x.code === key || x.detail.gid === key);
  if (!c) return logs ? null : json({ error: "not_saved", message: "Offline, and this cache is not in an area saved for offline use." }, 404);
  if (!logs) return json({ ...c.detail, offline: true, savedAt: c.savedAt });
  // the saved logs, with this browser's field notes on the cache first
  const notes = (await all<FieldNote>("notes")).filter((n) => n.cacheKey === c.key && n.state !== "sent");
  const mine = notes.map((n) => ({
    id: n.clientId,
    kind: n.kind,
    call: "you",
    text: n.text,
    foundAt: n.foundAt,
    tier: null,
    state: "pending",
    origin: "field note",
    corroboration: null,
  }));
  return json({ logs: [...mine, ...c.logs], offline: true });
}

/**
 * A log from the cache page: sent with a clientId; when the network fails
 * it becomes a field note (202), sent when the network returns. A log whose
 * answer was lost is sent again later with the same clientId and stored once.
 */
async function postLog(req: Request, path: string): Promise<Response> {
  const text = await req.clone().text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return fetch(req);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return fetch(req);
  body.clientId ??= newClientId();
  // the time it was written, kept for a field note (online, the server's clock stamps it)
  const writtenAt = typeof body.foundAt === "number" ? body.foundAt : Date.now();
  try {
    return await go(path, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch {
    const key = decodeURIComponent(path.split("/")[3]!);
    const saved = await get<SavedCache>("caches", key);
    const note: FieldNote = {
      clientId: String(body.clientId),
      cacheKey: key,
      code: saved?.code ?? key,
      name: saved?.summary.name ?? "",
      kind: (["find", "dnf", "note"].includes(String(body.kind)) ? body.kind : "find") as FieldNote["kind"],
      text: typeof body.text === "string" ? body.text : "",
      foundAt: writtenAt,
      state: "pending",
    };
    await put("notes", note);
    notesChanged();
    try {
      await sw.registration.sync?.register("field-notes");
    } catch {
      // no Background Sync: the page sends it when it sees the network again
    }
    return json({ id: note.clientId, kind: note.kind, text: note.text, foundAt: note.foundAt, state: "pending", fieldNote: true }, 202);
  }
}
