/**
 * The browser's offline store (IndexedDB), shared by the page and the service
 * worker: saved caches (with their details and recent logs), the stations last
 * seen in a saved area (with what their pages show), saved areas, the
 * byte ranges of the gateway's map archives that the saved areas need, and
 * field notes (logs written without a signal, until the server has them).
 */
export const DB_NAME = "svc-offline";
export const TILE_CACHE = "svc-tiles";
/** Marks the map archive requests "Save area" makes: the service worker lets them through without keeping a second copy. */
export const SAVE_HEADER = "x-offline-save";

/** A cache kept for offline use: as the map lists it, its detail, and its recent logs. */
export interface SavedCache {
  /** the cache's id as the API names it (a number or a gid), as a string */
  key: string;
  code: string;
  lat: number;
  lon: number;
  summary: Record<string, unknown> & { id: number | string; name: string; code: string };
  detail: Record<string, unknown>;
  logs: unknown[];
  savedAt: number;
}

/** A station last seen in a saved area: as the map lists it, and what its page shows (detail, charts, recent packets). */
export interface SavedStation {
  call: string;
  lat: number;
  lon: number;
  summary: Record<string, unknown> & { call: string };
  detail: Record<string, unknown>;
  series: unknown;
  packets: unknown;
  savedAt: number;
}

export interface SavedArea {
  id?: number;
  /** minLon,minLat,maxLon,maxLat */
  bbox: string;
  caches: number;
  /** stations last seen there (areas saved before stations were kept have none) */
  stations?: number;
  tiles: number;
  bytes: number;
  savedAt: number;
  /** bytes of map archives stored for the area (also counted in `bytes`) */
  mapBytes?: number;
  /** the deepest zoom saved, and whether the tile cap stopped it short of the one asked for */
  maxZoom?: number;
  capped?: boolean;
}

/**
 * Bytes start..end (inclusive) of a map archive (`/tiles/<name>.pmtiles`),
 * kept for the saved areas listed in `areas`; the service worker answers a
 * range request offline from the record that holds it.
 */
export interface SavedRange {
  /** the archive's path, /tiles/<name>.pmtiles */
  url: string;
  start: number;
  end: number;
  /** the archive's whole size and ETag when saved, for Content-Range and the reader's ETag check */
  size: number;
  etag: string | null;
  data: Blob;
  /** ids of the saved areas that need these bytes; the record goes when the last one is deleted */
  areas: number[];
}

export type NoteKind = "find" | "dnf" | "note";

/**
 * Why a note waits or was refused, kept as a code that the offline page
 * words in the reader's language: the server failed (the note is sent again),
 * a sign-in is needed, the server refused it (its `error` code and its
 * message), or an imported code names no cache here.
 */
export type NoteReason =
  | { code: "serverError"; status: number }
  | { code: "signIn" }
  | { code: "refused"; status: number; error?: string; message?: string }
  | { code: "noCache" };

/** A log written in the field, kept until the server has it. */
export interface FieldNote {
  /** sent as the log's clientId: the server stores a retried note once */
  clientId: string;
  /** the cache as the API names it; null when an imported code matched no cache yet */
  cacheKey: string | null;
  code: string;
  name: string;
  kind: NoteKind;
  text: string;
  foundAt: number;
  state: "pending" | "sent" | "failed";
  reason?: NoteReason;
  /** the reason in English words, as notes kept before reasons were codes hold it (shown as it is) */
  error?: string;
  logId?: number | string;
  sentAt?: number;
}

let opening: Promise<IDBDatabase> | null = null;

export function openDb(): Promise<IDBDatabase> {
  opening ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 3);
    req.onupgradeneeded = (e) => {
      const db = req.result;
      if (e.oldVersion < 1) {
        db.createObjectStore("caches", { keyPath: "key" });
        db.createObjectStore("areas", { keyPath: "id", autoIncrement: true });
        db.createObjectStore("notes", { keyPath: "clientId" });
      }
      // keyed by archive and first byte: "the record starting at or before byte n" is one cursor step
      if (e.oldVersion < 2) db.createObjectStore("ranges", { keyPath: ["url", "start"] });
      if (e.oldVersion < 3) db.createObjectStore("stations", { keyPath: "call" });
    };
    req.onsuccess = () => {
      const db = req.result;
      // a newer page or service worker upgrades the store: let it, and open again when next asked
      db.onversionchange = () => {
        db.close();
        opening = null;
      };
      resolve(db);
    };
    req.onerror = () => {
      opening = null;
      reject(req.error);
    };
  });
  return opening;
}

