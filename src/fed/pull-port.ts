/**
 * Federation pulls in GET /api/ports (`federation`) and the log: the FED_PEERS
 * URLs that did not answer (a name that does not resolve, a peer that times
 * out), the known peers whose last pull failed, and the pulls in flight. The
 * log says when a peer starts failing, with what, and when it works again:
 * once per change, not on every five-minute pull.
 */
import type { Core } from "../core/core.ts";
import { registerPort } from "../stations/ports.ts";
import { listPeers } from "./peers.ts";

export interface PullState {
  /** FED_PEERS URLs that did not answer their descriptor, by URL */
  bootstrap: Map<string, { code: string; message: string; since: number }>;
  lastRunAt: number | null;
  /** whether the `federation` port is listed yet (at the first pull) */
  listed: boolean;
}

/** A new gateway's pull state (src/fed/sync.ts keeps it with its pulls). */
export const newPullState = (): PullState => ({ bootstrap: new Map(), lastRunAt: null, listed: false });

/** The gateway's pull state `s`; lists the `federation` port the first time. */
export function pullState(gw: Core, s: PullState, inFlight: () => number): PullState {
  if (s.listed) return s;
  s.listed = true;
  const st = s;
  registerPort(gw, "federation", () => {
    const peers = listPeers(gw).filter((p) => p.trust !== "blocked");
    const failing = [
      ...[...st.bootstrap].map(([url, b]) => ({ peer: url, error: `${b.code}: ${b.message}`, since: b.since })),
      ...peers.filter((p) => p.lastError).map((p) => ({ peer: p.instance, error: p.lastError!, since: p.lastSyncOkAt })),
    ];
    const configured = gw.config.fedPeers.length;
    return {
      name: "federation",
      kind: "federation",
      state: configured === 0 && peers.length === 0 ? "off" : failing.length ? "failing" : st.lastRunAt === null ? "idle" : "up",
      configured,
      peers: peers.length,
      pulling: inFlight(),
      lastPullAt: st.lastRunAt,
      failing,
      lastError: failing[0]?.error ?? null,
    };
  });
  return s;
}

/** A FED_PEERS URL's descriptor fetch went (problem null) or failed: logged when that changes. */
export function noteBootstrap(gw: Core, s: PullState, url: string, problem: { code: string; message: string } | null): void {
  const had = s.bootstrap.get(url);
  if (!problem) {
    if (had) gw.log.info("fed", `FED_PEERS ${url} answers again`);
    s.bootstrap.delete(url);
    return;
  }
  if (had?.message !== problem.message)
    gw.log.warn("fed", `FED_PEERS ${url} did not answer (${problem.code}: ${problem.message}); tried again at the next pull`);
  s.bootstrap.set(url, { ...problem, since: had?.since ?? gw.clock.now() });
}

/** A known peer's pull ended: logged when it starts failing, fails differently, or works again. */
export function notePull(gw: Core, instance: string, before: string | null, after: string | null): void {
  if (after && after !== before) gw.log.warn("fed", `pulling ${instance} failed: ${after}`);
  else if (!after && before) gw.log.info("fed", `pulling ${instance} works again`);
}
