/**
 * "Save this area for offline" on the map: the caches in view with their
 * details (description, hint, attributes) and recent logs, and the stations
 * last seen there with what their pages show, go into IndexedDB,
 * and so do the bytes of the gateway's map archives the area needs (header,
 * directories and tiles: ui/offline/archive-ranges.ts), with a size estimate
 * first (the archives' part counted exactly) and a progress bar while it runs.
 */
import L from "leaflet";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, clientConfig } from "../api.ts";
import { viewBbox } from "../game/layer.ts";
import { tileListing } from "../map/archives.ts";
import { boxesOf, MAX_AREA_TILES, planArchive, stepsOf, storeArchive, type ArchivePlan } from "./archive-ranges.ts";
import { openDb, put, releaseRanges, remove, TILE_CACHE, type SavedArea, type SavedCache, type SavedStation } from "./db.ts";
import { tileUrls } from "./tiles.ts";
import { fmtNumber, t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import { InsecureNotice, secureContext } from "../secure-context.tsx";

/** How many recent logs of each cache are kept. */
const LOGS = 20;
/** At most this many caches in one area (the API's largest page). */
const MAX_CACHES = 2000;
/** At most this many stations in one area (the most recently heard). */
const MAX_STATIONS = 200;
/** How many recent packets of each station are kept. */
const PACKETS = 25;
/** Rough sizes for the estimate: a cache with its logs, a station with its page, a map tile. */
const CACHE_BYTES = 6_000;
const STATION_BYTES = 8_000;
const TILE_BYTES = 25_000;

interface Plan {
  bbox: string;
  caches: Array<{ id: number | string; code: string; name: string; lat: number; lon: number } & Record<string, unknown>>;
  stations: Array<{ call: string; lat?: number; lon?: number } & Record<string, unknown>>;
  tiles: string[];
  /** the parts of the gateway's map archives the area needs */
  archives: ArchivePlan[];
  tooMany: number | null;
}

/** A size in the reader's locale ("1.2 MB", "1,2 MB"): MB with one decimal from a million bytes, else whole kB. */
export const formatBytes = (b: number) =>
  b >= 1e6
    ? fmtNumber(b / 1e6, { style: "unit", unit: "megabyte", minimumFractionDigits: 1, maximumFractionDigits: 1 })
    : fmtNumber(Math.max(1, Math.round(b / 1e3)), { style: "unit", unit: "kilobyte" });

async function plan(map: L.Map): Promise<Plan> {
  const bbox = viewBbox(map);
  const a = await api<{ clustered: boolean; caches: Plan["caches"]; total: number }>(`/api/caches?bbox=${bbox}&limit=${MAX_CACHES}`);
  const st = await api<{ stations: Plan["stations"] }>(`/api/stations?bbox=${bbox}&limit=${MAX_STATIONS}`);
  const cfg = await clientConfig().catch(() => null);
  const b = map.getBounds();
  const tiles = cfg
    ? tileUrls(cfg.tileUrl, { west: b.getWest(), south: b.getSouth(), east: b.getEast(), north: b.getNorth() }, map.getZoom(), map.getMaxZoom())
    : [];
  // the operator's extracts first: they share the tile cap; small archives (the world basemap) are kept whole
  const listed = await tileListing().catch(() => ({ archives: [] }));
  const ordered = [...listed.archives].sort((x, y) => Number(x.source === "built-in") - Number(y.source === "built-in"));
  const archives: ArchivePlan[] = [];
  let budget = MAX_AREA_TILES;
  for (const info of ordered) {
    const ap = await planArchive(info, boxesOf(bbox), map.getZoom(), budget);
    if (!ap) continue;
    archives.push(ap);
    budget -= ap.asked;
  }
  const stations = st.stations.filter((s) => s.lat !== undefined && s.lon !== undefined);
  return { bbox, caches: a.clustered ? [] : a.caches, stations, tiles, archives, tooMany: a.clustered ? a.total : null };
}

/** What the estimate says of the map data. */
function mapText(p: Plan): string {
  const parts = p.archives.filter((a) => !a.whole && a.tiles > 0);
  const whole = p.archives.filter((a) => a.whole);
  const out: string[] = [];
  if (parts.length) {
    const tiles = parts.reduce((n, a) => n + a.tiles, 0);
    out.push(
      t("offline.mapTiles", {
        count: tiles,
        from: Math.min(...parts.map((a) => a.minZoom)),
        to: Math.max(...parts.map((a) => a.maxZoom)),
        names: parts.map((a) => archiveName(a.name)).join(", "),
      }),
    );
  }
  if (whole.length) out.push(t("offline.wholeMap", { names: whole.map((a) => archiveName(a.name)).join(", ") }));
  return out.join(t("offline.and"));
}

/** A map archive's name: the built-in ones in words (offline.archive.<name>), an operator's own as it is named. */
const archiveName = (name: string) => t(`offline.archive.${name}`, { defaultValue: name });

/** Stores a new area; resolves with its id. */
async function putArea(a: SavedArea): Promise<number> {
  const db = await openDb();
  const req = db.transaction("areas", "readwrite").objectStore("areas").add(a);
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result as number);
    req.onerror = () => reject(req.error);
  });
}

