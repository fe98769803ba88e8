/**
 * The browser's offline store (IndexedDB), shared by the page and the service
 * worker: saved caches (with their details and recent logs), saved areas, and
 * field notes (logs written without a signal, until the server has them).
 */
export const DB_NAME = "svc-offline";
export const TILE_CACHE = "svc-tiles";

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

export interface SavedArea {
  id?: number;
  /** minLon,minLat,maxLon,maxLat */
  bbox: string;
  caches: number;
  tiles: number;
  bytes: number;
  savedAt: number;
}

export type NoteKind = "find" | "dnf" | "note";

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
  error?: string;
  logId?: number | string;
  sentAt?: number;
}

let opening: Promise<IDBDatabase> | null = null;

export function openDb(): Promise<IDBDatabase> {
  opening ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => {
      const db = req.result;
      db.createObjectStore("caches", { keyPath: "key" });
      db.createObjectStore("areas", { keyPath: "id", autoIncrement: true });
      db.createObjectStore("notes", { keyPath: "clientId" });
    };
    req.onsuccess = () => resolve(req.result);
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

type Store = "caches" | "areas" | "notes";

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

/** Saved caches inside a `minLon,minLat,maxLon,maxLat` box (west > east: across the antimeridian). */
export async function cachesIn(bbox: string): Promise<SavedCache[]> {
  const [w, s, e, n] = bbox.split(",").map(Number) as [number, number, number, number];
  const inLon = (x: number) => (w <= e ? x >= w && x <= e : x >= w || x <= e);
  return (await all<SavedCache>("caches")).filter((c) => c.lat >= s && c.lat <= n && inLon(c.lon));
}

/** A fresh client id for a field note. */
export const newClientId = () => crypto.randomUUID();

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
