/**
 * The radio as the gateway sees it: the configured KISS ports (KISS_PORTS),
 * one AX.25 station per port under RADIO_CALL, and one place to listen,
 * transmit and read port status from.
 *
 *   const radio = new Radio({ ports: config.kissPorts, call: config.radioCall }).start();
 *   radio.onUi((frame, port) => ...);          // APRS, NODES, beacons heard
 *   radio.status();                            // for /api/ports
 *   const link = await radio.connect("N0PEER-5");
 */
import type { Ax25Address } from "./address.ts";
import type { Clock } from "./clock.ts";
import { RadioError } from "./errors.ts";
import type { Ax25Frame } from "./frame.ts";
import type { Ax25Link, LinkParams } from "./link.ts";
import type { KissPortConfig } from "./port/config.ts";
import type { FrameIo, KissPortOptions, LogFn, PortStatus } from "./port/kiss-port.ts";
import { openKissPort } from "./port/open.ts";
import { Ax25Station, type ConnectOptions, type MonitorEvent, type StationOptions } from "./station.ts";

/**
 * What the radio needs of a port: AX.25 frames in and out, its status, and
 * start/close. A KissPort (TCP or serial TNC) is one; a simulated channel's
 * port (sim.ts `simPort`) is another.
 */
export interface PortDriver extends FrameIo {
  readonly id: string;
  start(): unknown;
  close(): Promise<void>;
  status(): PortStatus;
  /** Counts a frame the station could not decode. */
  noteError(message: string): void;
  /** Resolves once frames can flow. */
  whenConnected(timeoutMs?: number): Promise<void>;
}

export interface RadioOptions {
  /** Configured TNCs (KISS_PORTS), or ready-made port drivers. */
  ports: readonly (KissPortConfig | PortDriver)[];
  /** RADIO_CALL; null = receive only. */
  call: string | null;
  /** More calls the stations answer to (e.g. a node's call). */
  extraCalls?: string[];
  link?: Partial<LinkParams>;
  /** Radio bit rate and TXDELAY, for the data link's airtime estimates. */
  baud?: number;
  txDelayMs?: number;
  port?: KissPortOptions;
  /** Asked before accepting a connection (see StationOptions.accept). */
  accept?: StationOptions["accept"];
  clock?: Clock;
  log?: LogFn;
}

export interface RadioPort {
  id: string;
  port: PortDriver;
  station: Ax25Station;
}

export class Radio {
  readonly ports: RadioPort[];
  /** The calls every port's station answers to: RADIO_CALL first, then the extra calls. */
  readonly calls: readonly string[];

  constructor(opts: RadioOptions) {
    const calls = [...(opts.call ? [opts.call] : []), ...(opts.extraCalls ?? [])];
    this.calls = calls;
    this.ports = opts.ports.map((cfg) => {
      const port: PortDriver = "kind" in cfg ? openKissPort(cfg, { log: opts.log, ...opts.port }) : cfg;
      const station = new Ax25Station(port, {
        calls,
        clock: opts.clock,
        link: opts.link,
        baud: opts.baud,
        txDelayMs: opts.txDelayMs,
        onBadFrame: (e) => port.noteError(e.message),
        accept: opts.accept,
      });
      return { id: port.id, port, station };
    });
  }

  start(): this {
    for (const p of this.ports) p.port.start();
    return this;
  }

  /** Every port's state and counters. */
  status(): PortStatus[] {
    return this.ports.map((p) => p.port.status());
  }

  /** Every UI frame heard on any port. */
  onUi(cb: (frame: Ax25Frame, port: string) => void): () => void {
    const offs = this.ports.map((p) => p.station.onUi((f) => cb(f, p.id)));
    return () => offs.forEach((o) => o());
  }

  /** Every frame heard or sent on any port. */
  onMonitor(cb: (e: MonitorEvent, port: string) => void): () => void {
    const offs = this.ports.map((p) => p.station.onMonitor((e) => cb(e, p.id)));
    return () => offs.forEach((o) => o());
  }

  /** Accepts connections on every port. */
  listen(cb: (link: Ax25Link, port: string) => void): () => void {
    const offs = this.ports.map((p) => p.station.listen((l) => cb(l, p.id)));
    return () => offs.forEach((o) => o());
  }

  /** Sends a UI frame on one port, or on every connected port; returns how many took it. */
  sendUi(opts: Parameters<Ax25Station["sendUi"]>[0] & { port?: string }): number {
    let n = 0;
    for (const p of this.pick(opts.port)) if (p.port.status().connected && p.station.sendUi(opts)) n++;
    return n;
  }

  /** Sends a frame as is (any type, any source) on one port, or on every connected port; returns how many took it. */
  transmit(frame: Ax25Frame, port?: string): number {
    let n = 0;
    for (const p of this.pick(port)) if (p.port.status().connected && p.station.transmit(frame)) n++;
    return n;
  }

  /** Connects on the given port, or the first connected one. */
  connect(remote: string | Ax25Address, opts: ConnectOptions & { port?: string } = {}): Promise<Ax25Link> {
    const p = this.pick(opts.port).find((x) => x.port.status().connected);
    if (!p) return Promise.reject(new RadioError("config-bad-port", opts.port ? `radio port ${opts.port} is not connected` : "no radio port is connected"));
    return p.station.connect(remote, opts);
  }

  async stop(): Promise<void> {
    for (const p of this.ports) p.station.stop();
    await Promise.all(this.ports.map((p) => p.port.close()));
  }

  private pick(id?: string): RadioPort[] {
    if (id === undefined) return this.ports;
    const p = this.ports.find((x) => x.id === id);
    if (!p) throw new RadioError("config-bad-port", `no radio port ${id}`);
    return [p];
  }
}
