/**
 * The station's digipeater (DIGIPEAT = off | fill-in | wide): the decision is
 * radio/digipeat.ts's (a pure function of the frame); this is the part with
 * state, one per gateway:
 *
 *   duplicates  the same source, destination and information within 30 s is
 *               repeated once: what we repeated, and what we heard another
 *               digipeater repeat (a copy with an H bit set), both count
 *   echoes      our own frames heard back (echoes.ts) are never repeated; what
 *               we repeat is remembered as sent there (the radio's monitor)
 *   viscous     with DIGIPEAT_VISCOUS_S, a frame is held that long and goes
 *               out only if no other digipeater repeated it meanwhile
 *   budget      every repeat goes through the station's transmitter
 *               (Transmitter.sendFrame): nothing while RADIO_CALL is not
 *               verified, and one token of RADIO_TX_PER_MINUTE each
 *   counters    heard, repeated, dropped by reason, and the last 50 repeated
 *               frames, in GET /api/ports (the `digipeater` entry)
 */
import type { Core } from "../core/core.ts";
import { registerPort } from "../stations/ports.ts";
import { isEcho } from "./echoes.ts";
import { isVerifiedCall, type FrameTxResult } from "./tx.ts";
import { RecentKeys } from "../lib/recent-keys.ts";
import {
  digipeat,
  formatAddress,
  formatTnc2,
  parseAddressLoose,
  type Ax25Address,
  type Ax25Frame,
  type DigipeatDrop,
  type DigipeatMode,
  type DigipeatRules,
} from "../../radio/index.ts";

/** How long the same frame is not repeated again. */
const DUPLICATE_MS = 30_000;
/** How many repeated frames are kept for the Radio page. */
export const RECENT_MAX = 50;
/** Most frames remembered for the duplicate window (a flood evicts the oldest). */
const SEEN_MAX = 8192;

/** Why a frame heard was not repeated. */
export type DigipeatDropReason = Exclude<DigipeatDrop, "off"> | "duplicate" | "budget" | "unverified" | "no-port";
const REASONS: readonly DigipeatDropReason[] = [
  "duplicate",
  "used-up",
  "too-many-hops",
  "not-for-us",
  "echo",
  "budget",
  "unverified",
  "no-port",
  "not-ui",
  "malformed",
];

/** A frame we repeated: when, on which port, as heard and as sent (TNC2 text). */
export interface RepeatedFrame {
  at: number;
  port: string;
  heard: string;
  sent: string;
}

export interface DigipeaterStatus {
  mode: DigipeatMode;
  call: string | null;
  aliases: string[];
  maxHops: number;
  viscousS: number;
  /** UI frames the digipeater looked at */
  heard: number;
  repeated: number;
  dropped: Record<DigipeatDropReason, number>;
  /** frames waiting out the viscous delay now */
  held: number;
  /** the last RECENT_MAX repeated frames, newest first */
  recent: RepeatedFrame[];
}

export interface DigipeaterOptions {
  mode: DigipeatMode;
  call: string;
  aliases: readonly string[];
  maxHops: number;
  viscousS: number;
  /** puts a frame on the air on `port` (the station's Transmitter.sendFrame) */
  send: (frame: Ax25Frame, port: string) => FrameTxResult;
}

const latin1 = new TextDecoder("latin1");
const keyOf = (f: Ax25Frame) => `${formatAddress(f.src)}>${formatAddress(f.dest)}:${latin1.decode(f.info)}`;
const text = (f: Ax25Frame) => {
  const t = formatTnc2(f);
  return t.ok ? latin1.decode(t.value) : `${formatAddress(f.src)}>${formatAddress(f.dest)} (not APRS)`;
};
const address = (s: string): Ax25Address => {
  const a = parseAddressLoose(s);
  if (!a.ok) throw a.error;
  return a.value;
};

export class Digipeater {
  readonly rules: DigipeatRules;
  private readonly tally = { heard: 0, repeated: 0, dropped: Object.fromEntries(REASONS.map((r) => [r, 0])) as Record<DigipeatDropReason, number> };
  /** key -> when it was last repeated, by us or by a digipeater we heard */
  private seen = new RecentKeys(SEEN_MAX / 2, DUPLICATE_MS);
  private holding = new Map<string, ReturnType<typeof setTimeout>>();
  /** newest first; as TNC2 text only when asked (status) */
  private recent: Array<{ at: number; port: string; heard: Ax25Frame; sent: Ax25Frame }> = [];

  constructor(
    private gw: Core,
    private opts: DigipeaterOptions,
  ) {
    this.rules = { mode: opts.mode, call: address(opts.call), aliases: opts.aliases.map(address), maxHops: opts.maxHops };
  }

