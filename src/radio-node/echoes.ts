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
 * out. The radio box transmits for us too: the outbox lines it leases
 * (GET /outbox) are remembered as sent, and the lines it posts back as heard
 * are checked the same way (noteSentLine, isEchoLine).
 */
import type { Core } from "../core/core.ts";
import { formatAddress, type Ax25Frame } from "../../radio/index.ts";

/** How long a frame we sent is remembered (digipeaters repeat within seconds; slow multi-hop paths within a minute or two). */
const ECHO_MS = 10 * 60_000;
/** How many frames are remembered at most. */
const ECHO_MAX = 4096;

declare module "../core/services.ts" {
  interface Services {
    /** frames this station sent lately, to know them when a digipeater repeats them back */
    echoes: Map<string, number>;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const latin1 = new TextDecoder("latin1");
/** The information field as the ingest pipeline reads it: UTF-8 when it is, else latin1. */
function text(info: Uint8Array): string {
  try {
    return utf8.decode(info);
  } catch {
    return latin1.decode(info);
  }
}
const key = (src: string, dst: string, info: string) => `${src.toUpperCase()}>${dst.toUpperCase()}:${info}`;
const keyOf = (f: Ax25Frame) => key(formatAddress(f.src), formatAddress(f.dest), text(f.info));

/** Source, destination and information of a TNC2 line, or null. */
function lineKey(line: string): string | null {
  const gt = line.indexOf(">");
  const colon = line.indexOf(":");
  if (gt <= 0 || colon < gt) return null;
  const header = line.slice(gt + 1, colon);
  const comma = header.indexOf(",");
  return key(line.slice(0, gt), comma >= 0 ? header.slice(0, comma) : header, line.slice(colon + 1));
}

const memory = (gw: Core): Map<string, number> => gw.services.echoes;

function remember(gw: Core, k: string, at: number): void {
  const m = memory(gw);
  m.delete(k); // re-inserted: the newest go last
  m.set(k, at);
  while (m.size > ECHO_MAX) m.delete(m.keys().next().value!);
}

function seen(gw: Core, k: string, now: number): boolean {
  const m = memory(gw);
  const at = m.get(k);
  if (at === undefined) return false;
  if (Math.abs(now - at) <= ECHO_MS) return true;
  m.delete(k);
  return false;
}

/** Remembers a frame this station transmitted (UI frames: the only ones heard back as APRS or beacons). */
export function noteSent(gw: Core, f: Ax25Frame, at: number): void {
  if (f.type === "UI") remember(gw, keyOf(f), at);
}

/** Remembers a TNC2 line handed to a transmitter elsewhere (the radio box leasing the outbox). */
export function noteSentLine(gw: Core, line: string, at: number): void {
  const k = lineKey(line);
  if (k) remember(gw, k, at);
}

/** Whether a frame heard now is one we sent within ECHO_MS. */
export function isEcho(gw: Core, f: Ax25Frame, now: number): boolean {
  return f.type === "UI" && seen(gw, keyOf(f), now);
}

/** Whether a heard packet (source, destination, information) is one we had sent within ECHO_MS. */
export function isEchoLine(gw: Core, src: string, dst: string, info: string, at: number): boolean {
  return memory(gw).size > 0 && seen(gw, key(src, dst, info), at);
}
