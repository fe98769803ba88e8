/**
 * The BBS in the web app: mailbox (received and sent), compose and reply,
 * bulletin boards by category, a message with its thread, White Pages search.
 */
import { useState } from "preact/hooks";
import { LoadState } from "../states.tsx";
import { When } from "../time.tsx";
import { useLocation, useRoute } from "preact-iso";
import { api, type ApiError } from "../api.ts";
import { useLoad } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
/** A message as the API shows it: the server's own type. */
import type { Message as BbsMessage } from "../../src/bbs/messages.ts";
import { plural } from "../components/plural.ts";

interface WpEntry {
  call: string;
  homeBbs: string;
  zip: string | null;
  name: string | null;
  qth: string | null;
  source: string;
  infoAt: number;
}

const TYPE_NAMES: Record<string, string> = { P: "personal", B: "bulletin", T: "NTS traffic" };

function Tabs({ current }: { current: string }) {
  const tabs = [
    ["/bbs", "Mailbox"],
    ["/bbs/bulletins", "Bulletins"],
    ["/bbs/compose", "Write"],
    ["/bbs/wp", "White Pages"],
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
  if (messages.length === 0) return <p class="muted">No messages.</p>;
  return (
    <table class="table" data-testid="messages">
      <thead>
        <tr>
          <th>{show === "from" ? "From" : "To"}</th>
          <th>Subject</th>
          <th>Date</th>
          <th>Size</th>
        </tr>
      </thead>
      <tbody>
        {messages.map((m) => (
          <tr class={m.read || m.type === "B" ? "" : "unread"}>
            <td>{show === "from" ? m.from : m.address}</td>
            <td>
              <a href={`/bbs/msg/${m.id}`}>{m.subject}</a>
              {!m.read && m.type !== "B" && show === "from" ? <span class="tag">new</span> : null}
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
        <p class="muted">Loading…</p>
      ) : !account.data ? (
        <p>
          <a href="/account">Sign in</a> to read your mail. Bulletins are open to everyone.
        </p>
      ) : !account.data.verified ? (
        <p class="notice">
          Personal mail is read with a verified callsign: verify yours on the <a href="/account">account page</a>.
        </p>
      ) : (
        <>
          <p>
            <button type="button" class={view === "in" ? "primary" : ""} onClick={() => setView("in")}>
              Received
            </button>{" "}
            <button type="button" class={view === "sent" ? "primary" : ""} onClick={() => setView("sent")}>
              Sent
            </button>{" "}
            <a class="button" href="/bbs/compose">
              Write a message
            </a>
          </p>
          {list.data ? <MessageList messages={list.data.messages} show={view === "in" ? "from" : "to"} /> : <LoadState state={list} what="your mail" />}
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
          all
        </a>
        {cats.data?.categories.map((c) => (
          <a href={`/bbs/bulletins?category=${c.category}`} class={c.category === category ? "tag current" : "tag"}>
            {c.category} ({c.count})
          </a>
        ))}
      </p>
      <h2>{category ? `Bulletins in ${category}` : "All bulletins"}</h2>
      {list.data ? <MessageList messages={list.data.messages} show="from" /> : <LoadState state={list} what="the bulletins" />}
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
        <h1>Message</h1>
        <Tabs current="" />
        <p class="error">{e.status === 401 ? "This is personal mail: sign in as its addressee to read it." : e.message}</p>
      </section>
    );
  }
  if (!thread.data)
    return (
      <section class="page">
        <p class="muted">Loading…</p>
      </section>
    );
  const kill = async (m: BbsMessage) => {
    if (!confirm(`Kill "${m.subject}" from ${m.from}? It is deleted from this BBS and cannot be brought back.`)) return;
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
      <h1>{messages.find((m) => m.id === id)?.subject ?? "Message"}</h1>
      <Tabs current="" />
      {messages.length > 1 ? <p class="muted">A thread of {plural(messages.length, "message")}.</p> : null}
      {error ? <p class="error">{error}</p> : null}
      {messages.map((m) => (
        <article class={m.id === id ? "card message current" : "card message"} data-testid={`message-${m.id}`}>
          <header>
            <strong>{m.subject}</strong>
            <div class="muted">
              {TYPE_NAMES[m.type]} from {m.from} to {m.address} · <When at={m.createdAt} /> · {m.bid}
              {m.receivedFrom ? ` · via ${m.receivedFrom}` : ""}
            </div>
          </header>
          <pre class="message-body">{m.body}</pre>
          {m.route && m.route.length ? (
            <details>
              <summary>Routing ({m.route.length} R: lines)</summary>
              <pre>{m.route.join("\n")}</pre>
            </details>
          ) : null}
          {m.forwarding && m.forwarding.length ? <p class="muted">Forwarding: {m.forwarding.map((f) => `${f.partner} ${f.state}`).join(", ")}</p> : null}
          <p class="actions">
            {m.type === "B" ? (
              <>
                {/* FBB's SR habit: a bulletin's reply goes to its author in private; the whole distribution is a separate choice */}
                <a class="button" href={`/bbs/compose?re=${m.id}`}>
                  Reply to {m.from}
                </a>{" "}
                <a class="button" href={`/bbs/compose?re=${m.id}&all=1`}>
                  Reply to all at {m.address}
                </a>
              </>
            ) : (
              <a class="button" href={`/bbs/compose?re=${m.id}`}>
                Reply
              </a>
            )}{" "}
            {m.type !== "B" ? (
              <button type="button" onClick={() => unread(m)}>
                Mark unread
              </button>
            ) : null}{" "}
            {signedIn ? (
              <button type="button" onClick={() => kill(m)}>
                Kill
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
        <p class="muted">Loading…</p>
      </section>
    );
  if (!account.data?.verified) {
    return (
      <section class="page">
        <h1>Write a message</h1>
        <Tabs current="/bbs/compose" />
        <p>
          Messages leave this BBS under your callsign, so writing needs a <a href="/account">signed-in account with a verified callsign</a>.
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
      <h1>Write a message</h1>
      <Tabs current="/bbs/compose" />
      <form onSubmit={submit} class="compose-form">
        <p class="muted">From {account.data.call?.split("-")[0]}</p>
        <label for="m-type">Kind</label>
        <select id="m-type" value={f.type} onChange={set("type")}>
          <option value="P">Personal</option>
          <option value="B">Bulletin</option>
          <option value="T">NTS traffic</option>
        </select>
        <label for="m-to">To</label>
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
        <label for="m-subject">Subject</label>
        <input id="m-subject" required maxLength={80} value={f.subject} onInput={set("subject")} />
        <label for="m-body">Message</label>
        <textarea id="m-body" rows={10} value={f.body} onInput={set("body")} />
        {error ? <p class="error">{error}</p> : null}
        <p>
          <button class="primary" type="submit">
            Send
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
      <h1>White Pages</h1>
      <Tabs current="/bbs/wp" />
      <p class="muted">Which BBS is home to a callsign, learnt from forwarded White Pages updates and the routing lines of mail passing through.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setSubmitted(q);
        }}
      >
        <label for="wp-q">Callsign, BBS, name or place</label>
        <input id="wp-q" value={q} maxLength={40} onInput={(e) => setQ((e.target as HTMLInputElement).value)} /> <button type="submit">Search</button>
      </form>
      {list.error ? (
        <p class="error">{list.error.message}</p>
      ) : list.data && list.data.entries.length === 0 ? (
        <p class="muted">Nobody found.</p>
      ) : list.data ? (
        <table class="table" data-testid="wp">
          <thead>
            <tr>
              <th>Call</th>
              <th>Home BBS</th>
              <th>Name</th>
              <th>QTH</th>
              <th>Zip</th>
              <th>As of</th>
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
