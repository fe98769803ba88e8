/**
 * Messages written while the network was down, kept in this browser
 * (localStorage: a message is small, and it must outlive a reload) and sent
 * with POST /api/messages on the next `online` event or page load. One the
 * server refuses (4xx) is dropped: sending it again would not change that.
 */
const KEY = "svc-messages-outbox";

export interface PendingMessage {
  clientId: string;
  to: string;
  text: string;
  at: number;
}

export function pending(): PendingMessage[] {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? "[]") as PendingMessage[];
  } catch {
    return [];
  }
}

function save(list: PendingMessage[]): void {
  localStorage.setItem(KEY, JSON.stringify(list));
}

export function keepOffline(m: { to: string; text: string }): void {
  const id = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
  save([...pending(), { clientId: id, to: m.to, text: m.text, at: Date.now() }]);
}

let sending: Promise<number> | null = null;

/** Sends what is waiting, oldest first; stops at the first network failure. Returns how many went. */
export function sendPending(): Promise<number> {
  if (!sending) sending = sendAll().finally(() => (sending = null));
  return sending;
}

async function sendAll(): Promise<number> {
  // awaited first, so `sending` is set before this can finish
  await Promise.resolve();
  let sent = 0;
  for (const m of pending()) {
    let res: Response;
    try {
      res = await fetch("/api/messages", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ to: m.to, text: m.text }),
      });
    } catch {
      break; // still offline
    }
    if (res.status >= 500) break;
    save(pending().filter((p) => p.clientId !== m.clientId));
    if (res.ok) sent++;
  }
  return sent;
}
