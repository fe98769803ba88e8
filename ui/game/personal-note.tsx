/**
 * The cache page's "Your note": a signed-in player's own note and corrected
 * coordinates of the cache (PUT /api/caches/:id/personal), kept on this
 * instance only. With corrected coordinates the player's map, lists, GPX and
 * saved areas put the cache there.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { parseAxis } from "../coords.ts";
import { formatDdm } from "../components/units.ts";
import type { Personal } from "../../src/game/personal.ts";
import { t } from "../i18n/i18n.ts";
import { useAction } from "../hooks.ts";
import type { PersonalBody } from "../../src/game/personal.ts";

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
        if (la === null || lo === null) throw new Error(t("cache.badAxis", { axis: la === null ? t("cache.latitude") : t("cache.longitude") }));
        corrected = { lat: la, lon: lo };
      }
      await api(`/api/caches/${encodeURIComponent(cacheKey)}/personal`, {
        method: "PUT",
        json: { note: note.trim() || null, corrected } satisfies PersonalBody,
      });
      setSaved(true);
      onSaved();
    });
  };
  return (
    <details class="personal-note" open={!!personal} data-testid="personal-note">
      <summary>
        {t("cache.noteTitle")} {personal?.corrected ? t("cache.solved", { at: formatDdm(personal.corrected.lat, personal.corrected.lon) }) : ""}
      </summary>
      <form class="stack" onSubmit={save}>
        <p class="muted">{t("cache.noteHelp")}</p>
        <label>
          {t("cache.note")} <textarea maxLength={2000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        </label>
        <div class="row">
          <label>
            {t("cache.correctedLat")} <input value={lat} onInput={(e) => setLat(e.currentTarget.value)} placeholder="N 42° 30.123" />
          </label>
          <label>
            {t("cache.correctedLon")} <input value={lon} onInput={(e) => setLon(e.currentTarget.value)} placeholder="W 071° 05.456" />
          </label>
        </div>
        <p>
          <button type="submit" disabled={busy}>
            {t("cache.saveNote")}
          </button>{" "}
          {saved && <span role="status">{t("cache.noteSaved")}</span>}
        </p>
        {errorView}
      </form>
    </details>
  );
}
