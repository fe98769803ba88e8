/**
 * Trackables (travel bugs): the list of one's own, making one, a trackable's
 * page with its journey and moves, and its printable tag. The API is
 * docs/api.md "Trackables"; the tracking code is shown only when the
 * trackable is made, so the tag is printed then (or with the code typed in).
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad, useAction } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { Empty, Failed, Loading } from "../components/states.tsx";
import { SmallMap } from "../components/small-map.tsx";
import { formatDistance } from "../components/units.ts";
import { When } from "../time.tsx";
import type { Move, Trackable } from "../../src/game/trackables.ts";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import type { MoveBody } from "../../src/game/trackables-shapes.ts";

type Detail = Trackable & { moves: Move[] };

const cachePath = (gid: string) => `/cache/${encodeURIComponent(gid)}`;
const refPath = (ref: string) => `/trackable/${encodeURIComponent(ref)}`;
/** The code of a trackable made in this tab, kept for its tag (never sent anywhere but to this gateway). */
const codeKey = (ref: string) => `trackable-code:${ref}`;

/** A cache's name for its gid (asked once per page load), the gid until known or when not held here. */
const names = new Map<string, Promise<string>>();
function CacheName({ gid }: { gid: string }) {
  const name = useLoad(() => {
    let p = names.get(gid);
    if (!p)
      names.set(
        gid,
        (p = api<{ name: string }>(`/api/caches/${encodeURIComponent(gid)}`).then(
          (c) => c.name,
          () => gid,
        )),
      );
    return p;
  }, [gid]);
  return <a href={cachePath(gid)}>{name.data ?? gid}</a>;
}

/** A trackable's page while the trackable loads, or when it could not be loaded. */
function NotHereYet({ error, title }: { error?: Error; title?: string }) {
  return (
    <section class="page">
      {error && title && <h1>{title}</h1>}
      {error ? <Failed error={error} what={t("trackable.theTrackable")} /> : <Loading what={t("trackable.theTrackable")} />}
    </section>
  );
}

/** Where a trackable is now, in words. */
function Whereabouts({ tb }: { tb: Trackable }) {
  if (tb.missing) return <span class="warn">{t("trackable.missing")}</span>;
  const cache = tb.inCache;
  if (cache) return <Rich k="trackable.inCache" parts={[() => <CacheName gid={cache} />]} />;
  const holder = tb.holder;
  if (holder) return <Rich k="trackable.heldBy" parts={[() => <a href={`/profile/${holder.split("-")[0]}`}>{holder}</a>]} />;
  return <>{t("trackable.unknown")}</>;
}

function TrackableList({ list, empty }: { list: Trackable[]; empty: string }) {
  if (list.length === 0) return <Empty>{empty}</Empty>;
  return (
    <ul class="trackables" data-testid="trackable-list">
      {list.map((tb) => (
        <li key={tb.gid}>
          <a href={refPath(tb.ref)}>{tb.name}</a> <span class="muted">{tb.ref}</span> · <Whereabouts tb={tb} /> · {formatDistance(tb.distanceM)}
        </li>
      ))}
    </ul>
  );
}

/** /trackables: mine (owned and in hand), making one, and opening one by its ref. */
export function TrackablesPage() {
  const account = useLoad(loadAccount, []);
  const call = account.data?.call?.split("-")[0] ?? null;
  const owned = useLoad(() => (call ? api<{ trackables: Trackable[] }>(`/api/trackables?owner=${call}`) : Promise.resolve(null)), [call]);
  const held = useLoad(() => (call ? api<{ trackables: Trackable[] }>(`/api/trackables?holder=${call}`) : Promise.resolve(null)), [call]);
  const [ref, setRef] = useState("");
  return (
    <section class="page">
      <h1>{t("trackable.title")}</h1>
      <p class="muted">{t("trackable.intro")}</p>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (ref.trim()) location.assign(refPath(ref.trim().toUpperCase()));
        }}
      >
        <label>
          {t("trackable.refOnTag")} <input value={ref} onInput={(e) => setRef(e.currentTarget.value)} placeholder="SVT…" autocapitalize="characters" />
        </label>
        <button type="submit">{t("trackable.open")}</button>
      </form>
      {account.loading && <Loading what={t("trackable.yourAccount")} />}
      {!account.loading && !account.data && (
        <p>
          <Rich k="trackable.signIn" parts={[(s) => <a href="/account">{s}</a>]} />
        </p>
      )}
      {account.data && (
        <>
          <h2>{t("trackable.inHands")}</h2>
          {held.error && <Failed error={held.error} what={t("trackable.yourTrackables")} />}
          {held.data && <TrackableList list={held.data.trackables} empty={t("trackable.noneInHands")} />}
          <h2>{t("trackable.yours")}</h2>
          {owned.error && <Failed error={owned.error} what={t("trackable.yourTrackables")} />}
          {owned.data && <TrackableList list={owned.data.trackables} empty={t("trackable.noneMade")} />}
          <MakeTrackable />
        </>
      )}
    </section>
  );
}

