/**
 * The cache page's "Your note": a signed-in player's own note and corrected
 * coordinates of the cache (PUT /api/caches/:id/personal), kept on this
 * instance only. With corrected coordinates the player's map, lists, GPX and
 * saved areas put the cache there.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useAction } from "../account/ui.tsx";
import { parseAxis } from "../coords.ts";
import { formatDdm } from "../components/units.ts";
import type { Personal } from "../../src/game/personal.ts";

export function PersonalNote({ cacheKey, personal, onSaved }: { cacheKey: string; personal: Personal | null; onSaved: () => void }) {
  const [note, setNote] = useState(personal?.note ?? "");
  const [lat, setLat] = useState(personal?.corrected ? String(personal.corrected.lat) : "");
  const [lon, setLon] = useState(personal?.corrected ? String(personal.corrected.lon) : "");
  const { run, busy, errorView } = useAction();
  const [saved, setSaved] = useState(false);
  const save = (e: Event) => {
    e.preventDefault();
    setSaved(false);
    run(async () => {
      let corrected: { lat: number; lon: number } | null = null;
      if (lat.trim() || lon.trim()) {
        const la = parseAxis(lat, "lat");
        const lo = parseAxis(lon, "lon");
        if (la === null || lo === null) throw new Error(`${la === null ? "Latitude" : "Longitude"}: write it as 42.50205, N 42° 30.123 or 42°30'07"N.`);
        corrected = { lat: la, lon: lo };
      }
      await api(`/api/caches/${encodeURIComponent(cacheKey)}/personal`, { method: "PUT", json: { note: note.trim() || null, corrected } });
      setSaved(true);
      onSaved();
    });
  };
  return (
    <details class="personal-note" open={!!personal} data-testid="personal-note">
      <summary>
        Your note and corrected coordinates {personal?.corrected ? `(solved: ${formatDdm(personal.corrected.lat, personal.corrected.lon)})` : ""}
      </summary>
      <form class="stack" onSubmit={save}>
        <p class="muted">
          Only you see these, and they stay on this gateway. With corrected coordinates your map, lists, GPX and saved areas put the cache there.
        </p>
        <label>
          Note <textarea maxLength={2000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        </label>
        <div class="row">
          <label>
            Corrected latitude <input value={lat} onInput={(e) => setLat(e.currentTarget.value)} placeholder="N 42° 30.123" />
          </label>
          <label>
            Corrected longitude <input value={lon} onInput={(e) => setLon(e.currentTarget.value)} placeholder="W 071° 05.456" />
          </label>
        </div>
        <p>
          <button type="submit" disabled={busy}>
            Save my note
          </button>{" "}
          {saved && <span role="status">Saved.</span>}
        </p>
        {errorView}
      </form>
    </details>
  );
}
