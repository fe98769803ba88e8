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
import { t } from "../i18n/i18n.ts";

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
    return {
      id: next++,
      text: t("alertsLive.messageFrom", { from: msg.from, text: msg.text }),
      href: `/messages/${encodeURIComponent(msg.from)}`,
      urgent: false,
    };
  }
  if (m.type === "watch")
    return { id: next++, text: t("alertsLive.heard", { call: String(m.call) }), href: `/station/${encodeURIComponent(String(m.call))}`, urgent: false };
  if (m.type === "emergency") {
    const e = m.emergency as { call: string };
    return { id: next++, text: t("alertsLive.emergencyOf", { call: e.call }), href: "/map", urgent: true };
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
      const toast = toastOf(m);
      if (toast) setToasts((list) => [...list.slice(-3), toast]);
    });
  }, [signedIn, onMessages]);
  if (toasts.length === 0) return null;
  return (
    <div class="toasts" role="status" data-testid="alert-toasts">
      {toasts.map((toast) => (
        <div key={toast.id} class={`toast${toast.urgent ? " urgent" : ""}`}>
          <a href={toast.href}>{toast.text}</a>
          <button type="button" aria-label={t("alertsLive.close")} onClick={() => setToasts((list) => list.filter((x) => x.id !== toast.id))}>
            {t("alertsLive.close")}
          </button>
        </div>
      ))}
    </div>
  );
}
