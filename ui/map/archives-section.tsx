/**
 * "Offline maps" on the Setup page: the map archives this gateway serves
 * (GET /api/tiles), their type, zooms and bounds, and files it skipped.
 */
import { useLoad } from "../hooks.ts";
import { tileListing, type ArchiveInfo } from "./archives.ts";

const fmt = (x: number) => String(Math.round(x * 100) / 100);
const size = (b: number) => (b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(b / 1e3))} kB`);

function where(a: ArchiveInfo): string {
  const [w, s, e, n] = a.bounds;
  if (w <= -180 && e >= 180) return "whole world";
  return `${fmt(s)}°, ${fmt(w)}° to ${fmt(n)}°, ${fmt(e)}°`;
}

export function MapArchivesSection() {
  const list = useLoad(() => tileListing());
  return (
    <section class="map-archives" aria-labelledby="map-archives-h">
      <h2 id="map-archives-h">Offline maps</h2>
      <p class="muted">
        Drawn from this gateway, with no internet. Add a regional extract by putting a <code>.pmtiles</code> file in the <code>tiles</code> folder of the data
        directory (see the operating guide); it shows here and on the map at once.
      </p>
      {list.loading && <p>Loading…</p>}
      {list.error && <p class="error">{list.error.message}</p>}
      {list.data && (
        <ul class="archive-list">
          {list.data.archives.map((a) => (
            <li key={a.name} data-archive={a.name}>
              <b>{a.source === "built-in" ? "World basemap (built in)" : `${a.name}.pmtiles`}</b>
              <span>
                {a.type} ({a.format}), zoom {a.minZoom}–{a.maxZoom}, {size(a.bytes)}
              </span>
              <span>{where(a)}</span>
            </li>
          ))}
          {list.data.skipped.map((s) => (
            <li key={s.file} class="error">
              <b>{s.file}</b>
              <span>not used: {s.reason}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