function MakeTrackable() {
  const { run, busy, errorView } = useAction();
  const [name, setName] = useState("");
  const [goal, setGoal] = useState("");
  const [description, setDescription] = useState("");
  const make = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const made = await api<Trackable & { trackingCode: string }>("/api/trackables", {
        method: "POST",
        json: { name: name.trim(), goal: goal.trim() || null, description: description.trim() || null },
      });
      sessionStorage.setItem(codeKey(made.ref), made.trackingCode);
      location.assign(`${refPath(made.ref)}/tag`);
    });
  };
  return (
    <form class="stack" onSubmit={make} aria-labelledby="make-trackable">
      <h2 id="make-trackable">{t("trackable.make")}</h2>
      <label>
        {t("trackable.name")} <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        {t("trackable.goal")} <input maxLength={1000} value={goal} onInput={(e) => setGoal(e.currentTarget.value)} placeholder={t("trackable.goalExample")} />
      </label>
      <label>
        {t("trackable.description")} <textarea maxLength={4000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={busy || !name.trim()}>
        {t("trackable.makeIt")}
      </button>
      {errorView}
    </form>
  );
}

/** /trackable/:ref: where it is, how far it went, its journey on a map, its moves, and logging one. */
export function TrackablePage({ id: key }: { id: string }) {
  const [n, setN] = useState(0);
  const tb = useLoad(() => api<Detail>(`/api/trackables/${encodeURIComponent(key)}`), [key, n]);
  const account = useLoad(loadAccount, []);
  if (!tb.data) return <NotHereYet error={tb.error} title={t("trackable.titleRef", { ref: key })} />;
  const d = tb.data;
  const track = d.moves.filter((m) => m.lat !== null && m.lon !== null).map((m) => [m.lat!, m.lon!] as [number, number]);
  const last = track[track.length - 1];
  return (
    <section class="page trackable-page">
      <div class="page-head">
        <h1>{d.name}</h1>
        <span class="tag">{d.ref}</span>
      </div>
      <p data-testid="trackable-facts">
        <Whereabouts tb={d} /> · {t("trackable.travelled")} <span data-testid="trackable-distance">{formatDistance(d.distanceM)}</span> ·{" "}
        {t("trackable.ownedBy")} <a href={`/profile/${d.owner.split("-")[0]}`}>{d.owner}</a> · {t("trackable.from", { origin: d.origin })}
      </p>
      {d.goal && (
        <p>
          <strong>{t("trackable.goalLabel")}</strong> {d.goal}
        </p>
      )}
      {d.description && <p class="description">{d.description}</p>}
      {last && <SmallMap lat={last[0]} lon={last[1]} track={track} label={t("trackable.journey", { name: d.name })} zoom={12} />}
      {account.data ? (
        <LogMove tb={d} onDone={() => setN(n + 1)} />
      ) : (
        <p>
          <Rich k="trackable.signInToLog" parts={[(s) => <a href="/account">{s}</a>]} />
        </p>
      )}
      <h2>{t("trackable.moves")}</h2>
      {d.moves.length === 0 ? (
        <Empty>{t("trackable.noMoves")}</Empty>
      ) : (
        <ol class="logs" data-testid="moves" reversed>
          {[...d.moves].reverse().map((m) => (
            <li key={m.gid} data-kind={m.kind}>
              <Rich
                k={`trackable.moved.${m.kind}`}
                parts={[() => <a href={`/profile/${m.call.split("-")[0]}`}>{m.call}</a>, () => (m.cacheGid ? <CacheName gid={m.cacheGid} /> : null)]}
              />{" "}
              · <When at={m.at} />
              {m.tier === "a" && (
                <span class="tag" title={t("trackable.rfProvenTitle")}>
                  {" "}
                  {t("trackable.rfProven")}
                </span>
              )}
              {m.text && <p>{m.text}</p>}
            </li>
          ))}
        </ol>
      )}
      <p>
        <Rich k="trackable.printTag" parts={[(s) => <a href={`${refPath(d.ref)}/tag`}>{s}</a>]} />
      </p>
    </section>
  );
}

/** The kinds a player picks, each with what it needs. */
const CHOICES: Array<{ kind: Move["kind"]; cache: boolean; code: boolean }> = [
  { kind: "retrieve", cache: false, code: true },
  { kind: "grab", cache: false, code: true },
  { kind: "discover", cache: false, code: true },
  { kind: "drop", cache: true, code: false },
  { kind: "visit", cache: true, code: false },
  { kind: "note", cache: false, code: false },
  { kind: "missing", cache: false, code: false },
];

