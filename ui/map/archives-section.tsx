/**
 * "Offline maps" on the Setup page: the map archives this gateway serves
 * (GET /api/tiles), their type, zooms and bounds, and files it skipped.
 */
import { useLoad } from "../hooks.ts";
import { tileListing, type ArchiveInfo } from "./archives.ts";
import { fmtNumber, t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

const fmt = (x: number) => fmtNumber(x, { maximumFractionDigits: 2 });
const size = (b: number) =>
  b >= 1e6
    ? fmtNumber(b / 1e6, { style: "unit", unit: "megabyte", minimumFractionDigits: 1, maximumFractionDigits: 1 })
    : fmtNumber(Math.max(1, Math.round(b / 1e3)), { style: "unit", unit: "kilobyte" });

function where(a: ArchiveInfo): string {
  const [w, s, e, n] = a.bounds;
  if (w <= -180 && e >= 180) return t("gameMapArchives.world");
  return t("gameMapArchives.bounds", { s: fmt(s), w: fmt(w), n: fmt(n), e: fmt(e) });
}

export function MapArchivesSection() {
  const list = useLoad(() => tileListing());
  return (
    <section class="map-archives" aria-labelledby="map-archives-h">
      <h2 id="map-archives-h">{t("gameMapArchives.title")}</h2>
      <p class="muted">
        <Rich k="gameMapArchives.intro" parts={[(x) => <code>{x}</code>, (x) => <code>{x}</code>]} />
      </p>
      {list.loading && <p>{t("gameMapArchives.loading")}</p>}
      {list.error && <p class="error">{list.error.message}</p>}
      {list.data && (
        <ul class="archive-list">
          {list.data.archives.map((a) => (
            <li key={a.name} data-archive={a.name}>
              <b>{a.source === "built-in" ? t("gameMapArchives.builtIn") : `${a.name}.pmtiles`}</b>
              <span>{t("gameMapArchives.details", { type: a.type, format: a.format, min: a.minZoom, max: a.maxZoom, size: size(a.bytes) })}</span>
              <span>{where(a)}</span>
            </li>
          ))}
          {list.data.skipped.map((s) => (
            <li key={s.file} class="error">
              <b>{s.file}</b>
              <span>{t("gameMapArchives.notUsed", { reason: s.reason })}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
