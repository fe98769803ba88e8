/**
 * The gateway's radio: the `Radio` of radio/ (KISS_PORTS under RADIO_CALL)
 * started with the gateway and stopped with it, and everything the gateway
 * does with it:
 *
 *   served  connections to RADIO_CALL: SVCL1 sync; to NODE_CALL: NET/ROM;
 *           to BBS_AX25_CALL: FBB forwarding with partner BBSes (src/bbs/ax25-answer.ts)
 *   heard   every frame: the MHeard list; UI frames: NODES broadcasts go to
 *           the NODES table, SVCB1 datagrams to the federation apply pipeline,
 *           APRS (PID 0xF0) to the ingest pipeline as heard on RF by this
 *           station (an IGate for Tier A), except our own frames heard back
 *           through a digipeater (echoes.ts: stored, never proof)
 *   sent    the APRS outbox through the TNC (tx.ts), the SVCB1 beacon and
 *           NODES broadcasts (broadcasts.ts), and the station's own position, status and
 *           telemetry (own-beacons.ts) on their schedules
 *   status  each port in GET /api/ports; counter samples every minute
 *
 * Nothing goes on the air unless RADIO_CALL (for APRS lines: their source)
 * is a callsign verified on this instance.
 */
import type { Core } from "../core/core.ts";
import { tcpConnect } from "../lib/net/tcp.ts";
import { ingestLines } from "../stations/ingest.ts";
import { heardOnRf } from "../stations/igate.ts";
import { registerPort } from "../stations/ports.ts";
import { isDiskFull, reportDiskFull } from "../core/store/disk-full.ts";
import { isVerifiedCall, Transmitter } from "./tx.ts";
import { noteHeard, sampleCounters } from "./heard.ts";
import { isEcho, noteSent } from "./echoes.ts";
import { runLocalBox } from "./local-box.ts";
import { startDigipeater } from "./digipeater.ts";
import { ownBeaconsTick, registerOwnBeacons } from "./own-beacons.ts";
import { radioSender, setSender as setPlaySender } from "../radio-play/senders.ts";
import { clockPaused } from "../system/clock-sanity.ts";
import { answerAx25 } from "../bbs/ax25-answer.ts";
import { radioOnlyPeers, serveCircuit, syncOverRadio } from "./sync.ts";
import { bestRoute, nodeCall, noteNodes } from "./netrom.ts";
import { radioMayTransmit, radioOf, setRadio, type GatewayRadio } from "./running-radio.ts";
import { broadcastNodes, sendBeacon } from "./broadcasts.ts";
import { applyBeacon, isBeacon } from "../fed/beacon.ts";
import { instanceSigner } from "../fed/feed.ts";
import {
  formatAddress,
  formatTnc2,
  isNodesFrame,
  NetRomNode,
  parseAddressLoose,
  PID_NONE,
  Radio,
  type Ax25Frame,
  type Clock,
  type KissPortConfig,
  type LinkParams,
  type PortDriver,
  type PortStatus,
} from "../../radio/index.ts";

export interface RadioStartOptions {
  /** ports to use instead of KISS_PORTS (a simulated channel in benchmarks) */
  ports?: readonly (KissPortConfig | PortDriver)[];
  /** the data link's clock (virtual time in benchmarks) */
  clock?: Clock;
  /** data-link parameters (paclen, window, timers) instead of the defaults */
  link?: Partial<LinkParams>;
  /** how often the transmitter looks at the outbox, ms */
  txPollMs?: number;
}

/** The calls our stations answer to besides RADIO_CALL: the NET/ROM node's, the BBS's (BBS_AX25_CALL). */
function extraCalls(gw: Core): string[] {
  const c = gw.config;
  const node = c.nodeAlias ? (c.nodeCall ?? c.radioCall) : null;
  return [node, c.bbsAx25Call].filter((x): x is string => !!x && x !== c.radioCall);
}

const STATE: Record<PortStatus["state"], string> = { connected: "up", connecting: "connecting", waiting: "down", idle: "idle", closed: "off" };