function LogMove({ tb, onDone }: { tb: Trackable; onDone: () => void }) {
  const fromLink = new URLSearchParams(location.search).get("code") ?? "";
  // the code came by the tag's QR code: fill it in, and keep it out of the address bar and history
  useEffect(() => {
    if (fromLink) history.replaceState(history.state, "", location.pathname);
  }, []);
  const [kind, setKind] = useState<Move["kind"]>(tb.inCache ? "retrieve" : "grab");
  const [code, setCode] = useState(fromLink);
  const [cache, setCache] = useState(tb.inCache ?? "");
  const [text, setText] = useState("");
  const { run, busy, errorView } = useAction();
  const choice = CHOICES.find((c) => c.kind === kind)!;
  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const body: MoveBody = { kind };
      if (code.trim()) body.trackingCode = code.trim();
      if (cache.trim() && (choice.cache || kind === "retrieve")) body.cacheId = cache.trim();
      if (text.trim()) body.text = text.trim();
      await api(`/api/trackables/${encodeURIComponent(tb.ref)}/moves`, { method: "POST", json: body });
      setText("");
      onDone();
    });
  };
  return (
    <form class="stack" onSubmit={submit} aria-labelledby="log-move">
      <h2 id="log-move">{t("trackable.logMove")}</h2>
      <label>
        {t("trackable.whatHappened")}{" "}
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Move["kind"])}>
          {CHOICES.map((c) => (
            <option value={c.kind}>{t(`trackable.choice.${c.kind}`)}</option>
          ))}
        </select>
      </label>
      {(choice.code || kind === "note") && (
        <label>
          {t("trackable.codeOnTag")} <input value={code} onInput={(e) => setCode(e.currentTarget.value)} autocapitalize="characters" autocomplete="off" />
        </label>
      )}
      {(choice.cache || kind === "retrieve") && (
        <label>
          {t("trackable.cacheIdOrCode")} <input value={cache} onInput={(e) => setCache(e.currentTarget.value)} required={choice.cache} />
        </label>
      )}
      <label>
        {t("trackable.note")} <textarea maxLength={4000} value={text} onInput={(e) => setText(e.currentTarget.value)} required={kind === "note"} />
      </label>
      <button type="submit" disabled={busy}>
        {t("trackable.logIt")}
      </button>
      {errorView}
    </form>
  );
}

/**
 * /trackable/:ref/tag: the printable tag. Its QR code opens the trackable's
 * page with the code filled in (the gateway's own /embed/qr.svg draws it), so
 * whoever finds the tag can log it from a phone.
 */
export function TagPage({ id: key }: { id: string }) {
  const tb = useLoad(() => api<Trackable>(`/api/trackables/${encodeURIComponent(key)}`), [key]);
  const [code, setCode] = useState(() => sessionStorage.getItem(codeKey(key.toUpperCase())) ?? "");
  const [typed, setTyped] = useState("");
  if (!tb.data) return <NotHereYet error={tb.error} />;
  const d = tb.data;
  const page = `${location.origin}${refPath(d.ref)}`;
  return (
    <section class="page">
      <p class="no-print">
        <a href={refPath(d.ref)}>← {d.name}</a>
      </p>
      {code ? (
        <>
          <p class="no-print">
            <Rich k="trackable.printHelp" parts={[(s) => <strong>{s}</strong>]} />{" "}
            <button type="button" onClick={() => print()}>
              {t("trackable.print")}
            </button>
          </p>
          <div class="trackable-tag" data-testid="tag">
            <img
              src={`/embed/qr.svg?path=${encodeURIComponent(`${refPath(d.ref)}?code=${code}`)}`}
              alt={t("trackable.qr", { page })}
              width={140}
              height={140}
            />
            <div>
              <div class="tag-name">{d.name}</div>
              <div>
                {t("trackable.ref")} <strong data-testid="tag-ref">{d.ref}</strong>
              </div>
              <div>
                {t("trackable.trackingCode")} <strong data-testid="tag-code">{code}</strong>
              </div>
              <div class="muted">{t("trackable.foundMe", { page })}</div>
              {d.goal && <div>{t("trackable.goalLine", { goal: d.goal })}</div>}
            </div>
          </div>
        </>
      ) : (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            setCode(typed.trim().toUpperCase());
          }}
        >
          <label>
            {t("trackable.codeAgain")} <input value={typed} onInput={(e) => setTyped(e.currentTarget.value)} autocapitalize="characters" />
          </label>
          <button type="submit">{t("trackable.showTag")}</button>
        </form>
      )}
    </section>
  );
}
