/**
 * Offline: the field notes this browser keeps (pending, sent, refused), their
 * export to and import from geocache_visits.txt, and the areas and caches
 * saved for use without a network.
 */
import { useEffect, useState } from "preact/hooks";
import { formatDate } from "../account/session.ts";
import { errorText } from "../api.ts";
import { all, cachesIn, clear, releaseRanges, remove, stationsIn, TILE_CACHE, type FieldNote, type SavedArea, type SavedCache } from "../offline/db.ts";
import { exportVisits, importVisits, sendPending } from "../offline/notes.ts";
import { formatBytes } from "../offline/save-area.tsx";
import { refreshOfflineState, useOfflineState } from "../offline/status.ts";
import { InsecureNotice, secureContext } from "../secure-context.tsx";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

const KIND = (k: string) => t(k === "find" || k === "dnf" ? `offlinePage.${k}` : "offlinePage.note");
const STATE = (s: string) => t(`offlinePage.${s}`);

/** Why a note waits or was refused, in the reader's words; a note kept by an older version holds English words, shown as they are. */
function reasonText(n: FieldNote): string | undefined {
  const r = n.reason;
  if (!r) return n.error;
  switch (r.code) {
    case "serverError":
      return t("offlineNote.serverError", { status: r.status });
    case "signIn":
      return t("offlineNote.signIn");
    case "noCache":
      return t("offlineNote.noCache", { code: n.code });
    case "refused":
      return r.message || r.error
        ? t("offlineNote.refusedBecause", { status: r.status, reason: errorText(r.error ?? "", r.message ?? r.error ?? "") })
        : t("offlineNote.refused", { status: r.status });
    default:
      return n.error ?? String((r as { code: unknown }).code);
  }
}

