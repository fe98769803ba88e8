/** Hide a cache: the form, with a map to pick the spot (click, or type the coordinates). */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import L from "leaflet";
import "leaflet/dist/leaflet.css";
import { api, clientConfig } from "../api.ts";
import { useAction, useLoad } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { addBaseLayer } from "../map/basemap.ts";
import { parseAxis, parseCoordPair } from "../coords.ts";
import { lastView } from "../map/view.ts";
import { AttributeEditor } from "../game/attributes.tsx";
import { defaultEvent, EventFields, EVENT_TYPES, type EventInput } from "../game/events.tsx";
import type { CacheAttribute } from "../../src/lib/cache-attributes.ts";
import { t as tr } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import { sizeLabel, typeLabel } from "../game/labels.ts";
import type { CacheBody } from "../../src/game/model.ts";

/** The pin for the spot: drawn here, so no image file can be missing. */
const PIN = L.divIcon({
  className: "hide-pin",
  html: '<svg viewBox="0 0 24 36" width="24" height="36" aria-hidden="true"><path d="M12 1C6 1 1.5 5.5 1.5 11.5 1.5 19 12 35 12 35s10.5-16 10.5-23.5C22.5 5.5 18 1 12 1z" fill="#0b6e4f" stroke="#fff" stroke-width="1.5"/><circle cx="12" cy="11.5" r="4" fill="#fff"/></svg>',
  iconSize: [24, 36],
  iconAnchor: [12, 35],
});

export const TYPES = ["traditional", "multi", "mystery", "letterbox", "virtual", "event", "cito", "audio", "earth", "webcam", "other"];
export const SIZES = ["micro", "small", "regular", "large", "other", "none"];
export const STEPS = [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5];

