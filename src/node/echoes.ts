/**
 * What this station put on the air, remembered for a while: a digipeater
 * repeats our frames, and the radio hears them again. Such an echo is our own
 * transmission (for anyone: our beacons, the outbox's lines, a KISS client's
 * frames), so it proves nothing about its source: it is stored as a packet
 * like any other, but never answers a callsign challenge nor corroborates a
 * find (the ingest pipeline stores it with `via: "echo"` and proof `relayed`).
 *
 * A frame heard matches when its source, destination and information field
 * are those of a UI frame we sent within ECHO_MS, whatever its path says (the
 * digipeater rewrote it). Bounded: at most ECHO_MAX frames, the oldest first
 * out.
 */
import type { Core } from "../gateway.ts";
import { formatAddress, type Ax25Frame } from "../../radio/index.ts";

/** How long a frame we sent is remembered (digipeaters repeat within seconds; slow multi-hop paths within a minute or two). */
export const ECHO_MS = 10 * 60_000;
/** How many frames are remembered at most. */
export const ECHO_MAX = 4096;

const memories = new WeakMap<Core, Map<string, number>>();

const latin1 = new TextDecoder("latin1");
const keyOf = (f: Ax25Frame) => `${formatAddress(f.src)}>${formatAddress(f.dest)}:${latin1.decode(f.info)}`;

function memory(gw: Core): Map<string, number> {
  let m = memories.get(gw);
  if (!m) memories.set(gw, (m = new Map()));
  return m;
}

/** Remembers a frame this station transmitted (UI frames: the only ones heard back as APRS or beacons). */
export function noteSent(gw: Core, f: Ax25Frame, at: number): void {
  if (f.type !== "UI") return;
  const m = memory(gw);
  const k = keyOf(f);
  m.delete(k); // re-inserted: the newest go last
  m.set(k, at);
  while (m.size > ECHO_MAX) m.delete(m.keys().next().value!);
}

/** Whether a frame heard now is one we sent within ECHO_MS. */
export function isEcho(gw: Core, f: Ax25Frame, now: number): boolean {
  const m = memories.get(gw);
  if (!m || f.type !== "UI") return false;
  const at = m.get(keyOf(f));
  if (at === undefined) return false;
  if (Math.abs(now - at) <= ECHO_MS) return true;
  m.delete(keyOf(f));
  return false;
}