export function OfflinePage() {
  const st = useOfflineState();
  const [notes, setNotes] = useState<FieldNote[]>([]);
  const [areas, setAreas] = useState<SavedArea[]>([]);
  const [saved, setSaved] = useState<SavedCache[]>([]);
  const [msg, setMsg] = useState<string | null>(null);
  const load = () => {
    all<FieldNote>("notes").then(
      (n) => setNotes(n.sort((a, b) => b.foundAt - a.foundAt)),
      () => {},
    );
    all<SavedArea>("areas").then(setAreas, () => {});
    all<SavedCache>("caches").then(
      (c) => setSaved(c.sort((a, b) => a.summary.name.localeCompare(b.summary.name))),
      () => {},
    );
  };
  // the pending list changes when notes are kept or sent, here or in another tab
  useEffect(load, [st.pending.length, st.online]);
  const send = async () => {
    setMsg(null);
    const r = await sendPending();
    setMsg(`${t("offlineNote.sent", { count: r.sent })}${r.failed ? t("offlineNote.refusedCount", { count: r.failed }) : ""}.`);
    load();
  };
  const download = () => {
    const bytes = exportVisits(notes);
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([bytes], { type: "text/plain;charset=utf-16le" }));
    a.download = "geocache_visits.txt";
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  };
  const upload = async (e: Event) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (!f) return;
    const r = await importVisits(new Uint8Array(await f.arrayBuffer()));
    setMsg(
      `${t("offlinePage.imported", { count: r.added })}${r.known ? t("offlinePage.known", { count: r.known }) : ""}${r.skipped ? t("offlinePage.skipped", { count: r.skipped }) : ""}.`,
    );
    (e.target as HTMLInputElement).value = "";
    load();
    refreshOfflineState();
    if (navigator.onLine) void sendPending().then(() => (load(), refreshOfflineState()));
  };
  const forget = async (n: FieldNote) => {
    await remove("notes", n.clientId);
    load();
    refreshOfflineState();
  };
  const dropSaved = async () => {
    if (!confirm(t("offlinePage.dropConfirm"))) return;
    await clear("caches");
    await clear("stations");
    await clear("areas");
    await clear("ranges");
    if (secureContext()) await caches.delete(TILE_CACHE).catch(() => false);
    load();
  };
  /** One area: its map bytes no other saved area needs, and its caches and stations no other saved area holds. */
  const dropArea = async (a: SavedArea) => {
    if (a.id === undefined) return;
    await releaseRanges(a.id);
    await remove("areas", a.id);
    const others = areas.filter((x) => x.id !== a.id);
    const kept = new Set<string>();
    for (const o of others) for (const c of await cachesIn(o.bbox)) kept.add(c.key);
    for (const c of await cachesIn(a.bbox)) if (!kept.has(c.key)) await remove("caches", c.key);
    const keptStations = new Set<string>();
    for (const o of others) for (const s of await stationsIn(o.bbox)) keptStations.add(s.call);
    for (const s of await stationsIn(a.bbox)) if (!keptStations.has(s.call)) await remove("stations", s.call);
    load();
  };
  return (
    <section class="page offline-page">
      <h1>{t("offlinePage.title")}</h1>
      <p class="muted">
        {st.online ? t("offlinePage.online") : t("offlinePage.offline")} {t("offlinePage.intro")}
      </p>
      <h2>{t("offlinePage.notes")}</h2>
      {notes.length === 0 ? (
        <p class="muted">{t("offlinePage.noNotes")}</p>
      ) : (
        <ul class="notes" data-testid="field-notes">
          {notes.map((n) => (
            <li data-state={n.state}>
              <b>{KIND(n.kind)}</b> {n.cacheKey ? <a href={`/cache/${encodeURIComponent(n.cacheKey)}`}>{n.name || n.code}</a> : n.code}{" "}
              <span class="muted">{formatDate(n.foundAt)}</span> <span class={`tag note-${n.state}`}>{STATE(n.state)}</span>
              {n.text && <p>{n.text}</p>}
              {(n.reason || n.error) && (
                <p class="error" data-testid="note-reason">
                  {reasonText(n)}
                </p>
              )}
              {n.state !== "pending" && (
                <button type="button" class="link" onClick={() => forget(n)}>
                  {t("offlinePage.removeNote")}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <p class="row-buttons">
        <button type="button" class="primary" onClick={send} disabled={!st.online || st.pending.length === 0}>
          {t("offlinePage.sendNow")}
        </button>
        <button type="button" onClick={download} disabled={notes.length === 0}>
          {t("offlinePage.export")}
        </button>
        <label class="button">
          {t("offlinePage.import")} <input type="file" accept=".txt,text/plain" onChange={upload} hidden />
        </label>
      </p>
      {msg && <p role="status">{msg}</p>}
      <h2>{t("offlinePage.saved")}</h2>
      {!secureContext() && <InsecureNotice />}
      {areas.length === 0 ? (
        secureContext() && (
          <p class="muted">
            <Rich k="offlinePage.nothingSaved" parts={[(s) => <a href="/map">{s}</a>]} />
          </p>
        )
      ) : (
        <>
          <ul data-testid="saved-areas">
            {areas.map((a) => (
              <li data-area={a.id}>
                {t("offlinePage.caches", { count: a.caches })}
                {a.stations ? `, ${t("offlinePage.stations", { count: a.stations })}` : ""}
                {a.tiles ? t("offlinePage.tiles", { count: a.tiles }) : ""}
                {a.maxZoom !== undefined ? t("offlinePage.toZoom", { zoom: a.maxZoom }) : ""}
                {a.capped ? t("offlinePage.capped") : ""} ({formatBytes(a.bytes)}), {t("offlinePage.savedAt", { when: formatDate(a.savedAt) })} ·{" "}
                <a
                  href={`/map?lat=${(Number(a.bbox.split(",")[1]) + Number(a.bbox.split(",")[3])) / 2}&lon=${(Number(a.bbox.split(",")[0]) + Number(a.bbox.split(",")[2])) / 2}&z=13`}
                >
                  {t("offlinePage.show")}
                </a>{" "}
                ·{" "}
                <button type="button" class="link" onClick={() => dropArea(a)}>
                  {t("offlinePage.delete")}
                </button>
              </li>
            ))}
          </ul>
          <details>
            <summary>{t("offlinePage.savedCaches", { count: saved.length })}</summary>
            <ul>
              {saved.map((c) => (
                <li>
                  <a href={`/cache/${encodeURIComponent(c.key)}`}>{c.summary.name}</a> <span class="muted">{c.code}</span>
                </li>
              ))}
            </ul>
          </details>
          <p>
            <button type="button" onClick={dropSaved}>
              {t("offlinePage.deleteAreas")}
            </button>
          </p>
        </>
      )}
    </section>
  );
}