/** Starts the radio once per gateway (no ports: nothing to start). Stops with the gateway. */
export function startRadio(gw: Core, opts: RadioStartOptions = {}): GatewayRadio | null {
  const existing = radioOf(gw);
  if (existing) return existing;
  const ports = opts.ports ?? gw.config.kissPorts;
  if (!ports.length) return null;
  const bbsAt = gw.config.bbsAx25Call;
  const radio = new Radio({
    ports,
    call: gw.config.radioCall,
    extraCalls: extraCalls(gw),
    clock: opts.clock,
    link: opts.link,
    // a TCP TNC through the host's connect (Bun.connect; node:net on the Node host)
    port: { connect: tcpConnect },
    // answering a connection is transmitting: only with a verified RADIO_CALL (and BBS_AX25_CALL)
    accept: (local) => radioMayTransmit(gw) && (formatAddress(local) !== bbsAt || isVerifiedCall(gw, bbsAt)),
    log: (level, message, data) => gw.log[level]("radio", message, data),
  });
  const tx = new Transmitter(gw, radio);
  // frames heard whole but not stored (a full disk), per port: GET /api/ports shows them
  const notStored = new Map<string, number>();
  const offs: Array<() => void> = [];
  // answers to players' message commands go out through the same transmitter (src/radio-play/)
  offs.push(setPlaySender(gw, "rf", radioSender(tx)));
  const nodeAt = nodeCall(gw);
  const netrom = nodeAt
    ? new NetRomNode({
        call: nodeAt,
        alias: gw.config.nodeAlias!,
        clock: opts.clock,
        route: (dest) => {
          const r = bestRoute(gw, formatAddress(dest));
          const n = r && parseAddressLoose(r.neighbour);
          return n?.ok ? { neighbour: n.value, port: r!.port || undefined } : null;
        },
        link: (neighbour, port) => radio.connect(neighbour, { from: nodeAt, port: port && radio.ports.some((p) => p.id === port) ? port : undefined }),
        log: (m) => gw.log.info("netrom", m),
      })
    : null;
  // circuits to the node carry SVCL1 too
  if (netrom) offs.push(netrom.listen((c) => serveCircuit(gw, c)));
  offs.push(
    radio.onMonitor((e, port) =>
      e.dir === "rx" ? safely(gw, notStored, "mheard", () => noteHeard(gw, port, e.frame, gw.clock.now())) : noteSent(gw, e.frame, gw.clock.now()),
    ),
  );
  offs.push(radio.onUi((f, port) => safely(gw, notStored, "receive", () => heardUi(gw, f, port), port)));
  // the digipeater (DIGIPEAT) hears after the receive above, through the same write gate in
  // order: what it repeats is remembered as sent (echoes.ts), and ingest takes the frame first
  const digi = startDigipeater(gw, (f, port) => tx.sendFrame(f, port));
  offs.push(() => digi.stop());
  const repeater = digi.digipeater;
  if (repeater) offs.push(radio.onUi((f, port) => safely(gw, notStored, "digipeat", () => repeater.heard(f, port))));
  // connections to this station (accepted only while RADIO_CALL is verified): to the node's
  // call, a neighbour node's link for NET/ROM traffic; to BBS_AX25_CALL, a partner BBS
  // forwarding; to any other call, SVCL1 sync
  offs.push(
    radio.listen((link) => {
      const local = formatAddress(link.local);
      if (netrom && local === nodeAt) return netrom.attach(link);
      if (bbsAt && local === bbsAt)
        return void answerAx25(gw, link).catch((e) => gw.log.error("bbs", `forwarding session with ${link.peer} failed`, { error: String(e) }));
      serveCircuit(gw, link);
    }),
  );
  for (const p of radio.ports) {
    const kind = "transport" in p.port ? `kiss-${(p.port as { transport: { kind: string } }).transport.kind}` : "radio";
    offs.push(
      registerPort(gw, p.id, () => {
        const s = p.port.status();
        return {
          ...s,
          name: p.id,
          kind: s.kind === "sim" ? "sim" : kind,
          state: STATE[s.state],
          portState: s.state,
          rx: s.framesIn,
          tx: s.framesOut,
          // frames heard whole but not stored (a full disk): the log says why
          notStored: notStored.get(p.id) ?? 0,
          call: gw.config.radioCall,
          transmit: radioMayTransmit(gw),
        };
      }),
    );
  }
  let boxBusy = false;
  const timer = setInterval(() => {
    safely(gw, notStored, "transmit", () => tx.tick());
    if (boxBusy) return;
    boxBusy = true;
    safely(gw, notStored, "local box", () => runLocalBox(gw, gr).finally(() => (boxBusy = false)));
  }, opts.txPollMs ?? 2000);
  (timer as { unref?: () => void }).unref?.();
  const gr: GatewayRadio = {
    radio,
    tx,
    netrom,
    schedule: { beaconAt: null, nodesAt: null, syncAt: null },
    digipeater: repeater,
    counterSamples: new Map(),
    notStored,
    pulls: Promise.resolve(),
    beacons: { positionAt: null, statusAt: null, telemetryAt: null, definitionsAt: null, seq: 0, sent: 0, last: null },
    async stop() {
      clearInterval(timer);
      netrom?.stop();
      for (const off of offs) off();
      setRadio(gw, null);
      await radio.stop();
    },
  };
  setRadio(gw, gr);
  offs.push(registerOwnBeacons(gw, gr));
  radio.start();
  gw.onStop(() => gr.stop());
  gw.log.info(
    "radio",
    `radio on ${radio.ports.map((p) => p.id).join(", ")}${gw.config.radioCall ? ` as ${gw.config.radioCall}` : " (receive only: RADIO_CALL is not set)"}`,
  );
  return gr;
}

