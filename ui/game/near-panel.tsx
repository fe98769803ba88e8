/**
 * "Near me" on the map: a locate-me button (navigator.geolocation), a list of
 * the caches nearest me (or the map's centre until I am located), sorted by
 * distance with a bearing arrow and compass word, and the filter panel whose
 * filters the map's cache layer uses too (ui/game/filters.ts). A Leaflet
 * control, so the map page only adds it.
 */
import L from "leaflet";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { loadAccount } from "../account/session.ts";
import { cacheLink, type MapCache } from "./layer.ts";
import { cacheFilter, filterQuery, onCacheFilter, setCacheFilter, type CacheFilter } from "./filters.ts";
import { formatDistance } from "../components/units.ts";
import { AttributeFilter } from "./attributes.tsx";
import { t } from "../i18n/i18n.ts";
import { sizeLabel, typeLabel } from "./labels.ts";
import "./near-panel.css";

type NearCache = MapCache & { distanceM: number; bearingDeg: number };
type Origin = { lat: number; lon: number; me: boolean };

const TYPES = ["traditional", "multi", "mystery", "letterbox", "virtual", "event", "cito", "audio", "earth", "webcam", "other"];
const SIZES = ["micro", "small", "regular", "large", "other", "none"];
const RANGES = ["1-2", "2.5-3.5", "4-5"];
export const NEAR_LIST = 50;

/** A bearing as a compass word of eight, in the interface's language ("NO" in German). */
export const compass = (deg: number) => t("cacheFilter.compass").split(" ")[Math.round(deg / 45) % 8]!;

