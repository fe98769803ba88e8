/**
 * The BBS in the web app: mailbox (received and sent), compose and reply,
 * bulletin boards by category, a message with its thread, White Pages search.
 */
import { useState } from "preact/hooks";
import { LoadState } from "../components/states.tsx";
import { When } from "../time.tsx";
import { useLocation, useRoute } from "preact-iso";
import { api, type ApiError } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
/** A message as the API shows it: the server's own type. */
import type { Message as BbsMessage } from "../../src/bbs/messages.ts";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

interface WpEntry {
  call: string;
  homeBbs: string;
  zip: string | null;
  name: string | null;
  qth: string | null;
  source: string;
  infoAt: number;
}

const TYPE_NAMES: Record<string, string> = { P: "bbs.personal", B: "bbs.bulletin", T: "bbs.nts" };
const accountLink = (s: string) => <a href="/account">{s}</a>;

function Tabs({ current }: { current: string }) {
  const tabs = [
    ["/bbs", t("bbs.mailbox")],
    ["/bbs/bulletins", t("bbs.bulletins")],
    ["/bbs/compose", t("bbs.write")],
    ["/bbs/wp", t("bbs.whitePages")],
  ];
  return (
    <nav class="tabs" aria-label="BBS">
      {tabs.map(([href, label]) => (
        <a href={href} aria-current={current === href ? "page" : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
}

function MessageList({ messages, show }: { messages: BbsMessage[]; show: "from" | "to" }) {
  if (messages.length === 0) return <p class="muted">{t("bbs.noMessages")}</p>;
  return (
    <table class="table" data-testid="messages">
      <thead>
        <tr>
          <th>{show === "from" ? t("bbs.from") : t("bbs.to")}</th>
          <th>{t("bbs.subject")}</th>
          <th>{t("bbs.date")}</th>
          <th>{t("bbs.size")}</th>
        </tr>
      </thead>
      <tbody>
        {messages.map((m) => (
          <tr class={m.read || m.type === "B" ? "" : "unread"}>
            <td>{show === "from" ? m.from : m.address}</td>
            <td>
              <a href={`/bbs/msg/${m.id}`}>{m.subject}</a>
              {!m.read && m.type !== "B" && show === "from" ? <span class="tag">{t("bbs.new")}</span> : null}
            </td>
            <td>
              <When at={m.createdAt} />
            </td>
            <td>{m.size}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function MailboxPage() {
  const account = useLoad(loadAccount, []);
  const [view, setView] = useState<"in" | "sent">("in");
  const list = useLoad(
    () => (account.data ? api<{ messages: BbsMessage[]; calls: string[] }>(view === "in" ? "/api/bbs/messages" : "/api/bbs/sent") : Promise.resolve(null)),
    [account.data, view],
  );
  return (
    <section class="page">
      <h1>BBS</h1>
      <Tabs current="/bbs" />
      {account.loading ? (
        <p class="muted">{t("state.loadingPlain")}</p>
      ) : !account.data ? (
        <p>
          <Rich k="bbs.signInToRead" parts={[accountLink]} />
        </p>
      ) : !account.data.verified ? (
        <p class="notice">
          <Rich k="bbs.verifyToRead" parts={[accountLink]} />
        </p>
      ) : (
        <>
          <p>
            <button type="button" class={view === "in" ? "primary" : ""} onClick={() => setView("in")}>
              {t("bbs.received")}
            </button>{" "}
            <button type="button" class={view === "sent" ? "primary" : ""} onClick={() => setView("sent")}>
              {t("bbs.sent")}
            </button>{" "}
            <a class="button" href="/bbs/compose">
              {t("bbs.writeMessage")}
            </a>
          </p>
          {list.data ? <MessageList messages={list.data.messages} show={view === "in" ? "from" : "to"} /> : <LoadState state={list} what={t("bbs.yourMail")} />}
        </>
      )}
    </section>
  );
}

export function BulletinsPage() {
  const { query } = useLocation();
  const category = query.category ?? "";
  const cats = useLoad(() => api<{ categories: Array<{ category: string; count: number }> }>("/api/bbs/categories"), []);
  const list = useLoad(() => api<{ messages: BbsMessage[] }>(`/api/bbs/bulletins${category ? `?category=${encodeURIComponent(category)}` : ""}`), [category]);
  return (
    <section class="page">
      <h1>BBS</h1>
      <Tabs current="/bbs/bulletins" />
      <p class="categories" data-testid="categories">
        <a href="/bbs/bulletins" class={category ? "tag" : "tag current"}>
          {t("bbs.all")}
        </a>
        {cats.data?.categories.map((c) => (
          <a href={`/bbs/bulletins?category=${c.category}`} class={c.category === category ? "tag current" : "tag"}>
            {c.category} ({c.count})
          </a>
        ))}
      </p>
      <h2>{category ? t("bbs.bulletinsIn", { category }) : t("bbs.allBulletins")}</h2>
      {list.data ? <MessageList messages={list.data.messages} show="from" /> : <LoadState state={list} what={t("bbs.theBulletins")} />}
    </section>
  );
}

export function MessagePage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const id = Number(params.id);
  const [reload, setReload] = useState(0);
  const [error, setError] = useState<string | null>(null);
  // a bulletin's page may have come with this answer (src/http/first-view.ts)
  const thread = useLoad(() => api<{ messages: BbsMessage[] }>(`/api/bbs/thread/${id}`), [id, reload], `/api/bbs/thread/${id}`);
  const account = useLoad(loadAccount, []);
  const signedIn = !!account.data;
  if (thread.error) {
    const e = thread.error as ApiError;
    return (
      <section class="page">
        <h1>{t("bbs.message")}</h1>
        <Tabs current="" />
        <p class="error">{e.status === 401 ? t("bbs.personalMail") : e.message}</p>
      </section>
    );
  }
  if (!thread.data)
    return (
      <section class="page">
        <p class="muted">{t("state.loadingPlain")}</p>
      </section>
    );
  const kill = async (m: BbsMessage) => {
    if (!confirm(t("bbs.killConfirm", { subject: m.subject, from: m.from }))) return;
    setError(null);
    try {
      await api(`/api/bbs/messages/${m.id}`, { method: "DELETE" });
      if (m.id === id) route(m.type === "B" ? "/bbs/bulletins" : "/bbs");
      else setReload((n) => n + 1);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const unread = async (m: BbsMessage) => {
    setError(null);
    try {
      await api(`/api/bbs/messages/${m.id}/read`, { method: "POST", json: { read: false } });
      route("/bbs");
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const messages = thread.data.messages;
  return (
    <section class="page">
      <h1>{messages.find((m) => m.id === id)?.subject ?? t("bbs.message")}</h1>
      <Tabs current="" />
      {messages.length > 1 ? <p class="muted">{t("bbs.thread", { count: messages.length })}</p> : null}
      {error ? <p class="error">{error}</p> : null}
      {messages.map((m) => (
        <article class={m.id === id ? "card message current" : "card message"} data-testid={`message-${m.id}`}>
          <header>
            <strong>{m.subject}</strong>
            <div class="muted">
              {t("bbs.header", { kind: t(TYPE_NAMES[m.type] ?? m.type), from: m.from, to: m.address })} · <When at={m.createdAt} /> · {m.bid}
              {m.receivedFrom ? t("bbs.via", { from: m.receivedFrom }) : ""}
            </div>
          </header>
          <pre class="message-body">{m.body}</pre>
          {m.route && m.route.length ? (
            <details>
              <summary>{t("bbs.routing", { count: m.route.length })}</summary>
              <pre>{m.route.join("\n")}</pre>
            </details>
          ) : null}
          {m.forwarding && m.forwarding.length ? (
            <p class="muted">{t("bbs.forwarding", { list: m.forwarding.map((f) => `${f.partner} ${f.state}`).join(", ") })}</p>
          ) : null}
          <p class="actions">
            {m.type === "B" ? (
              <>
                {/* FBB's SR habit: a bulletin's reply goes to its author in private; the whole distribution is a separate choice */}
                <a class="button" href={`/bbs/compose?re=${m.id}`}>
                  {t("bbs.replyTo", { call: m.from })}
                </a>{" "}
                <a class="button" href={`/bbs/compose?re=${m.id}&all=1`}>
                  {t("bbs.replyAll", { address: m.address })}
                </a>
              </>
            ) : (
              <a class="button" href={`/bbs/compose?re=${m.id}`}>
                {t("bbs.reply")}
              </a>
            )}{" "}
            {m.type !== "B" ? (
              <button type="button" onClick={() => unread(m)}>
                {t("bbs.markUnread")}
              </button>
            ) : null}{" "}
            {signedIn ? (
              <button type="button" onClick={() => kill(m)}>
                {t("bbs.kill")}
              </button>
            ) : null}
          </p>
        </article>
      ))}
    </section>
  );
}

export function ComposePage() {
  const { query, route } = useLocation();
  const account = useLoad(loadAccount, []);
  const re = query.re ? Number(query.re) : null;
  const toAll = query.all === "1";
  const [f, setF] = useState({ type: "P", to: query.to ?? "", subject: "", body: "" });
  const [error, setError] = useState<string | null>(null);
  const [routeInfo, setRouteInfo] = useState<string | null>(null);
  useLoad(async () => {
    if (!re) return null;
    const m = await api<BbsMessage>(`/api/bbs/messages/${re}`);
    // a bulletin is answered to its author in private unless "Reply to all" was chosen
    const publicReply = m.type === "B" && toAll;
    setF((s) => ({
      ...s,
      type: publicReply ? "B" : m.type === "B" ? "P" : m.type,
      to: publicReply ? m.address : m.from,
      subject: /^re:/i.test(m.subject) ? m.subject : `Re: ${m.subject}`,
    }));
    return m;
  }, [re, toAll]);
  const set = (k: keyof typeof f) => (e: Event) => setF((s) => ({ ...s, [k]: (e.target as HTMLInputElement).value }));
  const check = async () => {
    setRouteInfo(null);
    if (!f.to) return;
    try {
      const r = await api<{ reason: string; at: string | null }>(`/api/bbs/route?type=${f.type}&to=${encodeURIComponent(f.to)}`);
      setRouteInfo(`${r.at ? `@${r.at}: ` : ""}${r.reason}`);
    } catch (e) {
      setRouteInfo((e as Error).message);
    }
  };
  if (account.loading)
    return (
      <section class="page">
        <p class="muted">{t("state.loadingPlain")}</p>
      </section>
    );
  if (!account.data?.verified) {
    return (
      <section class="page">
        <h1>{t("bbs.writeMessage")}</h1>
        <Tabs current="/bbs/compose" />
        <p>
          <Rich k="bbs.needsVerified" parts={[accountLink]} />
        </p>
      </section>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const m = await api<BbsMessage>("/api/bbs/messages", { method: "POST", json: { ...f, replyTo: re ?? undefined } });
      route(`/bbs/msg/${m.id}`);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section class="page">
      <h1>{t("bbs.writeMessage")}</h1>
      <Tabs current="/bbs/compose" />
      <form onSubmit={submit} class="compose-form">
        <p class="muted">{t("bbs.fromCall", { call: account.data.call?.split("-")[0] })}</p>
        <label for="m-type">{t("bbs.kind")}</label>
        <select id="m-type" value={f.type} onChange={set("type")}>
          <option value="P">{t("bbs.kindP")}</option>
          <option value="B">{t("bbs.kindB")}</option>
          <option value="T">{t("bbs.kindT")}</option>
        </select>
        <label for="m-to">{t("bbs.to")}</label>
        <input
          id="m-to"
          required
          maxLength={48}
          placeholder={f.type === "B" ? "ALL@WW" : "N0CALL@N0BBS.#NCA.CA.USA.NOAM"}
          value={f.to}
          onInput={set("to")}
          onBlur={check}
        />
        {routeInfo ? (
          <p class="muted" data-testid="route-info">
            {routeInfo}
          </p>
        ) : null}
        <label for="m-subject">{t("bbs.subject")}</label>
        <input id="m-subject" required maxLength={80} value={f.subject} onInput={set("subject")} />
        <label for="m-body">{t("bbs.body")}</label>
        <textarea id="m-body" rows={10} value={f.body} onInput={set("body")} />
        {error ? <p class="error">{error}</p> : null}
        <p>
          <button class="primary" type="submit">
            {t("bbs.send")}
          </button>
        </p>
      </form>
    </section>
  );
}

export function WhitePagesPage() {
  const [q, setQ] = useState("");
  const [submitted, setSubmitted] = useState("");
  const list = useLoad(() => api<{ entries: WpEntry[] }>(`/api/bbs/wp?q=${encodeURIComponent(submitted)}`), [submitted]);
  return (
    <section class="page">
      <h1>{t("bbs.whitePages")}</h1>
      <Tabs current="/bbs/wp" />
      <p class="muted">{t("bbs.wpIntro")}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setSubmitted(q);
        }}
      >
        <label for="wp-q">{t("bbs.wpQuery")}</label>
        <input id="wp-q" value={q} maxLength={40} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />{" "}
        <button type="submit">{t("bbs.search")}</button>
      </form>
      {list.error ? (
        <p class="error">{list.error.message}</p>
      ) : list.data && list.data.entries.length === 0 ? (
        <p class="muted">{t("bbs.nobody")}</p>
      ) : list.data ? (
        <table class="table" data-testid="wp">
          <thead>
            <tr>
              <th>{t("bbs.call")}</th>
              <th>{t("bbs.homeBbs")}</th>
              <th>{t("bbs.name")}</th>
              <th>{t("bbs.qth")}</th>
              <th>{t("bbs.zip")}</th>
              <th>{t("bbs.asOf")}</th>
            </tr>
          </thead>
          <tbody>
            {list.data.entries.map((e) => (
              <tr>
                <td>{e.call}</td>
                <td>{e.homeBbs}</td>
                <td>{e.name ?? ""}</td>
                <td>{e.qth ?? ""}</td>
                <td>{e.zip ?? ""}</td>
                <td>
                  <When at={e.infoAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