/**
 * Runs the radio's work through the store's write gate (it waits out a RESTART
 * checkpoint); logs what fails. A frame heard on `port` that a full disk kept
 * out of the store is counted for the port (notStored in /api/ports), and the
 * log says so once a minute rather than once a frame.
 */
function safely(gw: Core, notStored: Map<string, number>, what: string, fn: () => unknown, port?: string) {
  const failed = (e: unknown) => {
    if (!isDiskFull(e)) return gw.log.error("radio", `${what} failed`, { error: String(e) });
    if (port !== undefined) notStored.set(port, (notStored.get(port) ?? 0) + 1);
    reportDiskFull(gw.log, gw.config.dataDir, `radio ${what}${port ? ` on ${port}` : ""}: frames heard are not stored`);
  };
  try {
    const r = gw.writeGate.run(fn);
    if (r instanceof Promise) r.catch(failed);
  } catch (e) {
    failed(e);
  }
}

/** A UI frame heard on `port`. */
function heardUi(gw: Core, f: Ax25Frame, port: string): unknown {
  if (isNodesFrame(f)) return noteNodes(gw, port, f);
  if (isBeacon(f.info))
    return applyBeacon(gw, f.info).then(
      (r) => gw.log.info("radio", `beacon from ${r.origin} heard: ${r.outcome}`),
      (e) => gw.log.info("radio", `a beacon heard from ${formatAddress(f.src)} was not applied: ${(e as Error).message}`),
    );
  if (f.pid === PID_NONE) {
    const line = formatTnc2(f);
    // v1 C bits and odd reserved bits are APRS like any (tnc2.ts); a gap in the H bits is not
    if (!line.ok) return;
    // our own transmission repeated by a digipeater: stored, but proves nothing (echoes.ts)
    const now = gw.clock.now();
    const echo = isEcho(gw, f, now);
    ingestLines(gw, [line.value], { source: "rf", heardAt: now, echo });
    // the iGate: up to APRS-IS with qAR (src/stations/igate.ts)
    heardOnRf(gw, line.value, echo, radioOf(gw)?.tx ?? null);
  }
  return;
}

// a clock stepped back past `last` (NTP) makes it due, rather than not until the clock catches up
const due = (last: number | null, intervalMin: number, now: number) => intervalMin > 0 && (last === null || now < last || now - last >= intervalMin * 60_000);

/**
 * The per-minute radio task: counter samples, and whatever scheduled work is
 * due. A radio sync runs in the background (it can take minutes on the air);
 * the next is due RADIO_SYNC_INTERVAL_MIN after the last one started.
 */
export async function radioTick(gw: Core): Promise<Record<string, unknown>> {
  const gr = radioOf(gw);
  if (!gr) return { skipped: "no radio ports" };
  const now = gw.clock.now();
  const out: Record<string, unknown> = { samples: sampleCounters(gw, gr.radio.status(), gr.counterSamples) };
  // a beacon is a signed, dated record: none while the clock is not set (system/clock-sanity.ts)
  if (due(gr.schedule.beaconAt, gw.config.fedBeaconIntervalMin, now) && radioMayTransmit(gw) && instanceSigner(gw) && !clockPaused(gw)) {
    const b = sendBeacon(gw, gr);
    if (b) {
      gr.schedule.beaconAt = now;
      out.beacon = b;
    }
  }
  // the station's own position, status and telemetry (STATION_BEACON)
  try {
    const own = ownBeaconsTick(gw, gr);
    if (own) out.station = own;
  } catch (e) {
    gw.log.error("radio", "own beacons failed", { error: String(e) });
  }
  if (gr.netrom && due(gr.schedule.nodesAt, gw.config.nodesIntervalMin, now) && radioMayTransmit(gw)) {
    const sent = broadcastNodes(gw, gr);
    if (sent) {
      gr.schedule.nodesAt = now;
      out.nodes = sent;
    }
  }
  if (due(gr.schedule.syncAt, gw.config.radioSyncIntervalMin, now) && radioMayTransmit(gw)) {
    gr.schedule.syncAt = now;
    const peers = radioOnlyPeers(gw).map((p) => p.instance);
    out.sync = peers;
    for (const p of peers) void syncOverRadio(gw, p);
  }
  return out;
}
