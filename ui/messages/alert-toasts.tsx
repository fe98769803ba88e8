/**
 * What the user's channel tells while the app is open on any page (the server
 * then sends no push): a message heard for them, a watched station heard, an
 * emergency. Shown at the bottom of the screen until closed; a message links
 * to its conversation (the messaging screen shows its own).
 */
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { loadAccount } from "../account/session.ts";
import { useLoad } from "../hooks.ts";
import { onUserChannel, type ChannelMessage } from "./channel.ts";

interface Toast {
  id: number;
  text: string;
  href: string;
  urgent: boolean;
}

let next = 1;

function toastOf(m: ChannelMessage): Toast | null {
  if (m.type === "aprs-message") {
    const msg = m.message as { from: string; text: string };
    return { id: next++, text: `Message from ${msg.from}: ${msg.text}`, href: `/messages/${encodeURIComponent(msg.from)}`, urgent: false };
  }
  if (m.type === "watch") return { id: next++, text: `${m.call} heard`, href: `/station/${encodeURIComponent(String(m.call))}`, urgent: false };
  if (m.type === "emergency") {
    const e = m.emergency as { call: string };
    return { id: next++, text: `EMERGENCY: ${e.call}`, href: "/map", urgent: true };
  }
  return null;
}

export function AlertToasts() {
  const { path } = useLocation();
  const account = useLoad(loadAccount, []);
  const [toasts, setToasts] = useState<Toast[]>([]);
  const signedIn = !!account.data;
  const onMessages = path.startsWith("/messages");
  useEffect(() => {
    if (!signedIn) return;
    return onUserChannel((m) => {
      if (onMessages && m.type === "aprs-message") return;
      const t = toastOf(m);
      if (t) setToasts((list) => [...list.slice(-3), t]);
    });
  }, [signedIn, onMessages]);
  if (toasts.length === 0) return null;
  return (
    <div class="toasts" role="status" data-testid="alert-toasts">
      {toasts.map((t) => (
        <div key={t.id} class={`toast${t.urgent ? " urgent" : ""}`}>
          <a href={t.href}>{t.text}</a>
          <button type="button" aria-label="Close" onClick={() => setToasts((list) => list.filter((x) => x.id !== t.id))}>
            Close
          </button>
        </div>
      ))}
    </div>
  );
}
