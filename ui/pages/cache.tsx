/**
 * A cache's page, in the order a geocacher on a phone reads it (issue 29
 * item 9): first a summary (facts, coordinates, D/T, size, placed and last
 * found dates, the status line, attributes), then the logs, newest first,
 * with their counts per type, then the description, hint, map (coordinates
 * copyable in decimal and degrees-minutes, a navigate link, its GPX),
 * waypoints, stages, gallery and trackables, then the player's own tools
 * (note, lists, rating, favorite, watch; for its owner edit, disable or
 * enable, archive) and the log form, which a sticky "Log" button opens from
 * anywhere on the page. Finders' callsigns link to their profiles.
 */
import { useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { loadAccount, formatDate } from "../account/session.ts";
import { SmallMap } from "../components/small-map.tsx";
import { TrackablesInCache } from "../trackables/in-cache.tsx";
import { Empty, Failed, Loading } from "../components/states.tsx";
import { formatDdm } from "../components/units.ts";
import { SIZES, STEPS } from "./hide.tsx";
import type { Cache as GameCache } from "../../src/game/caches.ts";
import type { Personal } from "../../src/game/personal.ts";
import { PersonalNote } from "../game/personal-note.tsx";
import { MaintenanceFlag, OFFLINE_KINDS, ReportCache, useLogKinds } from "../game/maintenance.tsx";
import { EventSummary } from "../game/events.tsx";
import { Waypoints, waypointPoints } from "../game/waypoints.tsx";
import type { Waypoint } from "../../src/game/waypoints-store.ts";
import { AddToList } from "../game/lists.tsx";
import { Compass } from "../offline/compass.tsx";
import type { NoteKind } from "../offline/db.ts";
import { postLog } from "../offline/post-log.ts";
import { AttributeEditor, AttributeList } from "../game/attributes.tsx";
import { logKindLabel, sizeLabel, typeLabel } from "../game/labels.ts";
import { t } from "../i18n/i18n.ts";
import { absolute } from "../time.tsx";
import { Rich } from "../i18n/rich.tsx";
import "./cache-page.css";
import type { CacheAttribute } from "../../src/cache-attributes.ts";

/** The cache as GET /api/caches/:id answers it: the game's Cache, its contact for the owner, and the caller's own marks. */
type Cache = GameCache & {
  contact?: { email?: string; phone?: string; note?: string } | null;
  mine?: boolean;
  my?: { stars: number | null; favorite: boolean; watch: boolean; found: boolean };
  /** a signed-in player's own note and corrected coordinates */
  personal?: Personal | null;
  /** active logs per kind, and the last find (src/game/cache-summary.ts) */
  logCounts?: Record<string, number>;
  lastFoundAt?: number | null;
  /** parking, stages... (the final only for the owner and finders) */
  waypoints?: Waypoint[];
};
interface Log {
  id: number | string;
  kind: string;
  call: string | null;
  text: string | null;
  foundAt: number;
  tier: string | null;
  state: string;
  origin: string;
  corroboration: { igate: string | null; distanceM: number | null } | null;
}
interface Media {
  id: number;
  type: string;
  caption: string | null;
  url: string;
  by: string | null;
}
interface Stage {
  n: number;
  title: string;
  question?: string;
  audio?: string | null;
  unlocked: boolean;
  content?: string;
}

/** ROT13, as geocaching hints are traditionally shown. */
export const rot13 = (s: string) => s.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c <= "Z" ? 65 : 97)));

/** A find's tier in words (ui/i18n cache.tierA...), the letter when unknown. */
const tierLabel = (tier: string) => t(`cache.tier${tier.toUpperCase()}`, { defaultValue: tier });
/** A log kind in the interface's language (ui/i18n logKind.*). */
const kindLabel = logKindLabel;