const done = <T>(req: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

type Store = "caches" | "stations" | "areas" | "notes" | "ranges";

export async function all<T>(store: Store): Promise<T[]> {
  const db = await openDb();
  return done(db.transaction(store).objectStore(store).getAll()) as Promise<T[]>;
}

export async function get<T>(store: Store, key: IDBValidKey): Promise<T | undefined> {
  const db = await openDb();
  return done(db.transaction(store).objectStore(store).get(key)) as Promise<T | undefined>;
}

export async function put<T>(store: Store, value: T): Promise<void> {
  const db = await openDb();
  await done(db.transaction(store, "readwrite").objectStore(store).put(value));
}

export async function remove(store: Store, key: IDBValidKey): Promise<void> {
  const db = await openDb();
  await done(db.transaction(store, "readwrite").objectStore(store).delete(key));
}

export async function clear(store: Store): Promise<void> {
  const db = await openDb();
  await done(db.transaction(store, "readwrite").objectStore(store).clear());
}

/** The largest stored range may be a whole small archive; no record starts further back than this from a byte it holds. */
export const MAX_RANGE_BYTES = 4 * 1024 * 1024;

/**
 * The saved record of archive `url` that holds bytes start..end, or null.
 * Records of one area never overlap; records of different areas may, so a few
 * records before `start` are looked at, back to MAX_RANGE_BYTES.
 */
export async function rangeHolding(url: string, start: number, end: number): Promise<SavedRange | null> {
  const db = await openDb();
  const req = db
    .transaction("ranges")
    .objectStore("ranges")
    .openCursor(IDBKeyRange.bound([url, 0], [url, start]), "prev");
  return new Promise((resolve, reject) => {
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const c = req.result;
      if (!c) return resolve(null);
      const r = c.value as SavedRange;
      if (r.end >= end) return resolve(r);
      if (r.start < start - MAX_RANGE_BYTES) return resolve(null);
      c.continue();
    };
  });
}

/** Notes that area `id` needs the saved record holding start..end of `url` (with this ETag); false when there is none. */
export async function shareRange(url: string, start: number, end: number, etag: string | null, id: number): Promise<boolean> {
  const r = await rangeHolding(url, start, end);
  if (!r || r.etag !== etag) return false;
  if (!r.areas.includes(id)) await put("ranges", { ...r, areas: [...r.areas, id] });
  return true;
}

/**
 * Drops area `id` from every saved range; a range no other saved area needs is
 * deleted. Resolves with the bytes freed.
 */
export async function releaseRanges(id: number): Promise<number> {
  const db = await openDb();
  const tx = db.transaction("ranges", "readwrite");
  const req = tx.objectStore("ranges").openCursor();
  let freed = 0;
  req.onsuccess = () => {
    const c = req.result;
    if (!c) return;
    const r = c.value as SavedRange;
    if (r.areas.includes(id)) {
      const areas = r.areas.filter((a) => a !== id);
      if (areas.length === 0) {
        freed += r.end - r.start + 1;
        c.delete();
      } else c.update({ ...r, areas });
    }
    c.continue();
  };
  await new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error);
  });
  return freed;
}

/** Saved records of `store` inside a `minLon,minLat,maxLon,maxLat` box (west > east: across the antimeridian). */
async function inBox<T extends { lat: number; lon: number }>(store: "caches" | "stations", bbox: string): Promise<T[]> {
  const [w, s, e, n] = bbox.split(",").map(Number) as [number, number, number, number];
  const inLon = (x: number) => (w <= e ? x >= w && x <= e : x >= w || x <= e);
  return (await all<T>(store)).filter((c) => c.lat >= s && c.lat <= n && inLon(c.lon));
}
export const cachesIn = (bbox: string) => inBox<SavedCache>("caches", bbox);
export const stationsIn = (bbox: string) => inBox<SavedStation>("stations", bbox);

/** A fresh client id for a log or field note: a random UUID (crypto.randomUUID exists only in a secure context; getRandomValues everywhere). */
export function newClientId(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Tells other tabs and the service worker's pages that the stored notes changed. */
export function notesChanged(): void {
  try {
    const ch = new BroadcastChannel("svc-offline");
    ch.postMessage({ type: "notes" });
    ch.close();
  } catch {
    // no BroadcastChannel: the pages poll
  }
}
