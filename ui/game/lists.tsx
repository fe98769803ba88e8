/**
 * Bookmark lists in the web app: /lists (yours, and making one), /list/:id
 * (a list by its link: its caches, its GPX, and for its owner public/private
 * and removing caches), and the cache page's "Add to a list".
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad, useAction } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { Empty, Failed, Loading } from "../components/states.tsx";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";
import { typeLabel } from "./labels.ts";
import type { CacheList } from "../../src/game/lists.ts";
import type { Cache } from "../../src/game/caches.ts";
import type { ListBody, ListPatch } from "../../src/game/lists.ts";

const cachePath = (c: { id: number | string }) => `/cache/${encodeURIComponent(String(c.id))}`;

export function ListsPage() {
  const account = useLoad(loadAccount, []);
  const [n, setN] = useState(0);
  const lists = useLoad(() => (account.data ? api<{ lists: CacheList[] }>("/api/lists") : Promise.resolve(null)), [account.data, n]);
  const [name, setName] = useState("");
  const { run, busy, errorView } = useAction();
  if (account.loading) return <section class="page">{<Loading what={t("lists.yourAccount")} />}</section>;
  if (!account.data)
    return (
      <section class="page">
        <h1>{t("lists.title")}</h1>
        <p>
          <Rich k="lists.signIn" parts={[(s) => <a href="/account">{s}</a>]} />
        </p>
      </section>
    );
  const make = (e: Event) => {
    e.preventDefault();
    run(async () => {
      await api("/api/lists", { method: "POST", json: { name: name.trim() } satisfies ListBody });
      setName("");
      setN(n + 1);
    });
  };
  return (
    <section class="page">
      <h1>{t("lists.title")}</h1>
      <p class="muted">{t("lists.intro")}</p>
      {lists.error && <Failed error={lists.error} what={t("lists.yourLists")} />}
      {lists.data && lists.data.lists.length === 0 && <Empty>{t("lists.none")}</Empty>}
      {lists.data && lists.data.lists.length > 0 && (
        <ul data-testid="my-lists">
          {lists.data.lists.map((l) => (
            <li key={l.id}>
              <a href={`/list/${l.id}`}>{l.name}</a> · {t("lists.caches", { count: l.count })} · {l.public ? t("lists.public") : t("lists.private")}
            </li>
          ))}
        </ul>
      )}
      <form class="row" onSubmit={make}>
        <label>
          {t("lists.newList")} <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy || !name.trim()}>
          {t("lists.makeIt")}
        </button>
      </form>
      {errorView}
    </section>
  );
}

export function ListPage({ id }: { id: string }) {
  const [n, setN] = useState(0);
  const list = useLoad(() => api<CacheList & { caches: Cache[] }>(`/api/lists/${encodeURIComponent(id)}`), [id, n]);
  const account = useLoad(loadAccount, []);
  const { run, busy, errorView } = useAction();
  if (list.error)
    return (
      <section class="page">
        <h1>{t("lists.list")}</h1>
        <Failed error={list.error} what={t("lists.theList")} />
      </section>
    );
  if (!list.data)
    return (
      <section class="page">
        <Loading what={t("lists.theList")} />
      </section>
    );
  const l = list.data;
  const mine = !!account.data?.call && !!l.owner && account.data.callsigns.some((c) => c.call === l.owner);
  const change = (f: () => Promise<unknown>) => run(async () => (await f(), setN(n + 1)));
  return (
    <section class="page">
      <div class="page-head">
        <h1>{l.name}</h1>
        <span class="tag">{l.public ? t("lists.public") : t("lists.private")}</span>
      </div>
      <p class="muted">
        {t("lists.caches", { count: l.caches.length })} · {t("lists.by", { owner: l.owner ?? "?" })} · <a href={`/api/lists/${l.id}/gpx`}>GPX</a>
      </p>
      {mine && (
        <p>
          <button
            type="button"
            disabled={busy}
            onClick={() => change(() => api(`/api/lists/${l.id}`, { method: "PATCH", json: { public: !l.public } satisfies ListPatch }))}
          >
            {l.public ? t("lists.makePrivate") : t("lists.makePublic")}
          </button>
        </p>
      )}
      {errorView}
      {l.caches.length === 0 ? (
        <Empty>{t("lists.empty")}</Empty>
      ) : (
        <ul data-testid="list-caches">
          {l.caches.map((c) => (
            <li key={c.gid}>
              <a href={cachePath(c)}>{c.name}</a>{" "}
              <span class="muted">
                {c.code} · {typeLabel(c.type)} · D{c.difficulty}/T{c.terrain}
              </span>
              {mine && (
                <>
                  {" "}
                  <button
                    type="button"
                    disabled={busy}
                    aria-label={t("lists.takeOff", { name: c.name })}
                    onClick={() => change(() => api(`/api/lists/${l.id}/caches/${encodeURIComponent(c.gid)}`, { method: "DELETE" }))}
                  >
                    {t("lists.remove")}
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** On the cache page: add this cache to one of your lists. */
export function AddToList({ cache }: { cache: string | number }) {
  const lists = useLoad(() => api<{ lists: CacheList[] }>("/api/lists"), []);
  const [chosen, setChosen] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const { run, busy, errorView } = useAction();
  if (!lists.data) return null;
  if (lists.data.lists.length === 0)
    return (
      <p class="muted">
        <Rich k="lists.makeAList" parts={[(s) => <a href="/lists">{s}</a>]} />
      </p>
    );
  const add = (e: Event) => {
    e.preventDefault();
    const l = lists.data!.lists.find((x) => String(x.id) === chosen) ?? lists.data!.lists[0]!;
    run(async () => {
      await api(`/api/lists/${l.id}/caches`, { method: "POST", json: { cache: String(cache) } });
      setDone(l.name);
    });
  };
  return (
    <form class="row" onSubmit={add}>
      <label>
        {t("lists.addTo")}{" "}
        <select value={chosen} onChange={(e) => setChosen(e.currentTarget.value)}>
          {lists.data.lists.map((l) => (
            <option value={String(l.id)}>{l.name}</option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={busy}>
        {t("lists.add")}
      </button>
      {done && <span role="status"> {t("lists.added", { name: done })}</span>}
      {errorView}
    </form>
  );
}