function Select(props: { label: string; name: keyof CacheFilter; options: Array<[string, string]>; f: CacheFilter }) {
  return (
    <label>
      {props.label}
      <select
        name={props.name}
        value={props.f[props.name] ?? ""}
        onChange={(e) => setCacheFilter({ ...cacheFilter(), [props.name]: (e.target as HTMLSelectElement).value || undefined })}
      >
        <option value="">{t("cacheFilter.any")}</option>
        {props.options.map(([v, label]) => (
          <option value={v} key={v}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

function Filters({ signedIn }: { signedIn: boolean }) {
  const [f, setF] = useState(cacheFilter());
  useEffect(() => onCacheFilter(() => setF(cacheFilter())), []);
  const pairs = (xs: string[], label: (x: string) => string = String) => xs.map((x) => [x, label(x)] as [string, string]);
  const n = Object.values(f).filter(Boolean).length;
  return (
    <details class="near-filters" data-testid="cache-filters">
      <summary>
        {t("cacheFilter.filters")}
        {n ? ` (${n})` : ""}
      </summary>
      <div class="near-filter-grid">
        <Select label={t("cacheFilter.type")} name="type" options={pairs(TYPES, typeLabel)} f={f} />
        <Select label={t("cacheFilter.size")} name="size" options={pairs(SIZES, sizeLabel)} f={f} />
        <Select label={t("cacheFilter.difficulty")} name="difficulty" options={pairs(RANGES)} f={f} />
        <Select label={t("cacheFilter.terrain")} name="terrain" options={pairs(RANGES)} f={f} />
        {signedIn && (
          <Select
            label={t("cacheFilter.found")}
            name="found"
            options={[
              ["0", t("cacheFilter.notByMe")],
              ["1", t("cacheFilter.byMe")],
            ]}
            f={f}
          />
        )}
        {signedIn && (
          <Select
            label={t("cacheFilter.mine")}
            name="mine"
            options={[
              ["1", t("cacheFilter.onlyMine")],
              ["0", t("cacheFilter.notMine")],
            ]}
            f={f}
          />
        )}
        <Select
          label={t("cacheFilter.disabled")}
          name="disabled"
          options={[
            ["0", t("cacheFilter.hide")],
            ["1", t("cacheFilter.only")],
          ]}
          f={f}
        />
        <Select label={t("cacheFilter.rfProven")} name="tierA" options={[["1", t("cacheFilter.withTierA")]]} f={f} />
        <Select
          label={t("cacheFilter.maintenance")}
          name="maintenance"
          options={[
            ["1", t("cacheFilter.needsMaintenance")],
            ["0", t("cacheFilter.hideFlagged")],
          ]}
          f={f}
        />
      </div>
      <AttributeFilter value={f.attr} onChange={(attr) => setCacheFilter({ ...cacheFilter(), attr })} />
      {n > 0 && (
        <button type="button" class="link" onClick={() => setCacheFilter({})}>
          {t("cacheFilter.clear")}
        </button>
      )}
    </details>
  );
}

function NearPanel({ map }: { map: L.Map }) {
  const [open, setOpen] = useState(false);
  const [origin, setOrigin] = useState<Origin | null>(null);
  const [caches, setCaches] = useState<NearCache[] | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [signedIn, setSignedIn] = useState(false);
  const [, setVersion] = useState(0);
  useEffect(() => {
    loadAccount()
      .then((a) => setSignedIn(!!a))
      .catch(() => {});
    return onCacheFilter(() => setVersion((v) => v + 1));
  }, []);
  // Until located, the list is of the map's centre, following the map.
  useEffect(() => {
    if (!open || origin?.me) return;
    const follow = () => {
      const c = map.getCenter().wrap();
      setOrigin({ lat: c.lat, lon: c.lng, me: false });
    };
    follow();
    map.on("moveend", follow);
    return () => void map.off("moveend", follow);
  }, [open, origin?.me]);
  const query = origin ? `/api/caches?near=${origin.lat.toFixed(5)},${origin.lon.toFixed(5)}&limit=${NEAR_LIST}${filterQuery()}` : null;
  useEffect(() => {
    if (!open || !query) return;
    let gone = false;
    api<{ caches: NearCache[] }>(query)
      .then((a) => !gone && setCaches(a.caches))
      .catch((e: Error) => !gone && setStatus(t("cacheFilter.cantLoad", { error: e.message })));
    return () => void (gone = true);
  }, [open, query]);
  useEffect(() => {
    if (!origin?.me) return;
    const you = L.circleMarker([origin.lat, origin.lon], { radius: 7, color: "#1565c0", fillOpacity: 0.6, interactive: false, className: "near-you" }).addTo(
      map,
    );
    return () => void you.remove();
  }, [origin?.me, origin?.lat, origin?.lon]);
  const locate = () => {
    if (!("geolocation" in navigator)) return setStatus(t("cacheFilter.noGeo"));
    setStatus(t("cacheFilter.finding"));
    navigator.geolocation.getCurrentPosition(
      (p) => {
        const { latitude: lat, longitude: lon } = p.coords;
        setStatus(null);
        setOrigin({ lat, lon, me: true });
        setOpen(true);
        map.setView([lat, lon], Math.max(map.getZoom(), 15));
      },
      (e) => setStatus(e.code === e.PERMISSION_DENIED ? t("cacheFilter.denied") : t("cacheFilter.unavailable")),
      { enableHighAccuracy: true, timeout: 15_000, maximumAge: 60_000 },
    );
  };
  return (
    <div class="near-panel">
      <div class="near-buttons">
        <button type="button" class="button near-locate" onClick={locate} title={t("cacheFilter.locateTitle")}>
          {t("cacheFilter.locate")}
        </button>
        <button type="button" class="button near-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? t("cacheFilter.closeList") : t("cacheFilter.nearbyList")}
        </button>
      </div>
      {status && (
        <p class="near-status" role="status" data-testid="near-status">
          {status}
        </p>
      )}
      {open && (
        <div class="near-list-box" data-testid="near-list">
          <Filters signedIn={signedIn} />
          <p class="near-origin muted">{origin?.me ? t("cacheFilter.nearYou") : t("cacheFilter.nearCentre")}</p>
          {caches && caches.length === 0 && <p class="muted">{t("cacheFilter.noMatch")}</p>}
          <ol class="near-list">
            {(caches ?? []).map((c) => (
              <li key={c.gid} data-name={c.name}>
                <a href={cacheLink(c)}>
                  <span class="near-name">{c.name}</span>
                  <span class="near-where">
                    <span class="near-arrow" aria-hidden="true" style={{ transform: `rotate(${c.bearingDeg}deg)` }}>
                      ↑
                    </span>
                    <span class="near-dist">{formatDistance(c.distanceM)}</span> <span class="near-dir">{compass(c.bearingDeg)}</span>
                  </span>
                </a>
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  );
}

/** Adds the near-me control to a map; returns its removal. */
export function addNearControl(map: L.Map): () => void {
  const control = new L.Control({ position: "topleft" });
  control.onAdd = () => {
    const div = L.DomUtil.create("div", "near-control");
    L.DomEvent.disableClickPropagation(div);
    L.DomEvent.disableScrollPropagation(div);
    render(<NearPanel map={map} />, div);
    return div;
  };
  control.onRemove = () => {
    const div = control.getContainer();
    if (div) render(null, div);
  };
  control.addTo(map);
  return () => void control.remove();
}
