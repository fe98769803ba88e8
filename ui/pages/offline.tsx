/**
 * Offline: the field notes this browser keeps (pending, sent, refused), their
 * export to and import from geocache_visits.txt, and the areas and caches
 * saved for use without a network.
 */
import { useEffect, useState } from "preact/hooks";
import { formatDate } from "../account/session.ts";
import { all, cachesIn, clear, releaseRanges, remove, stationsIn, TILE_CACHE, type FieldNote, type SavedArea, type SavedCache } from "../offline/db.ts";
import { exportVisits, importVisits, sendPending } from "../offline/notes.ts";
import { formatBytes } from "../offline/save-area.tsx";
import { refreshOfflineState, useOfflineState } from "../offline/status.ts";
import { InsecureNotice, secureContext } from "../secure-context.tsx";
import { plural } from "../components/plural.ts";

const KIND: Record<string, string> = { find: "Found it", dnf: "Didn't find it", note: "Note" };
const STATE: Record<string, string> = { pending: "waiting", sent: "sent", failed: "refused" };

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
    setMsg(`${r.sent} sent${r.failed ? `, ${r.failed} refused` : ""}.`);
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
      `Imported ${r.added} ${r.added === 1 ? "visit" : "visits"}${r.known ? `, ${r.known} already here` : ""}${r.skipped ? `, ${r.skipped} ${r.skipped === 1 ? "line" : "lines"} skipped` : ""}.`,
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
    if (!confirm("Delete the saved areas, caches, stations and map tiles from this browser?")) return;
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
      <h1>Offline</h1>
      <p class="muted">
        {st.online ? "Online." : "Offline."} Logs written without a signal are kept here as field notes and sent, once each, with the time you wrote them, when
        the network returns.
      </p>
      <h2>Field notes</h2>
      {notes.length === 0 ? (
        <p class="muted">No field notes.</p>
      ) : (
        <ul class="notes" data-testid="field-notes">
          {notes.map((n) => (
            <li data-state={n.state}>
              <b>{KIND[n.kind]}</b> {n.cacheKey ? <a href={`/cache/${encodeURIComponent(n.cacheKey)}`}>{n.name || n.code}</a> : n.code}{" "}
              <span class="muted">{formatDate(n.foundAt)}</span> <span class={`tag note-${n.state}`}>{STATE[n.state]}</span>
              {n.text && <p>{n.text}</p>}
              {n.error && <p class="error">{n.error}</p>}
              {n.state !== "pending" && (
                <button type="button" class="link" onClick={() => forget(n)}>
                  Remove from this list
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <p class="row-buttons">
        <button type="button" class="primary" onClick={send} disabled={!st.online || st.pending.length === 0}>
          Send now
        </button>
        <button type="button" onClick={download} disabled={notes.length === 0}>
          Export geocache_visits.txt
        </button>
        <label class="button">
          Import geocache_visits.txt <input type="file" accept=".txt,text/plain" onChange={upload} hidden />
        </label>
      </p>
      {msg && <p role="status">{msg}</p>}
      <h2>Saved for offline</h2>
      {!secureContext() && <InsecureNotice />}
      {areas.length === 0 ? (
        secureContext() && (
          <p class="muted">
            Nothing saved yet: on the <a href="/map">map</a>, choose "Save area for offline".
          </p>
        )
      ) : (
        <>
          <ul data-testid="saved-areas">
            {areas.map((a) => (
              <li data-area={a.id}>
                {plural(a.caches, "cache")}
                {a.stations ? `, ${plural(a.stations, "station")}` : ""}
                {a.tiles ? `, ${a.tiles} tiles` : ""}
                {a.maxZoom !== undefined ? ` to zoom ${a.maxZoom}` : ""}
                {a.capped ? " (tile cap reached)" : ""} ({formatBytes(a.bytes)}), saved {formatDate(a.savedAt)} ·{" "}
                <a
                  href={`/map?lat=${(Number(a.bbox.split(",")[1]) + Number(a.bbox.split(",")[3])) / 2}&lon=${(Number(a.bbox.split(",")[0]) + Number(a.bbox.split(",")[2])) / 2}&z=13`}
                >
                  show
                </a>{" "}
                ·{" "}
                <button type="button" class="link" onClick={() => dropArea(a)}>
                  delete
                </button>
              </li>
            ))}
          </ul>
          <details>
            <summary>{saved.length} saved caches</summary>
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
              Delete saved areas
            </button>
          </p>
        </>
      )}
    </section>
  );
}