function SavePanel({ map, onClose }: { map: L.Map; onClose: () => void }) {
  const [p, setP] = useState<Plan | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [result, setResult] = useState<SavedArea | null>(null);
  useEffect(() => {
    plan(map).then(setP, (e: Error) => setError(navigator.onLine ? e.message : t("offline.needsNetwork")));
  }, []);
  const save = async () => {
    if (!p) return;
    const total = p.caches.length + p.stations.length + p.tiles.length + p.archives.reduce((n, a) => n + stepsOf(a), 0);
    let done = 0;
    let bytes = 0;
    setProgress({ done, total });
    const step = () => setProgress({ done: ++done, total });
    let id: number | null = null;
    try {
      // the area first, for its id: the map bytes it keeps name it
      await openDb();
      const draft: SavedArea = { bbox: p.bbox, caches: 0, tiles: 0, bytes: 0, savedAt: Date.now() };
      id = await putArea(draft);
      for (const c of p.caches) {
        const key = String(c.id);
        // the owner's contact fields stay on the server: a browser's saved copy outlives the session
        const { contact: _contact, ...detail } = await api<Record<string, unknown>>(`/api/caches/${encodeURIComponent(key)}`);
        const logs = await api<{ logs: unknown[] }>(`/api/caches/${encodeURIComponent(key)}/logs?limit=${LOGS}`);
        const saved: SavedCache = { key, code: c.code, lat: c.lat, lon: c.lon, summary: c, detail, logs: logs.logs, savedAt: Date.now() };
        bytes += JSON.stringify(saved).length;
        await put("caches", saved);
        step();
      }
      for (const s of p.stations) {
        const path = `/api/stations/${encodeURIComponent(s.call)}`;
        const [detail, series, packets] = await Promise.all([
          api<Record<string, unknown>>(path),
          api<unknown>(`${path}/series`),
          api<unknown>(`${path}/packets?limit=${PACKETS}`),
        ]);
        const saved: SavedStation = { call: s.call, lat: s.lat!, lon: s.lon!, summary: s, detail, series, packets, savedAt: Date.now() };
        bytes += JSON.stringify(saved).length;
        await put("stations", saved);
        step();
      }
      const cache = await caches.open(TILE_CACHE);
      for (const url of p.tiles) {
        const res = await fetch(url).catch(() => null);
        if (res?.ok) {
          const body = await res.arrayBuffer();
          bytes += body.byteLength;
          await cache.put(url, new Response(body, { headers: res.headers }));
        }
        step();
      }
      let mapBytes = 0;
      for (const ap of p.archives) {
        await storeArchive(ap, id, step);
        mapBytes += ap.bytes;
      }
      const parts = p.archives.filter((a) => !a.whole && a.tiles > 0);
      const area: SavedArea = {
        id,
        bbox: p.bbox,
        caches: p.caches.length,
        stations: p.stations.length,
        tiles: p.tiles.length + parts.reduce((n, a) => n + a.tiles, 0),
        bytes: bytes + mapBytes,
        mapBytes,
        maxZoom: parts.length ? Math.max(...parts.map((a) => a.maxZoom)) : undefined,
        capped: p.archives.some((a) => a.capped),
        savedAt: Date.now(),
      };
      await put("areas", area);
      setResult(area);
    } catch (e) {
      // nothing half-saved stays behind
      if (id !== null)
        await releaseRanges(id).then(
          () => remove("areas", id!),
          () => {},
        );
      setError((e as Error).message);
    }
  };
  const mapBytes = p ? p.archives.reduce((n, a) => n + a.bytes, 0) : 0;
  const estimate = p ? p.caches.length * CACHE_BYTES + p.stations.length * STATION_BYTES + p.tiles.length * TILE_BYTES + mapBytes : 0;
  const capped = p?.archives.some((a) => a.capped) ?? false;
  /** after an error or once saved, the one way out */
  const closeButton = (
    <p>
      <button type="button" onClick={onClose}>
        {t("offline.close")}
      </button>
    </p>
  );
  return (
    <div class="save-area card" data-testid="save-area" role="dialog" aria-label={t("offline.title")}>
      <h2>{t("offline.title")}</h2>
      {error && (
        <>
          <p class="error" role="alert">
            {error}
          </p>
          {closeButton}
        </>
      )}
      {!p && !error && <p class="muted">{t("offline.counting")}</p>}
      {p && p.tooMany !== null && <p>{t("offline.tooMany", { count: p.tooMany, max: MAX_CACHES })}</p>}
      {p && p.tooMany === null && !progress && (
        <>
          <p data-testid="save-estimate">
            {t("offline.estCaches", { count: p.caches.length })}
            {p.stations.length ? t("offline.estStations", { count: p.stations.length }) : ""}
            {p.tiles.length ? t("offline.estTiles", { count: p.tiles.length }) : ""}
            {mapText(p) ? `, ${mapText(p)}` : t("offline.drawnTiles")}
            {t("offline.about", { size: formatBytes(estimate) })}
          </p>
          {capped && (
            <p class="muted" data-testid="save-capped">
              {t("offline.capped", { count: MAX_AREA_TILES })}
            </p>
          )}
          <p>
            <button type="button" class="primary" onClick={save}>
              {t("offline.save")}
            </button>{" "}
            <button type="button" onClick={onClose}>
              {t("offline.cancel")}
            </button>
          </p>
        </>
      )}
      {progress && (
        <p>
          <progress data-testid="save-progress" max={progress.total || 1} value={progress.done} /> {progress.done} / {progress.total}
        </p>
      )}
      {result && (
        <>
          <p data-testid="save-done">
            {t("offline.savedCaches", { count: result.caches })}
            {result.stations ? t("offline.savedStations", { count: result.stations }) : ""}
            {result.tiles
              ? t("offline.savedTiles", { count: result.tiles }) + (result.maxZoom !== undefined ? t("offline.toZoom", { zoom: result.maxZoom }) : "")
              : result.mapBytes
                ? t("offline.andMap")
                : ""}{" "}
            <Rich k="offline.savedRest" vars={{ size: formatBytes(result.bytes) }} parts={[(x) => <a href="/offline">{x}</a>]} />
          </p>
          {closeButton}
        </>
      )}
    </div>
  );
}

/**
 * The "Save area" button on the map; the panel opens over the map. Not on an
 * insecure origin (no service worker to open a saved area, no Cache Storage):
 * one line there says why, with the way to HTTPS.
 */
export function addSaveAreaControl(map: L.Map): void {
  const control = new L.Control({ position: "topright" });
  control.onAdd = () => {
    const box = L.DomUtil.create("div", "save-area-control");
    L.DomEvent.disableClickPropagation(box);
    L.DomEvent.disableScrollPropagation(box);
    if (!secureContext()) {
      render(<InsecureNotice />, box);
      return box;
    }
    const b = L.DomUtil.create("button", "map-save-area", box);
    b.type = "button";
    b.textContent = t("offline.saveArea");

    const panel = L.DomUtil.create("div", "", box);
    const close = () => render(null, panel);
    b.onclick = () => {
      render(null, panel);
      render(<SavePanel map={map} onClose={close} />, panel);
    };
    return box;
  };
  control.addTo(map);
}