export function HidePage() {
  const account = useLoad(loadAccount, []);
  const { route } = useLocation();
  const el = useRef<HTMLDivElement>(null);
  const mapRef = useRef<{ map: L.Map; marker: L.Marker | null } | null>(null);
  const [f, setF] = useState({
    name: "",
    type: "traditional",
    size: "small",
    difficulty: "1.5",
    terrain: "1.5",
    lat: "",
    lon: "",
    hint: "",
    description: "",
    unlisted: false,
    email: "",
  });
  const [attributes, setAttributes] = useState<CacheAttribute[]>([]);
  const [event, setEvent] = useState<EventInput>(defaultEvent);
  const { run, setError, errorView } = useAction();
  const [locating, setLocating] = useState<string | null>(null);
  const set = (k: keyof typeof f) => (e: Event) => {
    const t = e.target as HTMLInputElement;
    setF((s) => ({ ...s, [k]: t.type === "checkbox" ? t.checked : t.value }));
  };
  // A whole pair pasted into either field fills both.
  const pasteOrSet = (k: "lat" | "lon") => (e: Event) => {
    const v = (e.target as HTMLInputElement).value;
    const pair = parseCoordPair(v);
    if (pair) setF((s) => ({ ...s, lat: pair.lat.toFixed(6), lon: pair.lon.toFixed(6) }));
    else setF((s) => ({ ...s, [k]: v }));
  };

  useEffect(() => {
    if (!el.current) return;
    // The picker opens where the hider is (when the browser already may say), else where they last looked on the map, else this instance's region.
    const last = lastView();
    const map = L.map(el.current, { worldCopyJump: true }).setView(last?.center ?? [30, 0], last?.zoom ?? 2);
    mapRef.current = { map, marker: null };
    let moved = false;
    map.on("movestart", () => (moved = true));
    // the view, readable on the element (lat,lon,zoom), as the map page's address carries it
    const note = () => el.current?.setAttribute("data-view", `${map.getCenter().lat.toFixed(4)},${map.getCenter().lng.toFixed(4)},${map.getZoom()}`);
    map.on("moveend", note);
    note();
    clientConfig().then((cfg) => {
      addBaseLayer(map, cfg.tileUrl, cfg.tileAttribution, () => {});
      if (!last && !moved && cfg.region) map.setView([cfg.region.lat, cfg.region.lon], cfg.region.zoom);
    });
    navigator.permissions
      ?.query({ name: "geolocation" })
      .then((p) => {
        if (p.state !== "granted") return;
        navigator.geolocation.getCurrentPosition((pos) => map.setView([pos.coords.latitude, pos.coords.longitude], 16));
      })
      .catch(() => {});
    map.on("click", (e: L.LeafletMouseEvent) => {
      const p = e.latlng.wrap();
      setF((s) => ({ ...s, lat: p.lat.toFixed(6), lon: p.lng.toFixed(6) }));
    });
    return () => map.remove();
  }, [account.data]);

  // The marker follows the coordinates, typed or picked.
  useEffect(() => {
    const m = mapRef.current;
    const lat = parseAxis(f.lat, "lat");
    const lon = parseAxis(f.lon, "lon");
    if (!m || lat === null || lon === null) return;
    if (m.marker) m.marker.setLatLng([lat, lon]);
    else m.marker = L.marker([lat, lon], { title: "your cache", icon: PIN }).addTo(m.map);
  }, [f.lat, f.lon]);

  if (account.loading)
    return (
      <section class="page">
        <p class="muted">{tr("state.loadingPlain")}</p>
      </section>
    );
  if (!account.data)
    return (
      <section class="page">
        <h1>{tr("hide.title")}</h1>
        <p>
          <Rich k="hide.signInFirst" parts={[(s) => <a href="/account">{s}</a>]} />
        </p>
      </section>
    );

  /** "Use my location": the browser's position into the fields (and the map there). */
  const useMyLocation = () => {
    if (!("geolocation" in navigator)) return setLocating(tr("hide.noGeo"));
    setLocating(tr("hide.asking"));
    navigator.geolocation.getCurrentPosition(
      (pos) => {
        setLocating(null);
        setF((s) => ({ ...s, lat: pos.coords.latitude.toFixed(6), lon: pos.coords.longitude.toFixed(6) }));
        mapRef.current?.map.setView([pos.coords.latitude, pos.coords.longitude], 17);
      },
      (e) => setLocating(e.code === e.PERMISSION_DENIED ? tr("hide.denied") : tr("hide.failed")),
      { enableHighAccuracy: true, timeout: 15_000 },
    );
  };
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setError(null);
    // "Save as draft" keeps it to yourself until you publish it from its page
    const draft = (e.submitter as HTMLButtonElement | null)?.value === "draft";
    const lat = parseAxis(f.lat, "lat");
    const lon = parseAxis(f.lon, "lon");
    if (lat === null || lon === null) {
      setError(tr("hide.badCoord", { axis: lat === null ? tr("hide.lat") : tr("hide.lon") }));
      return;
    }
    await run(async () => {
      const c = await api<{ id: number }>("/api/caches", {
        method: "POST",
        json: {
          name: f.name,
          // the form's selects offer the schema's values
          type: f.type as CacheBody["type"],
          size: f.size as CacheBody["size"],
          difficulty: Number(f.difficulty),
          terrain: Number(f.terrain),
          lat,
          lon,
          hint: f.hint || undefined,
          description: f.description || undefined,
          unlisted: f.unlisted,
          contact: f.email ? { email: f.email } : undefined,
          status: draft ? "draft" : undefined,
          attributes: attributes.length ? attributes : undefined,
          event: EVENT_TYPES.includes(f.type) ? event : undefined,
        } satisfies CacheBody,
      });
      route(`/cache/${c.id}`);
    });
  };
  return (
    <section class="page">
      <h1>{tr("hide.title")}</h1>
      <p class="muted">
        {tr("hide.hiddenAs", { call: account.data.call ?? tr("hide.noCall") })}{" "}
        <button type="button" onClick={useMyLocation}>
          {tr("hide.useLocation")}
        </button>
      </p>
      {locating && (
        <p class="muted" role="status" data-testid="locating">
          {locating}
        </p>
      )}
      <div ref={el} class="map picker" data-testid="picker" />
      <form onSubmit={submit} class="hide-form">
        <label for="c-name">{tr("hide.name")}</label>
        <input id="c-name" required maxLength={100} value={f.name} onInput={set("name")} />
        <div class="row">
          <span>
            <label for="c-lat">{tr("hide.lat")}</label>
            <input id="c-lat" required value={f.lat} onInput={pasteOrSet("lat")} placeholder={tr("hide.latHint")} aria-describedby="coords-help" />
          </span>
          <span>
            <label for="c-lon">{tr("hide.lon")}</label>
            <input id="c-lon" required value={f.lon} onInput={pasteOrSet("lon")} placeholder={tr("hide.lonHint")} aria-describedby="coords-help" />
          </span>
        </div>
        <p class="muted" id="coords-help">
          {tr("hide.coordsHelp")}
        </p>
        <div class="row">
          <span>
            <label for="c-type">{tr("hide.type")}</label>
            <select id="c-type" value={f.type} onChange={set("type")}>
              {TYPES.map((t) => (
                <option value={t}>{typeLabel(t)}</option>
              ))}
            </select>
          </span>
          <span>
            <label for="c-size">{tr("hide.size")}</label>
            <select id="c-size" value={f.size} onChange={set("size")}>
              {SIZES.map((t) => (
                <option value={t}>{sizeLabel(t)}</option>
              ))}
            </select>
          </span>
          <span>
            <label for="c-d">{tr("hide.difficulty")}</label>
            <select id="c-d" value={f.difficulty} onChange={set("difficulty")}>
              {STEPS.map((t) => (
                <option value={t}>{t}</option>
              ))}
            </select>
          </span>
          <span>
            <label for="c-t">{tr("hide.terrain")}</label>
            <select id="c-t" value={f.terrain} onChange={set("terrain")}>
              {STEPS.map((t) => (
                <option value={t}>{t}</option>
              ))}
            </select>
          </span>
        </div>
        {EVENT_TYPES.includes(f.type) && <EventFields value={event} onChange={setEvent} />}
        <AttributeEditor value={attributes} onChange={setAttributes} />
        <label for="c-desc">{tr("hide.description")}</label>
        <textarea id="c-desc" rows={5} value={f.description} onInput={set("description")} />
        <label for="c-hint">{tr("hide.hint")}</label>
        <input id="c-hint" value={f.hint} onInput={set("hint")} />
        <label for="c-email">{tr("hide.email")}</label>
        <input id="c-email" type="email" value={f.email} onInput={set("email")} />
        <label class="check">
          <input type="checkbox" checked={f.unlisted} onChange={set("unlisted")} /> {tr("hide.unlisted")}
        </label>
        <p>
          <button class="primary" type="submit" value="publish">
            {tr("hide.hideIt")}
          </button>{" "}
          <button type="submit" value="draft">
            {tr("hide.draft")}
          </button>
        </p>
        {errorView}
      </form>
    </section>
  );
}
