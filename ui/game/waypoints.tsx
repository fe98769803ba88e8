/**
 * The cache page's "Waypoints": parking, stages, question, trailhead,
 * reference point and final (the final only for the owner and finders: the
 * server leaves it out for everyone else), each with its code, coordinates
 * and note; the owner adds, changes and deletes them here
 * (/api/caches/:id/waypoints). The list comes with the cache's JSON, so a
 * saved area has it offline too.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { parseAxis } from "../coords.ts";
import { formatDdm } from "../components/units.ts";
import type { Waypoint } from "../../src/game/waypoints-store.ts";
import { t } from "../i18n/i18n.ts";
import { waypointKindLabel } from "./labels.ts";
import { useAction } from "../hooks.ts";
import type { WaypointBody } from "../../src/game/waypoints.ts";

/** The kinds a waypoint may be, in the order the form offers them (their names: ui/i18n cacheWaypoint.*). */
export const WAYPOINT_KINDS = ["parking", "trailhead", "physical-stage", "virtual-stage", "question", "reference", "final"];
const kindLabel = waypointKindLabel;

interface Draft {
  kind: string;
  name: string;
  lat: string;
  lon: string;
  note: string;
}
const EMPTY: Draft = { kind: "parking", name: "", lat: "", lon: "", note: "" };

/** The owner's form: a new waypoint, or the one being changed (`editing`). */
function WaypointForm({ cacheId, editing, onDone }: { cacheId: number; editing: Waypoint | null; onDone: () => void }) {
  const [f, setF] = useState<Draft>(
    editing
      ? {
          kind: editing.kind,
          name: editing.name,
          lat: editing.lat === null ? "" : String(editing.lat),
          lon: editing.lon === null ? "" : String(editing.lon),
          note: editing.note ?? "",
        }
      : EMPTY,
  );
  const { run, busy, errorView } = useAction();
  const set = (k: keyof Draft) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const save = (e: Event) => {
    e.preventDefault();
    run(async () => {
      let at: { lat: number | null; lon: number | null } = { lat: null, lon: null };
      if (f.lat.trim() || f.lon.trim()) {
        const lat = parseAxis(f.lat, "lat");
        const lon = parseAxis(f.lon, "lon");
        if (lat === null || lon === null) throw new Error(t("cache.badAxis", { axis: lat === null ? t("cache.latitude") : t("cache.longitude") }));
        at = { lat, lon };
      }
      const json: WaypointBody = {
        kind: f.kind as WaypointBody["kind"],
        name: f.name.trim(),
        note: f.note.trim() || null,
        ...(editing || at.lat !== null ? at : {}),
      };
      if (editing) await api(`/api/caches/${cacheId}/waypoints/${editing.id}`, { method: "PATCH", json });
      else await api(`/api/caches/${cacheId}/waypoints`, { method: "POST", json });
      setF(EMPTY);
      onDone();
    });
  };
  return (
    <form class="stack waypoint-form" onSubmit={save} data-testid="waypoint-form">
      <div class="row">
        <label>
          {t("cacheWaypoint.kind")}
          <select value={f.kind} onChange={set("kind")}>
            {WAYPOINT_KINDS.map((k) => (
              <option value={k}>{kindLabel(k)}</option>
            ))}
          </select>
        </label>
        <label>
          {t("cacheWaypoint.name")} <input required maxLength={100} value={f.name} onInput={set("name")} />
        </label>
      </div>
      <div class="row">
        <label>
          {t("cache.latitude")} <input value={f.lat} onInput={set("lat")} placeholder="N 42° 30.123" />
        </label>
        <label>
          {t("cache.longitude")} <input value={f.lon} onInput={set("lon")} placeholder="W 071° 05.456" />
        </label>
      </div>
      <label>
        {t("cacheWaypoint.note")} <textarea maxLength={500} rows={2} value={f.note} onInput={set("note")} />
      </label>
      <p class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {editing ? t("cacheWaypoint.save") : t("cacheWaypoint.add")}
        </button>
        {editing && (
          <button type="button" onClick={onDone}>
            {t("cacheWaypoint.cancel")}
          </button>
        )}
      </p>
      {errorView}
    </form>
  );
}

export function Waypoints({
  cacheId,
  waypoints,
  owner,
  onChanged,
}: {
  cacheId: number | string;
  waypoints: Waypoint[];
  owner: boolean;
  onChanged: () => void;
}) {
  const [editing, setEditing] = useState<Waypoint | null>(null);
  const { run, errorView } = useAction();
  const canEdit = owner && typeof cacheId === "number";
  if (!waypoints.length && !canEdit) return null;
  const remove = (w: Waypoint) =>
    run(async () => {
      await api(`/api/caches/${cacheId}/waypoints/${w.id}`, { method: "DELETE" });
      onChanged();
    });
  return (
    <section data-testid="waypoints">
      <h2>{t("cacheWaypoint.title")}</h2>
      {waypoints.length > 0 && (
        <ul class="waypoints">
          {waypoints.map((w) => (
            <li data-testid={`waypoint-${w.kind}`}>
              <b>{kindLabel(w.kind)}</b>: {w.name} <span class="muted">{w.code}</span>
              {w.lat !== null && w.lon !== null && (
                <>
                  <br />
                  <code>{formatDdm(w.lat, w.lon)}</code>
                </>
              )}
              {w.note && <p class="muted">{w.note}</p>}
              {canEdit && (
                <span class="actions">
                  <button type="button" onClick={() => setEditing(w)}>
                    {t("cacheWaypoint.edit")}
                  </button>
                  <button type="button" class="danger" onClick={() => remove(w)}>
                    {t("cacheWaypoint.delete")}
                  </button>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {errorView}
      {canEdit && (
        <WaypointForm
          key={editing?.id ?? "new"}
          cacheId={cacheId as number}
          editing={editing}
          onDone={() => {
            setEditing(null);
            onChanged();
          }}
        />
      )}
    </section>
  );
}

/** What a small map draws for them: those with coordinates. */
export const waypointPoints = (ws: readonly Waypoint[]) =>
  ws.flatMap((w) => (w.lat === null || w.lon === null ? [] : [{ lat: w.lat, lon: w.lon, label: `${kindLabel(w.kind)}: ${w.name}` }]));