function Hint({ hint }: { hint: string }) {
  const [clear, setClear] = useState(false);
  return (
    <div class="hint">
      <h2>{t("cache.hint")}</h2>
      <p data-testid="hint">{clear ? hint : rot13(hint)}</p>
      <button type="button" onClick={() => setClear(!clear)}>
        {clear ? t("logForm.encode") : t("logForm.decode")}
      </button>
    </div>
  );
}

/** `found`: the signed-in user already has a find here, so a further log is a note by default. */
function LogForm({ cache, owner, found, onDone }: { cache: { key: string; code: string; name: string }; owner: boolean; found: boolean; onDone: () => void }) {
  const [kind, setKind] = useState<string>(owner || found ? "note" : "find");
  // the kinds this user may log here now (maintenance.tsx), asked again after each log: a status change changes them
  const [sent, setSent] = useState(0);
  const kinds = useLogKinds(cache.key, owner, sent);
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [kept, setKept] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setKept(false);
    try {
      // find, DNF and note may wait offline as field notes; the owner's and reviewer's kinds are sent now or refused
      const r = OFFLINE_KINDS.includes(kind)
        ? await postLog(cache, kind as NoteKind, text)
        : (await api(`/api/caches/${encodeURIComponent(cache.key)}/logs`, { method: "POST", json: { kind, text: text || undefined } }), "sent");
      setText("");
      setSent(sent + 1);
      if (!OFFLINE_KINDS.includes(kind)) setKind("note");
      setKept(r !== "sent");
      // kept by this page: nothing answers for the logbook until the network returns
      if (r !== "kept-here") onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="card log-form" id="log-form" onSubmit={submit}>
      <h2>{t("cache.logVisit")}</h2>
      <label for="log-kind">{t("logForm.type")}</label>
      <select id="log-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
        {kinds.map((k) => (
          <option value={k}>{kindLabel(k)}</option>
        ))}
      </select>
      <label for="log-text">{t("logForm.log")}</label>
      <textarea id="log-text" rows={3} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      <p>
        <button class="primary" type="submit">
          {t("logForm.post")}
        </button>
      </p>
      {kept && (
        <p role="status" data-testid="log-kept">
          <Rich k="logForm.kept" parts={[(s) => <a href="/offline">{s}</a>]} />
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function Gallery({ id, canUpload }: { id: number; canUpload: boolean }) {
  const [n, setN] = useState(0);
  const media = useLoad(() => api<{ media: Media[] }>(`/api/caches/${id}/media`), [id, n]);
  const [error, setError] = useState<string | null>(null);
  const upload = async (e: Event) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (!f) return;
    setError(null);
    try {
      await api(`/api/caches/${id}/media?caption=${encodeURIComponent(f.name)}`, { method: "POST", body: f, headers: { "content-type": f.type } });
      setN(n + 1);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const images = (media.data?.media ?? []).filter((m) => m.type.startsWith("image/"));
  if (!images.length && !canUpload) return null;
  return (
    <section>
      <h2>{t("cache.gallery")}</h2>
      <div class="gallery">
        {images.map((m) => (
          <figure>
            <img src={m.url} alt={m.caption ?? t("cache.photo")} loading="lazy" />
            <figcaption>
              {m.caption} {m.by && <span class="muted">· {m.by}</span>}
            </figcaption>
          </figure>
        ))}
      </div>
      {canUpload && (
        <label class="check">
          {t("cache.addPhoto")} <input type="file" accept="image/jpeg,image/png,image/webp,image/gif" onChange={upload} />
        </label>
      )}
      {error && <p class="error">{error}</p>}
    </section>
  );
}

function Stages({ id, signedIn }: { id: number; signedIn: boolean }) {
  const [n, setN] = useState(0);
  const st = useLoad(() => api<{ stages: Stage[]; next: number | null }>(`/api/caches/${id}/stages`), [id, n]);
  const [answer, setAnswer] = useState("");
  const [msg, setMsg] = useState<string | null>(null);
  if (!st.data?.stages.length) return null;
  const unlock = async (e: Event, stage: number) => {
    e.preventDefault();
    setMsg(null);
    try {
      await api(`/api/caches/${id}/stages/${stage}/unlock`, { method: "POST", json: { answer } });
      setAnswer("");
      setN(n + 1);
    } catch (err) {
      setMsg(err instanceof ApiError && err.code === "wrong_answer" ? t("cache.wrongAnswer") : (err as Error).message);
    }
  };
  return (
    <section>
      <h2>{t("cache.stages")}</h2>
      <ol class="stages">
        {st.data.stages.map((s) => (
          <li data-testid={`stage-${s.n}`}>
            <b>{s.title}</b> {s.unlocked ? <span class="tag">{t("cache.unlocked")}</span> : null}
            {s.question && <p>{s.question}</p>}
            {s.audio && <audio controls src={s.audio} />}
            {s.content && <p class="stage-content">{s.content}</p>}
            {!s.unlocked && s.question && signedIn && st.data!.next === s.n && (
              <form class="inline" onSubmit={(e) => unlock(e, s.n)}>
                <input aria-label={t("cache.answerFor", { n: s.n })} value={answer} onInput={(e) => setAnswer((e.target as HTMLInputElement).value)} />
                <button type="submit">{t("cache.unlock")}</button>
              </form>
            )}
          </li>
        ))}
      </ol>
      {msg && (
        <p class="error" role="alert">
          {msg}
        </p>
      )}
    </section>
  );
}

function Actions({ c, reload }: { c: Cache; reload: () => void }) {
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
function Coordinates({ c }: { c: Cache }) {
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
function OwnerActions({ c, reload }: { c: Cache; reload: () => void }) {
  const [mode, setMode] = useState<"idle" | "edit" | "archive">("idle");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
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
  const patch = async (json: Record<string, unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await api(`/api/caches/${c.id}`, { method: "PATCH", json });
      setMode("idle");
      reload();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
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
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

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
      <section class="cache-logs" data-testid="logs-section">
        <h2>{t("cache.logs")}</h2>
        <LogCounts counts={c.logCounts ?? countKinds(logs.data?.logs ?? [])} />
        {logs.loading && !logs.data && <Loading what={t("cache.theLogs")} />}
        {logs.error && <Failed error={logs.error} what={t("cache.theLogs")} />}
        {logs.data && logs.data.logs.length === 0 && <Empty>{t("cache.noLogs")}</Empty>}
        <ul class="logs" data-testid="logs">
          {(logs.data?.logs ?? []).map((l) => (
            <li>
              <b>{kindLabel(l.kind)}</b>{" "}
              {l.call ? <a href={`/profile/${encodeURIComponent(l.call.split("-")[0]!)}`}>{l.call}</a> : <i>{t("cache.withdrawn")}</i>}{" "}
              <span class="muted">{formatDate(l.foundAt)}</span>{" "}
              {l.kind === "find" && l.tier && (
                <span class={`tier tier-${l.tier}`} title={tierLabel(l.tier)}>
                  {l.tier === "a" && l.corroboration?.igate ? t("cache.tierAVia", { igate: l.corroboration.igate }) : tierLabel(l.tier)}
                </span>
              )}
              {l.text && <p>{l.text}</p>}
            </li>
          ))}
        </ul>
      </section>
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
      {signedIn ? (
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
      {canLog && (
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

/** A day as YYYY-MM-DD in the visitor's time zone, with the full time in its tooltip. */
function Day({ at, testid }: { at: number | null | undefined; testid: string }) {
  if (!at)
    return (
      <span class="muted" data-testid={testid}>
        {t("cache.never")}
      </span>
    );
  const d = new Date(at);
  const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  return (
    <time data-testid={testid} dateTime={d.toISOString()} title={absolute(at)}>
      {day}
    </time>
  );
}

const STATUS: Record<string, string> = { active: "cache.active", disabled: "cache.disabled", archived: "cache.archived", draft: "cache.draft" };

/** The top of the page: what a player needs before walking there. */
function Summary({ c }: { c: Cache }) {
  const at = c.personal?.corrected ?? { lat: c.lat, lon: c.lon };
  return (
    <div class="card cache-summary" data-testid="cache-summary">
      <p class="muted" data-testid="cache-facts">
        {c.code} · {typeLabel(c.type)} · {sizeLabel(c.size)} · D{c.difficulty}/T{c.terrain} · {t("cache.by")}{" "}
        {c.ownerCall ? <a href={`/profile/${c.ownerCall.split("-")[0]}`}>{c.ownerCall}</a> : (c.placedBy ?? "?")} · {c.lat.toFixed(5)}, {c.lon.toFixed(5)}
        {c.mirror && (
          <>
            {" "}
            · {t("cache.from")} <span data-testid="cache-origin">{c.origin}</span> (
            <span class={c.trust === "trusted" ? "" : "warn"} data-testid="cache-trust">
              {c.trust === "trusted"
                ? t("cache.peerTrusted")
                : c.trust === "unvetted"
                  ? t("cache.peerUnvetted")
                  : t("cache.peerOther", { trust: c.trust ?? "?" })}
            </span>
            )
          </>
        )}
      </p>
      <dl class="summary-facts">
        <dt>{t("cache.coordinates")}</dt>
        <dd>
          <code data-testid="summary-coords">
            {/* latitude and longitude each kept whole: a narrow screen breaks between them */}
            {formatDdm(at.lat, at.lon)
              .split(/ (?=[EW] )/)
              .map((part, i) => (
                <span class="nowrap" key={part}>
                  {i > 0 && " "}
                  {part}
                </span>
              ))}
          </code>
          {c.personal?.corrected && <span class="muted">{t("cache.yourSolution")}</span>}
        </dd>
        <dt>{t("cache.dt")}</dt>
        <dd>
          {c.difficulty} / {c.terrain} · {sizeLabel(c.size)}
        </dd>
        <dt>{t("cache.placed")}</dt>
        <dd>
          <Day at={c.placedAt} testid="placed" />
        </dd>
        <dt>{t("cache.lastFound")}</dt>
        <dd>
          <Day at={c.lastFoundAt} testid="last-found" />
        </dd>
        <dt>{t("cache.status")}</dt>
        {/* the status line: open maintenance needs and other flags are shown here, beside the status */}
        <dd class="cache-status" data-testid="cache-status">
          {STATUS[c.status] ? t(STATUS[c.status]!) : c.status}
        </dd>
      </dl>
      <p>
        {t("cache.finds", { count: c.finds })} · {t("cache.favorites", { count: c.favorites })} ·{" "}
        {t("cache.rating", { avg: c.rating.average ?? "–", count: c.rating.count })}
      </p>
      <AttributeList attributes={c.attributes ?? []} />
    </div>
  );
}

const KIND_ORDER = ["find", "dnf", "note"];

/** Active logs per kind from a page of logs (when the cache's own counts are not at hand). */
function countKinds(logs: Log[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of logs) if (l.state === "active") out[l.kind] = (out[l.kind] ?? 0) + 1;
  return out;
}

/** "3 Found it · 1 Didn't find it · 2 Note", the usual kinds first. */
function LogCounts({ counts }: { counts: Record<string, number> }) {
  const kinds = Object.keys(counts)
    .filter((k) => counts[k]! > 0)
    .sort((a, b) => (KIND_ORDER.indexOf(a) + 1 || 99) - (KIND_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));
  if (!kinds.length) return null;
  return (
    <p class="log-counts" data-testid="log-counts">
      {kinds.map((k, i) => (
        <span key={k} data-kind={k}>
          {i > 0 && " · "}
          {counts[k]} {kindLabel(k)}
        </span>
      ))}
    </p>
  );
}
