/**
 * The page's side of offline use: registering the service worker, noticing a
 * new version waiting, whether the network is there, and the field notes
 * still to send (sent as soon as the network returns).
 */
import { useEffect, useState } from "preact/hooks";
import { all, type FieldNote } from "./db.ts";
import { sendPending } from "./notes.ts";
import { secureContext } from "../secure-context.tsx";

type Listener = () => void;
const listeners = new Set<Listener>();
const notify = () => listeners.forEach((l) => l());

let waiting: ServiceWorker | null = null;
/**
 * Whether this gateway answers. navigator.onLine only knows about the local
 * link (a Pi's Wi-Fi in a car is "online" with no way out); so the page also
 * asks /health, and the service worker tells when its requests fail.
 */
let reachable = true;
let probeTimer: ReturnType<typeof setTimeout> | null = null;

function setReachable(ok: boolean): void {
  if (ok === reachable) return;
  reachable = ok;
  notify();
  if (ok) void sendPending().then(notify);
  else scheduleProbe();
}

function scheduleProbe(): void {
  if (probeTimer) return;
  probeTimer = setTimeout(() => {
    probeTimer = null;
    void probe();
  }, 5_000);
}

async function probe(): Promise<void> {
  try {
    const r = await fetch("/health?live", { cache: "no-store" });
    setReachable(r.ok || r.status < 500);
  } catch {
    setReachable(false);
    scheduleProbe();
  }
}

/**
 * Watches the network (always: field notes are kept in IndexedDB, which needs
 * no secure context, and sent when it returns) and, in a secure context,
 * registers /sw.js; a new version found later waits for the user's "reload".
 */
export function registerServiceWorker(): void {
  watchNetwork();
  if (!secureContext() || !("serviceWorker" in navigator)) return;
  const hadController = !!navigator.serviceWorker.controller;
  let reloading = false;
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    // The first install takes control quietly; a replaced version reloads the page.
    if (!hadController || reloading) return;
    reloading = true;
    location.reload();
  });
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(
    (reg) => {
      const watch = (w: ServiceWorker | null) => {
        if (!w) return;
        const check = () => {
          if (w.state === "installed" && navigator.serviceWorker.controller) {
            waiting = w;
            notify();
          }
        };
        w.addEventListener("statechange", check);
        check();
      };
      watch(reg.waiting);
      reg.addEventListener("updatefound", () => watch(reg.installing));
      // every visit asks for a newer version (the browser alone may wait a day)
      if (hadController) reg.update().catch(() => {});
    },
    () => {},
  );
}

/** The network's comings and goings; pending field notes go out when it returns and on every page load. */
function watchNetwork(): void {
  addEventListener("online", () => void probe());
  addEventListener("offline", () => setReachable(false));
  try {
    new BroadcastChannel("svc-offline").onmessage = (e: MessageEvent) => {
      if (e.data?.type === "net") setReachable(!!e.data.ok);
      else notify();
    };
  } catch {
    // older browsers: the state refreshes on online/offline events
  }
  void probe().then(() => {
    if (reachable) void sendPending().then(notify);
  });
}

/** A request just failed for want of a network: say offline, and look again until it is back (then send the notes). */
export function networkLost(): void {
  setReachable(false);
}

/** Lets the waiting version take over; the page reloads when it does. */
export function applyUpdate(): void {
  waiting?.postMessage({ type: "skip-waiting" });
}

export interface OfflineState {
  online: boolean;
  updateReady: boolean;
  pending: FieldNote[];
}

/** The network, the waiting version and the pending field notes, kept current. */
export function useOfflineState(): OfflineState {
  const read = (): OfflineState => ({ online: navigator.onLine && reachable, updateReady: !!waiting, pending: [] });
  const [st, setSt] = useState<OfflineState>(read);
  useEffect(() => {
    let live = true;
    const refresh = () => {
      const base = read();
      all<FieldNote>("notes").then(
        (notes) => live && setSt({ ...base, pending: notes.filter((n) => n.state === "pending") }),
        () => live && setSt(base),
      );
    };
    listeners.add(refresh);
    refresh();
    return () => {
      live = false;
      listeners.delete(refresh);
    };
  }, []);
  return st;
}

/** Re-reads the state everywhere (after a change made on this page). */
export const refreshOfflineState = notify;
