/**
 * Trackables (travel bugs): the list of one's own, making one, a trackable's
 * page with its journey and moves, and its printable tag. The API is
 * docs/api.md "Trackables"; the tracking code is shown only when the
 * trackable is made, so the tag is printed then (or with the code typed in).
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { useAction } from "../account/ui.tsx";
import { Empty, Failed, Loading } from "../components/states.tsx";
import { SmallMap } from "../components/small-map.tsx";
import { formatDistance } from "../components/units.ts";
import { When } from "../time.tsx";
import type { Move, Trackable } from "../../src/game/trackables.ts";

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
      {error ? <Failed error={error} what="the trackable" /> : <Loading what="the trackable" />}
    </section>
  );
}

/** Where a trackable is now, in words. */
function Whereabouts({ t }: { t: Trackable }) {
  if (t.missing) return <span class="warn">missing</span>;
  if (t.inCache)
    return (
      <>
        in cache <CacheName gid={t.inCache} />
      </>
    );
  if (t.holder)
    return (
      <>
        held by <a href={`/profile/${t.holder.split("-")[0]}`}>{t.holder}</a>
      </>
    );
  return <>whereabouts unknown</>;
}

function TrackableList({ list, empty }: { list: Trackable[]; empty: string }) {
  if (list.length === 0) return <Empty>{empty}</Empty>;
  return (
    <ul class="trackables" data-testid="trackable-list">
      {list.map((t) => (
        <li key={t.gid}>
          <a href={refPath(t.ref)}>{t.name}</a> <span class="muted">{t.ref}</span> · <Whereabouts t={t} /> · {formatDistance(t.distanceM)}
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
      <h1>Trackables</h1>
      <p class="muted">
        Travel bugs that go from cache to cache. Each move is signed by the gateway where it was logged and shared with its peers; a drop or visit beside a
        position of yours heard on the air counts as RF-proven (Tier A).
      </p>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (ref.trim()) location.assign(refPath(ref.trim().toUpperCase()));
        }}
      >
        <label>
          Ref on the tag <input value={ref} onInput={(e) => setRef(e.currentTarget.value)} placeholder="SVT…" autocapitalize="characters" />
        </label>
        <button type="submit">Open</button>
      </form>
      {account.loading && <Loading what="your account" />}
      {!account.loading && !account.data && (
        <p>
          <a href="/account">Sign in</a> to make a trackable or see yours.
        </p>
      )}
      {account.data && (
        <>
          <h2>In your hands</h2>
          {held.error && <Failed error={held.error} what="your trackables" />}
          {held.data && <TrackableList list={held.data.trackables} empty="None in your hands." />}
          <h2>Yours</h2>
          {owned.error && <Failed error={owned.error} what="your trackables" />}
          {owned.data && <TrackableList list={owned.data.trackables} empty="You have not made a trackable yet." />}
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
      const t = await api<Trackable & { trackingCode: string }>("/api/trackables", {
        method: "POST",
        json: { name: name.trim(), goal: goal.trim() || null, description: description.trim() || null },
      });
      sessionStorage.setItem(codeKey(t.ref), t.trackingCode);
      location.assign(`${refPath(t.ref)}/tag`);
    });
  };
  return (
    <form class="stack" onSubmit={make} aria-labelledby="make-trackable">
      <h2 id="make-trackable">Make a trackable</h2>
      <label>
        Name <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Goal <input maxLength={1000} value={goal} onInput={(e) => setGoal(e.currentTarget.value)} placeholder="e.g. visit every 2 m repeater" />
      </label>
      <label>
        Description <textarea maxLength={4000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={busy || !name.trim()}>
        Make it and print its tag
      </button>
      {errorView}
    </form>
  );
}

const KIND_WORDS: Record<Move["kind"], string> = {
  drop: "dropped it into",
  retrieve: "took it from",
  grab: "grabbed it",
  discover: "discovered it",
  visit: "took it to",
  note: "wrote a note",
  missing: "marked it missing",
};

/** /trackable/:ref: where it is, how far it went, its journey on a map, its moves, and logging one. */
export function TrackablePage({ id: key }: { id: string }) {
  const [n, setN] = useState(0);
  const t = useLoad(() => api<Detail>(`/api/trackables/${encodeURIComponent(key)}`), [key, n]);
  const account = useLoad(loadAccount, []);
  if (!t.data) return <NotHereYet error={t.error} title={`Trackable ${key}`} />;
  const d = t.data;
  const track = d.moves.filter((m) => m.lat !== null && m.lon !== null).map((m) => [m.lat!, m.lon!] as [number, number]);
  const last = track[track.length - 1];
  return (
    <section class="page trackable-page">
      <div class="page-head">
        <h1>{d.name}</h1>
        <span class="tag">{d.ref}</span>
      </div>
      <p data-testid="trackable-facts">
        <Whereabouts t={d} /> · travelled <span data-testid="trackable-distance">{formatDistance(d.distanceM)}</span> · owned by{" "}
        <a href={`/profile/${d.owner.split("-")[0]}`}>{d.owner}</a> · from {d.origin}
      </p>
      {d.goal && (
        <p>
          <strong>Goal:</strong> {d.goal}
        </p>
      )}
      {d.description && <p class="description">{d.description}</p>}
      {last && <SmallMap lat={last[0]} lon={last[1]} track={track} label={`${d.name}'s journey`} zoom={12} />}
      {account.data ? (
        <LogMove t={d} onDone={() => setN(n + 1)} />
      ) : (
        <p>
          <a href="/account">Sign in</a> to log a move of this trackable.
        </p>
      )}
      <h2>Moves</h2>
      {d.moves.length === 0 ? (
        <Empty>No moves yet: it is in its owner's hands.</Empty>
      ) : (
        <ol class="logs" data-testid="moves" reversed>
          {[...d.moves].reverse().map((m) => (
            <li key={m.gid} data-kind={m.kind}>
              <a href={`/profile/${m.call.split("-")[0]}`}>{m.call}</a> {KIND_WORDS[m.kind]}
              {m.cacheGid && (m.kind === "drop" || m.kind === "retrieve" || m.kind === "visit") && (
                <>
                  {" "}
                  <CacheName gid={m.cacheGid} />
                </>
              )}{" "}
              · <When at={m.at} />
              {m.tier === "a" && (
                <span class="tag" title="a position of the mover was heard on the air beside the cache">
                  {" "}
                  RF-proven
                </span>
              )}
              {m.text && <p>{m.text}</p>}
            </li>
          ))}
        </ol>
      )}
      <p>
        <a href={`${refPath(d.ref)}/tag`}>Print its tag</a> (needs the tracking code)
      </p>
    </section>
  );
}

/** The kinds a player picks, each with what it needs. */
const CHOICES: Array<{ kind: Move["kind"]; label: string; cache: boolean; code: boolean }> = [
  { kind: "retrieve", label: "Retrieve it from a cache", cache: false, code: true },
  { kind: "grab", label: "Grab it from its holder", cache: false, code: true },
  { kind: "discover", label: "Discover it (seen, not taken)", cache: false, code: true },
  { kind: "drop", label: "Drop it into a cache", cache: true, code: false },
  { kind: "visit", label: "Take it along to a cache", cache: true, code: false },
  { kind: "note", label: "Write a note", cache: false, code: false },
  { kind: "missing", label: "Mark it missing (owner)", cache: false, code: false },
];

function LogMove({ t, onDone }: { t: Trackable; onDone: () => void }) {
  const fromLink = new URLSearchParams(location.search).get("code") ?? "";
  // the code came by the tag's QR code: fill it in, and keep it out of the address bar and history
  useEffect(() => {
    if (fromLink) history.replaceState(history.state, "", location.pathname);
  }, []);
  const [kind, setKind] = useState<Move["kind"]>(t.inCache ? "retrieve" : "grab");
  const [code, setCode] = useState(fromLink);
  const [cache, setCache] = useState(t.inCache ?? "");
  const [text, setText] = useState("");
  const { run, busy, errorView } = useAction();
  const choice = CHOICES.find((c) => c.kind === kind)!;
  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const body: Record<string, unknown> = { kind };
      if (code.trim()) body.trackingCode = code.trim();
      if (cache.trim() && (choice.cache || kind === "retrieve")) body.cacheId = cache.trim();
      if (text.trim()) body.text = text.trim();
      await api(`/api/trackables/${encodeURIComponent(t.ref)}/moves`, { method: "POST", json: body });
      setText("");
      onDone();
    });
  };
  return (
    <form class="stack" onSubmit={submit} aria-labelledby="log-move">
      <h2 id="log-move">Log a move</h2>
      <label>
        What happened{" "}
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Move["kind"])}>
          {CHOICES.map((c) => (
            <option value={c.kind}>{c.label}</option>
          ))}
        </select>
      </label>
      {(choice.code || kind === "note") && (
        <label>
          Tracking code (on the tag) <input value={code} onInput={(e) => setCode(e.currentTarget.value)} autocapitalize="characters" autocomplete="off" />
        </label>
      )}
      {(choice.cache || kind === "retrieve") && (
        <label>
          Cache (its id or code) <input value={cache} onInput={(e) => setCache(e.currentTarget.value)} required={choice.cache} />
        </label>
      )}
      <label>
        Note <textarea maxLength={4000} value={text} onInput={(e) => setText(e.currentTarget.value)} required={kind === "note"} />
      </label>
      <button type="submit" disabled={busy}>
        Log it
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
  const t = useLoad(() => api<Trackable>(`/api/trackables/${encodeURIComponent(key)}`), [key]);
  const [code, setCode] = useState(() => sessionStorage.getItem(codeKey(key.toUpperCase())) ?? "");
  const [typed, setTyped] = useState("");
  if (!t.data) return <NotHereYet error={t.error} />;
  const d = t.data;
  const page = `${location.origin}${refPath(d.ref)}`;
  return (
    <section class="page">
      <p class="no-print">
        <a href={refPath(d.ref)}>← {d.name}</a>
      </p>
      {code ? (
        <>
          <p class="no-print">
            Print this tag and fix it to the trackable. <strong>Write the tracking code down too:</strong> it is not shown again.{" "}
            <button type="button" onClick={() => print()}>
              Print
            </button>
          </p>
          <div class="trackable-tag" data-testid="tag">
            <img src={`/embed/qr.svg?path=${encodeURIComponent(`${refPath(d.ref)}?code=${code}`)}`} alt={`QR code: ${page}`} width={140} height={140} />
            <div>
              <div class="tag-name">{d.name}</div>
              <div>
                Ref <strong data-testid="tag-ref">{d.ref}</strong>
              </div>
              <div>
                Tracking code <strong data-testid="tag-code">{code}</strong>
              </div>
              <div class="muted">Found me? Log me at {page}</div>
              {d.goal && <div>Goal: {d.goal}</div>}
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
            Tracking code, to print the tag again <input value={typed} onInput={(e) => setTyped(e.currentTarget.value)} autocapitalize="characters" />
          </label>
          <button type="submit">Show the tag</button>
        </form>
      )}
    </section>
  );
}
