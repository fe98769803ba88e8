/**
 * A cache's page, in the order a geocacher on a phone reads it (issue 29
 * item 9): first a summary (facts, coordinates, D/T, size, placed and last
 * found dates, the status line, attributes), then the logs, newest first,
 * with their counts per type, then the description, hint, map (coordinates
 * copyable in decimal and degrees-minutes, a navigate link, its GPX),
 * waypoints, stages, gallery and trackables, then the player's own tools
 * (note, lists, rating, favorite, watch; for its owner edit, disable or
 * enable, archive) and the log form, which a sticky "Log" button opens from
 * anywhere on the page. Finders' callsigns link to their profiles. The
 * page composes its parts, each in ui/game/cache/ by purpose.
 */
import { useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { SmallMap } from "../components/small-map.tsx";
import { TrackablesInCache } from "../trackables/in-cache.tsx";
import { Empty, Failed, Loading } from "../components/states.tsx";
import { PersonalNote } from "../game/personal-note.tsx";
import { MaintenanceFlag, ReportCache } from "../game/maintenance.tsx";
import { EventSummary } from "../game/events.tsx";
import { Waypoints, waypointPoints } from "../game/waypoints.tsx";
import { AddToList } from "../game/lists.tsx";
import { Compass } from "../offline/compass.tsx";
import type { Cache, Log } from "../game/cache/types.ts";
import { Hint, LogForm } from "../game/cache/log-form.tsx";
import { Gallery } from "../game/cache/gallery.tsx";
import { Stages } from "../game/cache/stages.tsx";
import { Actions, Coordinates, OwnerActions } from "../game/cache/owner-tools.tsx";
import { Summary } from "../game/cache/summary.tsx";
import { CacheLogs } from "../game/cache/logs.tsx";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import "./cache-page.css";

export function CachePage({ id }: { id: string }) {
  const [n, setN] = useState(0);
  const reload = () => setN(n + 1);
  // the page may have come with both answers (src/http/first-view.ts)
  const path = `/api/caches/${encodeURIComponent(id)}`;
  const cache = useLoad(() => api<Cache>(path), [id, n], path);
  const logs = useLoad(() => api<{ logs: Log[] }>(`${path}/logs`), [id, n], `${path}/logs`);
  const account = useLoad(loadAccount, []);
  if (cache.error) {
    return cache.error instanceof ApiError && cache.error.status === 404 ? (
      <section class="page">
        <h1>{t("cache.notFound")}</h1>
        {/* offline, the service worker says the cache is not in a saved area */}
        {cache.error.code === "not_saved" ? (
          <p class="error" role="alert">
            {cache.error.message}
          </p>
        ) : (
          <Empty>{t("cache.noCache", { id })}</Empty>
        )}
      </section>
    ) : (
      <section class="page">
        <h1>{t("cache.cache")}</h1>
        <Failed error={cache.error} what={t("cache.theCache")} />
      </section>
    );
  }
  const c = cache.data;
  if (!c)
    return (
      <section class="page">
        <Loading what={t("cache.theCache")} />
      </section>
    );
  const signedIn = !!account.data;
  // until the account is known, neither the log form nor "sign in to log": a signed-in player would see the wrong one first
  const accountKnown = !account.loading;
  const native = typeof c.id === "number";
  const canLog = c.status !== "draft";
  /** The sticky "Log" button: to the log form, ready to write. */
  const openLog = () => {
    const form = document.getElementById("log-form");
    form?.scrollIntoView({ block: "center" });
    (document.getElementById("log-text") as HTMLTextAreaElement | null)?.focus({ preventScroll: true });
  };
  return (
    <section class="page cache-page">
      <div class="page-head">
        <h1>{c.name}</h1>
        <span class="tag">{t(`cacheStatus.${c.status}`, { defaultValue: c.status })}</span>
        <MaintenanceFlag open={c.needsMaintenance} />
      </div>
      <EventSummary id={c.id} event={c.event} />
      <Summary c={c} />
      <CacheLogs counts={c.logCounts} logs={logs} />
      <section class="cache-body" data-testid="cache-body">
        {c.description && <p class="description">{c.description}</p>}
        {c.hint && <Hint hint={c.hint} />}
        {c.contact && (c.contact.email || c.contact.phone || c.contact.note) && (
          <p class="muted">{t("cache.contact", { contact: [c.contact.email, c.contact.phone, c.contact.note].filter(Boolean).join(" · ") })}</p>
        )}
        {/* where the player solved it to be, when they corrected it */}
        <SmallMap
          lat={c.personal?.corrected?.lat ?? c.lat}
          lon={c.personal?.corrected?.lon ?? c.lon}
          points={waypointPoints(c.waypoints ?? [])}
          label={c.name}
          zoom={15}
        />
        <Coordinates c={c} />
        <Compass lat={c.personal?.corrected?.lat ?? c.lat} lon={c.personal?.corrected?.lon ?? c.lon} />
        <Waypoints cacheId={c.id} waypoints={c.waypoints ?? []} owner={!!c.mine} onChanged={reload} />
        {native && <Stages id={c.id as number} signedIn={signedIn} />}
        {native && <Gallery id={c.id as number} canUpload={signedIn} />}
        <TrackablesInCache cache={c.id} />
      </section>
      {signedIn && <AddToList cache={c.id} />}
      {signedIn && <PersonalNote key={String(c.id)} cacheKey={String(c.id)} personal={c.personal ?? null} onSaved={reload} />}
      {c.mine && native && <OwnerActions c={c} reload={reload} />}
      {signedIn && native && c.my && <Actions c={c} reload={reload} />}
      {signedIn && native && !c.mine && <ReportCache id={c.id as number} />}
      {!accountKnown ? null : signedIn ? (
        canLog && (
          // keyed on the user's find, so logging one sets the next default to Note
          <LogForm
            key={c.my?.found ? "found" : "open"}
            cache={{ key: String(c.id), code: c.code, name: c.name }}
            owner={!!c.mine}
            found={!!c.my?.found}
            onDone={reload}
          />
        )
      ) : (
        <p>
          <Rich k="cache.signInToLog" parts={[(s) => <a href="/account">{s}</a>]} />
        </p>
      )}
      {native && (
        <p class="muted">
          <img class="qr" src={`/embed/qr.svg?cache=${c.id}`} alt={t("cache.qr")} width={96} height={96} />
        </p>
      )}
      {canLog && accountKnown && (
        <div class="log-bar" data-testid="log-bar">
          {signedIn ? (
            <button type="button" class="primary" onClick={openLog}>
              {t("cache.log")}
            </button>
          ) : (
            <a class="button primary" href="/account">
              {t("cache.logSignIn")}
            </a>
          )}
        </div>
      )}
    </section>
  );
}