  /** A UI frame heard on `port`. */
  heard(f: Ax25Frame, port: string): void {
    if (this.rules.mode === "off") return;
    const now = this.gw.clock.now();
    this.tally.heard++;
    const d = digipeat(f, this.rules);
    const copy = f.path.some((x) => x.repeated);
    // most frames are not for us and no digipeater's copy: nothing to remember
    if (!d.repeat && !copy) return this.drop(d.reason as DigipeatDropReason);
    const k = keyOf(f);
    const duplicate = this.holding.has(k) || this.within(k, now);
    // a copy another digipeater repeated counts for the window, once we have decided on it
    if (copy) this.note(k, now);
    if (!d.repeat) return this.drop(d.reason as DigipeatDropReason);
    if (duplicate) return this.drop("duplicate");
    if (isEcho(this.gw, f, now)) return this.drop("echo");
    if (this.opts.viscousS <= 0) return this.transmit(f, d.frame, port, k);
    const heldAt = now;
    const t = setTimeout(() => {
      this.holding.delete(k);
      // another digipeater repeated it meanwhile: not needed
      if ((this.lastSeen(k) ?? Number.NEGATIVE_INFINITY) >= heldAt) return this.drop("duplicate");
      this.transmit(f, d.frame, port, k);
    }, this.opts.viscousS * 1000);
    (t as { unref?: () => void }).unref?.();
    this.holding.set(k, t);
  }

  /** The counters alone (for telemetry): cheaper than status(). */
  counts(): { heard: number; repeated: number; dropped: Record<DigipeatDropReason, number> } {
    return { heard: this.tally.heard, repeated: this.tally.repeated, dropped: { ...this.tally.dropped } };
  }

  status(): DigipeaterStatus {
    return {
      mode: this.rules.mode,
      call: this.opts.call,
      aliases: this.rules.aliases.map(formatAddress),
      maxHops: this.rules.maxHops,
      viscousS: this.opts.viscousS,
      heard: this.tally.heard,
      repeated: this.tally.repeated,
      dropped: { ...this.tally.dropped },
      held: this.holding.size,
      recent: this.recent.map((r) => ({ at: r.at, port: r.port, heard: text(r.heard), sent: text(r.sent) })),
    };
  }

  stop(): void {
    for (const t of this.holding.values()) clearTimeout(t);
    this.holding.clear();
  }

  private transmit(heard: Ax25Frame, out: Ax25Frame, port: string, k: string): void {
    const r = this.opts.send(out, port);
    if (r !== "sent") return this.drop(r === "not-verified" ? "unverified" : r === "rate-limited" ? "budget" : "no-port");
    const now = this.gw.clock.now();
    this.tally.repeated++;
    this.note(k, now);
    this.recent.unshift({ at: now, port, heard, sent: out });
    if (this.recent.length > RECENT_MAX) this.recent.length = RECENT_MAX;
  }

  private drop(reason: DigipeatDropReason): void {
    this.tally.dropped[reason]++;
  }

  private lastSeen(k: string): number | undefined {
    return this.seen.get(k);
  }

  private within(k: string, now: number): boolean {
    const at = this.lastSeen(k);
    return at !== undefined && Math.abs(now - at) < DUPLICATE_MS;
  }

  private note(k: string, now: number): void {
    this.seen.set(k, now);
  }
}

const idle = () => ({
  mode: "off" as const,
  aliases: [],
  heard: 0,
  repeated: 0,
  dropped: Object.fromEntries(REASONS.map((r) => [r, 0])) as Record<DigipeatDropReason, number>,
  held: 0,
  recent: [],
});

/**
 * Starts the digipeater of a running radio (DIGIPEAT, with RADIO_CALL) and
 * lists it in GET /api/ports; with DIGIPEAT off, only the entry saying so.
 * Returns it (the running radio holds it) and what stops it.
 */
export function startDigipeater(gw: Core, send: DigipeaterOptions["send"]): { digipeater: Digipeater | null; stop(): void } {
  const c = gw.config;
  const digi =
    c.digipeat !== "off" && c.radioCall
      ? new Digipeater(gw, { mode: c.digipeat, call: c.radioCall, aliases: c.digipeatAliases, maxHops: c.digipeatMaxHops, viscousS: c.digipeatViscousS, send })
      : null;
  const off = registerPort(gw, "digipeater", () => {
    const transmit = isVerifiedCall(gw, c.radioCall);
    const s = digi?.status();
    return {
      name: "digipeater",
      kind: "digipeater",
      // down: on, but nothing goes on the air while RADIO_CALL is not verified
      state: !digi ? "off" : transmit ? "up" : "down",
      transmit,
      rx: s?.heard ?? 0,
      tx: s?.repeated ?? 0,
      ...(s ?? { ...idle(), call: c.radioCall, maxHops: c.digipeatMaxHops, viscousS: c.digipeatViscousS }),
    };
  });
  return {
    digipeater: digi,
    stop() {
      off();
      digi?.stop();
    },
  };
}
