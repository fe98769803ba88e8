/** A player's tools on a cache: rating, favorite and watch, the coordinates to copy or navigate to, and its owner's edit, disable and archive. */
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useAction } from "../../hooks.ts";
import { formatDdm } from "../../components/units.ts";
import { SIZES, STEPS } from "../../pages/hide.tsx";
import { AttributeEditor } from "../attributes.tsx";
import { sizeLabel } from "../labels.ts";
import { t } from "../../i18n/i18n.ts";
import type { CacheAttribute } from "../../../src/lib/cache-attributes.ts";
import type { Cache } from "./types.ts";
import type { CachePatch } from "../../../src/game/model.ts";

export function Actions({ c, reload }: { c: Cache; reload: () => void }) {
  const my = c.my!;
  const post = async (path: string, json: unknown) => {
    await api(`/api/caches/${c.id}/${path}`, { method: "POST", json });
    reload();
  };
  return (
    <div class="actions" data-testid="cache-actions">
      <button type="button" onClick={() => post("watch", { watch: !my.watch })}>
        {my.watch ? t("cache.unwatch") : t("cache.watch")}
      </button>
      {my.found && (
        <button type="button" onClick={() => post("favorite", { favorite: !my.favorite })}>
          {my.favorite ? "★" : "☆"} {t("cache.favorite")}
        </button>
      )}
      {my.found && (
        <label class="check">
          {t("cache.yourRating")}
          <select
            aria-label={t("cache.yourRatingLabel")}
            value={my.stars ?? ""}
            onChange={(e) => post("rate", { stars: Number((e.target as HTMLSelectElement).value) || null })}
          >
            <option value="">–</option>
            {[1, 2, 3, 4, 5].map((s) => (
              <option value={s}>{"★".repeat(s)}</option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}

/** Both coordinate formats with copy buttons, the navigate link and the GPX. */
export function Coordinates({ c }: { c: Cache }) {
  const [copied, setCopied] = useState<string | null>(null);
  const ddm = formatDdm(c.lat, c.lon);
  const dec = `${c.lat.toFixed(6)}, ${c.lon.toFixed(6)}`;
  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(text);
    } catch {
      setCopied(null);
      prompt(t("cache.copyPrompt"), text);
    }
  };
  const geo = `geo:${c.lat.toFixed(6)},${c.lon.toFixed(6)}?q=${c.lat.toFixed(6)},${c.lon.toFixed(6)}(${encodeURIComponent(c.name)})`;
  return (
    <div class="card" data-testid="coordinates">
      <div class="coords">
        <code data-testid="coords-ddm">{ddm}</code>
        <button type="button" aria-label={t("cache.copyDdm")} onClick={() => copy(ddm)}>
          {t("cache.copy")}
        </button>
      </div>
      <div class="coords">
        <code data-testid="coords-decimal">{dec}</code>
        <button type="button" aria-label={t("cache.copyDecimal")} onClick={() => copy(dec)}>
          {t("cache.copy")}
        </button>
      </div>
      {copied && (
        <p class="muted" role="status">
          {t("cache.copied", { text: copied })}
        </p>
      )}
      <p class="actions">
        <a class="button primary" href={geo} data-testid="navigate">
          {t("cache.navigate")}
        </a>
        <a class="button" href={`/api/caches/${encodeURIComponent(String(c.id))}/gpx`} download data-testid="gpx">
          {t("cache.downloadGpx")}
        </a>
      </p>
    </div>
  );
}

/** The owner's tools: edit the listing, disable or enable it, archive it for good (asked first). */
export function OwnerActions({ c, reload }: { c: Cache; reload: () => void }) {
  const [mode, setMode] = useState<"idle" | "edit" | "archive">("idle");
  const { run, busy, errorView } = useAction();
  const [f, setF] = useState({
    name: c.name,
    description: c.description ?? "",
    hint: c.hint ?? "",
    size: c.size as string,
    difficulty: String(c.difficulty),
    terrain: String(c.terrain),
    lat: String(c.lat),
    lon: String(c.lon),
  });
  const [attrs, setAttrs] = useState<CacheAttribute[]>(c.attributes ?? []);
  const patch = (json: CachePatch) =>
    run(async () => {
      await api(`/api/caches/${c.id}`, { method: "PATCH", json });
      setMode("idle");
      reload();
    });
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value });
  if (c.status === "archived")
    return (
      <p class="muted" data-testid="owner-actions">
        {t("cache.youArchived")}
      </p>
    );
  return (
    <div class="card" data-testid="owner-actions">
      <h2>{t("cache.yourCache")}</h2>
      <div class="actions">
        <button type="button" onClick={() => setMode(mode === "edit" ? "idle" : "edit")} aria-expanded={mode === "edit"}>
          {t("cache.edit")}
        </button>
        {c.status === "active" && (
          <button type="button" disabled={busy} onClick={() => patch({ status: "disabled" })}>
            {t("cache.disable")}
          </button>
        )}
        {(c.status === "disabled" || c.status === "draft") && (
          <button type="button" disabled={busy} onClick={() => patch({ status: "active" })}>
            {c.status === "draft" ? t("cache.publish") : t("cache.enable")}
          </button>
        )}
        <button type="button" class="danger" onClick={() => setMode("archive")}>
          {t("cache.archive")}
        </button>
      </div>
      {mode === "archive" && (
        <div class="confirm" role="alertdialog" aria-label={t("cache.archiveAsk")}>
          <p>{t("cache.archiveConfirm", { name: c.name })}</p>
          <div class="actions">
            <button type="button" class="danger" disabled={busy} onClick={() => patch({ status: "archived" })}>
              {t("cache.archiveYes")}
            </button>
            <button type="button" onClick={() => setMode("idle")}>
              {t("cache.cancel")}
            </button>
          </div>
        </div>
      )}
      {mode === "edit" && (
        <form
          class="edit-form"
          onSubmit={(e) => {
            e.preventDefault();
            // Only what changed is sent: the server says so when nothing did.
            const next: Record<string, unknown> = {
              name: f.name,
              description: f.description,
              hint: f.hint,
              size: f.size,
              difficulty: Number(f.difficulty),
              terrain: Number(f.terrain),
              lat: Number(f.lat),
              lon: Number(f.lon),
            };
            const was: Record<string, unknown> = {
              name: c.name,
              description: c.description ?? "",
              hint: c.hint ?? "",
              size: c.size,
              difficulty: c.difficulty,
              terrain: c.terrain,
              lat: c.lat,
              lon: c.lon,
            };
            const changed = Object.fromEntries(Object.entries(next).filter(([k, v]) => v !== was[k]));
            // A move names both coordinates.
            if ("lat" in changed || "lon" in changed) Object.assign(changed, { lat: next.lat, lon: next.lon });
            if (JSON.stringify(attrs) !== JSON.stringify(c.attributes ?? [])) changed.attributes = attrs;
            patch(changed);
          }}
        >
          <label for="e-name">{t("cache.name")}</label>
          <input id="e-name" required value={f.name} onInput={set("name")} />
          <label for="e-lat">{t("cache.latitude")}</label>
          <input id="e-lat" inputMode="decimal" required value={f.lat} onInput={set("lat")} />
          <label for="e-lon">{t("cache.longitude")}</label>
          <input id="e-lon" inputMode="decimal" required value={f.lon} onInput={set("lon")} />
          <label for="e-size">{t("cache.size")}</label>
          <select id="e-size" value={f.size} onChange={set("size")}>
            {SIZES.map((x) => (
              <option value={x}>{sizeLabel(x)}</option>
            ))}
          </select>
          <label for="e-d">{t("cache.difficulty")}</label>
          <select id="e-d" value={f.difficulty} onChange={set("difficulty")}>
            {STEPS.map((x) => (
              <option value={String(x)}>{x}</option>
            ))}
          </select>
          <label for="e-t">{t("cache.terrain")}</label>
          <select id="e-t" value={f.terrain} onChange={set("terrain")}>
            {STEPS.map((x) => (
              <option value={String(x)}>{x}</option>
            ))}
          </select>
          <label for="e-desc">{t("cache.description")}</label>
          <textarea id="e-desc" rows={4} value={f.description} onInput={set("description")} />
          <label for="e-hint">{t("cache.hint")}</label>
          <input id="e-hint" value={f.hint} onInput={set("hint")} />
          <AttributeEditor value={attrs} onChange={setAttrs} />
          <p class="actions">
            <button class="primary" type="submit" disabled={busy}>
              {t("cache.save")}
            </button>
            <button type="button" onClick={() => setMode("idle")}>
              {t("cache.cancel")}
            </button>
          </p>
        </form>
      )}
      {errorView}
    </div>
  );
}
