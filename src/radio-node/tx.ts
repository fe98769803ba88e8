/**
 * The local TNC as a transmitter of the APRS outbox (the same queue the
 * ingest box leases from with GET /outbox): it leases due lines as "tnc",
 * puts them on the air as UI frames and reports them sent; messages are then
 * retried by the outbox until their ack is heard.
 *
 * Politeness (docs/operating.md "Radio"):
 *   - only lines whose source is a callsign verified on this instance go out;
 *     others fail with "not a verified callsign";
 *   - every frame takes a token from one bucket of RADIO_TX_PER_MINUTE tokens,
 *     refilled continuously: nothing is leased while the bucket is empty, so the
 *     ingest box (or a later tick) takes the line instead;
 *   - the same station's position or weather goes out at most once every
 *     RADIO_BEACON_MIN_S seconds: an earlier one is handed back, due then;
 *   - the path is RADIO_PATH whatever the line says (outbox lines are written
 *     for APRS-IS with TCPIP*).
 */
import type { Core } from "../core/core.ts";
import { verifiedHolder } from "../accounts/users.ts";
import { deferLeased, leaseDue, reportSent, type OutboxItem } from "../stations/outbox.ts";
import { formatAddress, parseTnc2, type Ax25Frame, type Radio } from "../../radio/index.ts";

/** Whether `call` may transmit: some account on this instance verified its base call. */
export function isVerifiedCall(gw: Core, call: string | null | undefined): boolean {
  return !!call && verifiedHolder(gw.db, call) !== null;
}

/** What became of a frame handed to Transmitter.sendFrame. */
export type FrameTxResult = "sent" | "not-verified" | "rate-limited" | "no-port";

export interface TxStats {
  sent: number;
  refused: number;
  deferred: number;
  lastTxAt: number | null;
}

export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private perMinute: number,
    now: number,
  ) {
    this.tokens = perMinute;
    this.at = now;
  }

  /** Whole tokens available now. */
  available(now: number): number {
    // a clock that went back refills nothing
    this.tokens = Math.min(this.perMinute, this.tokens + (Math.max(0, now - this.at) * this.perMinute) / 60_000);
    this.at = now;
    return Math.floor(this.tokens);
  }

  /** Takes one token if there is one. */
  take(now: number): boolean {
    if (this.available(now) < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export class Transmitter {
  readonly stats: TxStats = { sent: 0, refused: 0, deferred: 0, lastTxAt: null };
  readonly bucket: TokenBucket;
  /** when each station's last position or weather went out */
  private lastBeacon = new Map<string, number>();

  constructor(
    private gw: Core,
    private radio: Radio,
  ) {
    this.bucket = new TokenBucket(gw.config.radioTxPerMinute, gw.clock.now());
  }

  /**
   * Puts a ready-made frame (a local program's, through the KISS server; an
   * IGate's third-party message) on the air under the same rules as the
   * outbox: RADIO_CALL verified, a token from the one bucket. `port` picks a
   * radio port, else every connected port.
   */
  sendFrame(frame: Ax25Frame, port?: string): FrameTxResult {
    const now = this.gw.clock.now();
    if (!isVerifiedCall(this.gw, this.gw.config.radioCall)) {
      this.stats.refused++;
      return "not-verified";
    }
    // a frame no port can carry takes no token
    if (!this.radio.ports.some((p) => (port === undefined || p.id === port) && p.port.status().connected)) return "no-port";
    if (!this.bucket.take(now)) {
      this.stats.deferred++;
      return "rate-limited";
    }
    if (this.radio.transmit(frame, port) === 0) return "no-port";
    this.stats.sent++;
    this.stats.lastTxAt = now;
    return "sent";
  }

  private connected(): boolean {
    return this.radio.ports.some((p) => p.port.status().connected);
  }

  /** One pass: lease what the bucket allows, transmit, report. Returns how many went out. */
  tick(): number {
    let total = 0;
    // lines refused or held back take no token: lease again for the room left
    for (let round = 0; round < 10; round++) {
      if (!this.connected()) break;
      const room = this.bucket.available(this.gw.clock.now());
      if (room < 1) break;
      const items = leaseDue(this.gw, { by: "tnc", limit: room });
      if (!items.length) break;
      total += this.transmit(items);
    }
    return total;
  }

  private transmit(items: OutboxItem[]): number {
    const gw = this.gw;
    const sent: number[] = [];
    const failed: Array<{ id: number; error: string }> = [];
    for (const item of items) {
      const now = gw.clock.now();
      const r = parseTnc2(item.line);
      if (!r.ok) {
        failed.push({ id: item.id, error: `not a TNC2 line: ${r.error.message}` });
        continue;
      }
      const f = r.value;
      const src = formatAddress(f.src);
      if (!isVerifiedCall(gw, src)) {
        this.stats.refused++;
        failed.push({ id: item.id, error: `${src} is not a verified callsign on this instance` });
        continue;
      }
      if (item.kind === "position" || item.kind === "weather") {
        const key = `${item.kind}:${src}`;
        const last = this.lastBeacon.get(key);
        const next = last === undefined ? 0 : last + gw.config.radioBeaconMinS * 1000;
        if (next > now) {
          this.stats.deferred++;
          deferLeased(gw, item.id, next);
          continue;
        }
        this.lastBeacon.set(key, now);
      }
      if (!this.bucket.take(now)) {
        deferLeased(gw, item.id, now);
        continue;
      }
      const n = this.radio.sendUi({ src: f.src, dest: f.dest, via: [...gw.config.radioPath], info: f.info });
      if (n > 0) {
        sent.push(item.id);
        this.stats.sent++;
        this.stats.lastTxAt = now;
      } else failed.push({ id: item.id, error: "no radio port took the frame" });
    }
    if (sent.length || failed.length) reportSent(gw, { sent, failed });
    return sent.length;
  }
}
