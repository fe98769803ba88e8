/**
 * Federation over the radio: serving SVCL1 on connections to this station,
 * and pulling peers over an AX.25 or NET/ROM circuit to their `ax25` or
 * `netrom` endpoint (the one with the lowest priority value).
 *
 *   const report = await syncOverRadio(gw, "gw2");   // connect, pull, hang up
 *
 * Pulls over the radio run one at a time (they share one channel). A peer
 * that also has a sync URL is pulled over HTTP by the federation-pull task;
 * the scheduled radio sync takes only peers reachable by radio alone. Both
 * keep the same per-peer cursors, so a record pulled one way is not pulled
 * again the other.
 */
import type { Core } from "../core/core.ts";
import { tierCaps, type LinkCaps } from "../lib/fed/caps.ts";
import { peerSyncUrl } from "../fed/dial.ts";
import type { Endpoint } from "../lib/fed/endpoints.ts";
import { getPeer, listPeers, type Peer } from "../fed/peers.ts";
import { finishPull } from "../fed/sync.ts";
import { pullSvcl1, serveSvcl1, type PullReport } from "../fed/transports/svcl1.ts";
import type { Circuit } from "../../radio/index.ts";
import { radioMayTransmit, radioOf, type GatewayRadio } from "./running-radio.ts";
import { resolveNode } from "./netrom.ts";
import { isVerifiedCall } from "./tx.ts";

/** This station's SVCL1 capabilities: the compact tier, clamped by SVCL1_LINE_BUDGET and SVCL1_MAX_BATCH. */
export function svcl1Caps(gw: Core): LinkCaps {
  const c = tierCaps("compact");
  return { ...c, mtu: Math.min(gw.config.svcl1LineBudget, 1_048_576), batch: Math.min(gw.config.svcl1MaxBatch, c.batch * 400) };
}

/** A peer's radio endpoint: its ax25 or netrom endpoint with the lowest priority value. */
function radioEndpoint(peer: Pick<Peer, "endpoints">): Endpoint | null {
  return peer.endpoints.find((e) => e.transport === "ax25" || e.transport === "netrom") ?? null;
}

class RadioSyncError extends Error {
  override name = "RadioSyncError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Opens a circuit to an endpoint: an AX.25 link to `ax25:CALL` (from RADIO_CALL,
 * or from another of the station's calls, through digipeaters), a NET/ROM
 * circuit to `netrom:ALIAS`.
 */
export async function openCircuit(
  gw: Core,
  gr: GatewayRadio,
  ep: Pick<Endpoint, "transport" | "address">,
  opts: { from?: string; via?: string[] } = {},
): Promise<Circuit> {
  if (!radioMayTransmit(gw))
    throw new RadioSyncError(
      "not_verified",
      `RADIO_CALL ${gw.config.radioCall ?? "(unset)"} is not a verified callsign on this instance: the station only listens`,
    );
  if (opts.from && !isVerifiedCall(gw, opts.from))
    throw new RadioSyncError("not_verified", `${opts.from} is not a verified callsign on this instance: the station does not transmit as it`);
  if (ep.transport === "ax25") return gr.radio.connect(ep.address, { from: opts.from, via: opts.via });
  if (ep.transport === "netrom") {
    if (!gr.netrom) throw new RadioSyncError("no_node", "this station is no NET/ROM node (set NODE_ALIAS)");
    const call = resolveNode(gw, ep.address);
    if (!call) throw new RadioSyncError("no_route", `the NODES table has no route to ${ep.address}`);
    return gr.netrom.connect(call, { user: gw.config.radioCall ?? undefined });
  }
  throw new RadioSyncError("not_radio", `${ep.transport} is not a radio transport`);
}

/** Serves SVCL1 on an accepted connection. */
export function serveCircuit(gw: Core, circuit: Circuit): void {
  void serveSvcl1(gw, circuit, { caps: svcl1Caps(gw) })
    .then((r) => gw.log.info("radio", `served SVCL1 to ${r.peer}: ${r.pages} pages, ${r.frames} records${r.errors.length ? `; ${r.errors.join("; ")}` : ""}`))
    .catch((e) => gw.log.error("radio", `SVCL1 session with ${circuit.peer} failed`, { error: String(e) }));
}

/**
 * Pulls a peer over the radio now: connect to its radio endpoint, pull every
 * feed (tombstones first), hang up. Queued behind any radio pull already
 * running. Never throws for the peer or the air: it is in the report (and in
 * the peer's sync health).
 */
export function syncOverRadio(gw: Core, instance: string): Promise<PullReport> {
  const run = async (): Promise<PullReport> => {
    const fail = (code: string, message: string): PullReport => ({
      peer: instance,
      ok: false,
      error: { code, message },
      link: null,
      feeds: {},
      applied: 0,
      received: 0,
      bytes: 0,
      rawBytes: 0,
    });
    let report: PullReport;
    const peer = getPeer(gw, instance);
    const gr = radioOf(gw);
    const ep = peer && radioEndpoint(peer);
    if (!peer) return fail("unknown_peer", `${instance} is not a peer`);
    if (!gr) report = fail("no_radio", "this gateway has no radio port (KISS_PORTS)");
    else if (peer.trust === "blocked") report = fail("blocked", `${instance} is blocked: never mirrored`);
    else if (!ep) report = fail("no_radio_endpoint", `${instance} lists no ax25 or netrom endpoint`);
    else {
      try {
        const circuit = await openCircuit(gw, gr, ep);
        report = await pullSvcl1(gw, circuit, { peer: instance, caps: svcl1Caps(gw), transport: ep.transport });
      } catch (e) {
        const code = (e as { code?: string; reason?: string }).code ?? (e as { reason?: string }).reason ?? "failed";
        report = fail(code, `${ep.transport}:${ep.address}: ${(e as Error).message}`);
      }
    }
    finishPull(gw, peer.id, { instance, ok: report.ok, applied: report.applied, error: report.error });
    if (report.ok) gw.log.info("radio", `pulled ${instance} over the radio: ${report.applied} applied of ${report.received}, ${report.bytes} bytes`);
    else gw.log.warn("radio", `pulling ${instance} over the radio failed: ${report.error!.code}: ${report.error!.message}`);
    return report;
  };
  // one pull on the air at a time: the next waits for the running radio's last (none without a radio: it fails at once)
  const gr = radioOf(gw);
  if (!gr) return run();
  const next = gr.pulls.catch(() => {}).then(run);
  gr.pulls = next;
  return next;
}

/** Peers the scheduled radio sync takes: not blocked, a radio endpoint, and no sync URL. */
export function radioOnlyPeers(gw: Core): Peer[] {
  return listPeers(gw).filter((p) => p.trust !== "blocked" && radioEndpoint(p) && peerSyncUrl(gw, p) === null);
}
