/**
 * The messaging screen: /messages lists the user's APRS conversations (per
 * station, and groups and bulletins), /messages/:call is one conversation
 * with each sent message's state (queued, sent, retrying, acked, failed) and
 * a form to write. A WebSocket to /ws (the user's own channel) brings
 * messages and acks as they are heard; the page also asks again every 15 s
 * (sends and retries happen on the server). A message written offline is kept
 * in this browser (ui/messages/outbox.ts) and sent when the network is back.
 * Shapes: docs/api.md "Messages".
 */
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { useLoad, usePoll } from "../hooks.ts";
import { loadAccount } from "../account/session.ts";
import { When } from "../time.tsx";
import { keepOffline, pending, sendPending, type PendingMessage } from "./outbox.ts";
import { onUserChannel } from "./channel.ts";
import { WatchList } from "./watch-list.tsx";
import type { Conversation, ConversationMessage } from "../../src/messages/service.ts";
import { t } from "../i18n/i18n.ts";
import { Rich } from "../i18n/rich.tsx";

/** The shapes of GET /api/messages/conversations and /with/:call, as the server declares them. */
type Message = ConversationMessage;

const STATE_TEXT = (s: NonNullable<Message["state"]>) => t(`messages.${s}`);
const accountLink = (s: string) => <a href="/account">{s}</a>;

/** Bumps when the user's live channel says something (or a pending message went out). */
function useLiveBump(): number {
  const [n, setN] = useState(0);
  useEffect(() => {
    const off = onUserChannel((m) => {
      if (m.type === "aprs-message" || m.type === "message-state") setN((k) => k + 1);
    });
    const online = () => sendPending().then((sent) => sent > 0 && setN((k) => k + 1));
    addEventListener("online", online);
    online();
    // the online event is not always told (a captive portal, a flaky link): try again meanwhile
    const again = setInterval(() => pending().length > 0 && online(), 10_000);
    return () => {
      off();
      clearInterval(again);
      removeEventListener("online", online);
    };
  }, []);
  return n;
}

function Gate({ children }: { children: (call: string) => preact.ComponentChildren }) {
  const acct = useLoad(loadAccount);
  if (acct.loading) return <p>{t("state.loadingPlain")}</p>;
  if (!acct.data)
    return (
      <p>
        <Rich k="messages.signIn" parts={[accountLink]} />
      </p>
    );
  if (!acct.data.call || !acct.data.verified)
    return (
      <p>
        <Rich k="messages.verify" parts={[accountLink]} />
      </p>
    );
  return <>{children(acct.data.call)}</>;
}

export function MessagesPage() {
  return (
    <section class="messages-page">
      <h1>{t("messages.title")}</h1>
      <Gate>
        {() => (
          <>
            <ConversationList />
            <WatchList />
          </>
        )}
      </Gate>
    </section>
  );
}

function ConversationList() {
  const bump = useLiveBump();
  const poll = usePoll(15_000);
  const list = useLoad(() => api<{ conversations: Conversation[] }>("/api/messages/conversations"), [bump, poll]);
  const [to, setTo] = useState("");
  const waiting = pending();
  return (
    <>
      <form
        class="compose"
        onSubmit={(e) => {
          e.preventDefault();
          const call = to.trim().toUpperCase();
          if (call) location.assign(`/messages/${encodeURIComponent(call)}`);
        }}
      >
        <input
          name="to"
          aria-label={t("messages.callOrGroup")}
          placeholder={t("messages.callsign")}
          value={to}
          onInput={(e) => setTo((e.target as HTMLInputElement).value)}
        />
        <button type="submit">{t("messages.newConversation")}</button>
      </form>
      {waiting.length > 0 && <p class="muted">{t("messages.writtenOffline", { count: waiting.length })}</p>}
      {list.error && <p class="error">{list.error.message}</p>}
      {list.data && list.data.conversations.length === 0 && <p class="muted">{t("messages.none")}</p>}
      <ul class="conversation-list" data-testid="conversations">
        {list.data?.conversations.map((c) => (
          <li key={c.call}>
            <a href={`/messages/${encodeURIComponent(c.call)}`}>
              <b>{c.call}</b>
              {c.kind !== "station" && <span class="muted">{c.kind}</span>}
              <span class="preview">
                {c.last.direction === "out" ? t("messages.you") : ""}
                {c.last.text}
              </span>
              {c.last.state && <span class={`msg-state ${c.last.state}`}>{STATE_TEXT(c.last.state)}</span>}
              <When at={c.last.ts} />
            </a>
          </li>
        ))}
      </ul>
    </>
  );
}

export function ConversationPage({ call }: { call?: string }) {
  const other = decodeURIComponent(call ?? "").toUpperCase();
  return (
    <section class="messages-page">
      <p>
        <a href="/messages">{t("messages.all")}</a>
      </p>
      <h1>{other}</h1>
      <Gate>{() => <Thread call={other} />}</Gate>
    </section>
  );
}

function Thread({ call }: { call: string }) {
  const bump = useLiveBump();
  const poll = usePoll(15_000);
  const [sentHere, setSentHere] = useState(0);
  const conv = useLoad(
    () => api<{ call: string; kind: Conversation["kind"]; messages: Message[] }>(`/api/messages/with/${encodeURIComponent(call)}`),
    [call, bump, poll, sentHere],
  );
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const offline: PendingMessage[] = pending().filter((p) => p.to === call);
  const send = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const body = { to: call, text: text.trim() };
    if (!body.text) return;
    try {
      await api("/api/messages", { method: "POST", json: body });
      setText("");
      setSentHere((k) => k + 1);
    } catch (err) {
      if (err instanceof ApiError) return setError(err.message);
      // no network: kept here, sent when back
      keepOffline(body);
      setText("");
      setSentHere((k) => k + 1);
    }
  };
  const kind = conv.data?.kind;
  return (
    <>
      {kind && kind !== "station" && <p class="muted">{t("messages.group", { kind })}</p>}
      {conv.error && <p class="error">{conv.error.message}</p>}
      <ol class="thread" data-testid="thread">
        {conv.data?.messages.map((m) => (
          <li key={m.id} class={m.direction} data-state={m.state}>
            {m.direction === "in" && kind !== "station" && <b>{m.from}: </b>}
            {m.text}
            <div>
              <When at={m.ts} />
              {m.state && (
                <span class={`msg-state ${m.state}`} title={m.error ?? undefined}>
                  {STATE_TEXT(m.state)}
                  {m.state === "retrying" && m.attempts ? t("messages.attempts", { n: m.attempts }) : ""}
                </span>
              )}
            </div>
          </li>
        ))}
        {offline.map((p) => (
          <li key={p.clientId} class="out" data-state="offline">
            {p.text}
            <div>
              <span class="msg-state">{t("messages.waiting")}</span>
            </div>
          </li>
        ))}
      </ol>
      <form class="compose" onSubmit={send}>
        <input
          name="text"
          aria-label={t("messages.message")}
          maxLength={67}
          placeholder={t("messages.placeholder")}
          value={text}
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary">
          {t("messages.send")}
        </button>
      </form>
      {error && <p class="error">{error}</p>}
    </>
  );
}
