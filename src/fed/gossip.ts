/**
 * Gossip: `POST /federation/notify` is a ping meaning "come pull from me".
 * The receiver pulls that peer now (from the URL it knows for it, never one
 * the ping names), coalesced with a pull already running. Every federated
 * write of this instance pings its peers, debounced so a burst of writes
 * sends one ping per peer (and a spoke pushes to its hub at the same moment).
 *
 *   notify body: {"instance": "<the sender's instance id>"}
 */
import type { Core } from "../core/core.ts";
import { fedFetch, peerSyncUrls } from "./dial.ts";
import { instanceSigner } from "./feed.ts";
import { getPeer, listPeers } from "./peers.ts";
import { isPulling, pullPeer } from "./sync.ts";
import { pushToHub } from "./hub-and-spoke.ts";

import type { NotifyAnswer } from "./shapes.ts";

/** Handles a gossip ping (the instance id's form is checked at the route). */
export function receiveNotify(gw: Core, b: { instance: string }): NotifyAnswer {
  const peer = getPeer(gw, b.instance);
  if (!peer) return { accepted: false, coalesced: false, reason: "unknown_peer" };
  if (peer.trust === "blocked") return { accepted: false, coalesced: false, reason: "blocked" };
  if (peerSyncUrls(gw, peer).length === 0) return { accepted: false, coalesced: false, reason: "no_sync_endpoint" };
  const coalesced = isPulling(gw, peer.instance);
  void pullPeer(gw, peer.instance);
  return { accepted: true, coalesced, reason: null };
}

/** Debounce of outgoing pings after a write: a burst of writes sends one ping per peer. */
const PING_DEBOUNCE_MS = 200;

export interface PingState {
  timer: ReturnType<typeof setTimeout> | null;
  inflight: Promise<unknown> | null;
  stopped: boolean;
}

declare module "../core/services.ts" {
  interface Services {
    /** the debounced notify pings to peers after a write */
    gossip: PingState;
  }
}

const stateOf = (gw: Core): PingState => gw.services.gossip;

/** Pings every peer that is not blocked and has a sync URL; resolves when all have answered or failed. */
async function pingPeers(gw: Core): Promise<Array<{ instance: string; ok: boolean }>> {
  if (!instanceSigner(gw)) return [];
  const body = JSON.stringify({ instance: gw.config.instance });
  const targets = listPeers(gw)
    .filter((p) => p.trust !== "blocked")
    .map((p) => ({ instance: p.instance, urls: peerSyncUrls(gw, p) }))
    .filter((t) => t.urls.length > 0);
  return Promise.all(
    targets.map(async (t) => {
      // as a pull does: the peer's endpoints best first, then its configured URL, until one answers
      for (const url of t.urls) {
        try {
          const r = await fedFetch(gw, `${url}/federation/notify`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
            timeoutMs: 5000,
            maxBytes: 4096,
          });
          return { instance: t.instance, ok: r.status >= 200 && r.status < 300 };
        } catch {
          // no answer there: the next URL
        }
      }
      return { instance: t.instance, ok: false };
    }),
  );
}

/** Listens for this instance's published records and pings peers after each burst. */
export function startGossip(gw: Core): void {
  const s = stateOf(gw);
  gw.events.on("fedPublished", () => {
    if (s.stopped || s.timer) return;
    s.timer = setTimeout(() => {
      s.timer = null;
      if (s.stopped) return;
      const p = Promise.all([pingPeers(gw), gw.config.fedHubUrl ? pushToHub(gw).catch(() => null) : null]).finally(() => {
        if (s.inflight === p) s.inflight = null;
      });
      s.inflight = p;
    }, PING_DEBOUNCE_MS);
  });
  gw.onStop(async () => {
    s.stopped = true;
    if (s.timer) clearTimeout(s.timer);
    s.timer = null;
    await s.inflight?.catch(() => {});
  });
}
