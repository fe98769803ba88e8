/**
 * The signed-in user's own live channel: one WebSocket to /ws (no region),
 * shared by whatever in the page listens (the messaging screen, the alerts),
 * open while someone listens, reconnecting after 5 s when dropped. The
 * server sends here: aprs-message, message-state, watch, emergency
 * (docs/api.md "Live").
 */
export interface ChannelMessage {
  type: string;
  [k: string]: unknown;
}

type Listener = (m: ChannelMessage) => void;
const listeners = new Set<Listener>();
let ws: WebSocket | null = null;
let retry: ReturnType<typeof setTimeout> | undefined;

function open(): void {
  if (ws || listeners.size === 0) return;
  const s = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws = s;
  s.onmessage = (e) => {
    let m: ChannelMessage;
    try {
      m = JSON.parse(String(e.data)) as ChannelMessage;
    } catch {
      return;
    }
    for (const l of listeners) l(m);
  };
  s.onclose = () => {
    if (ws === s) ws = null;
    if (listeners.size > 0) retry = setTimeout(open, 5000);
  };
}

/** Listens to the user's channel; returns the function that stops listening. */
export function onUserChannel(l: Listener): () => void {
  listeners.add(l);
  open();
  return () => {
    listeners.delete(l);
    if (listeners.size === 0) {
      clearTimeout(retry);
      ws?.close();
      ws = null;
    }
  };
}
