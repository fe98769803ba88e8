/**
 * The two ways a radio player's answer goes out, set by whoever holds them:
 * the radio (src/radio-node/radio.ts) sets "rf", the station's transmitter (RADIO_CALL
 * verified, a token from RADIO_TX_PER_MINUTE, remembered as sent for
 * echoes.ts by the radio's monitor); the APRS-IS uplink (src/stations/aprsis.ts)
 * sets "aprsis" while its login is verified, within its own budget. Nothing
 * here imports either, so the Workers host carries none of them.
 */
import type { Core } from "../core/core.ts";
import type { Transmitter } from "../radio-node/tx.ts";
import { parseTnc2 } from "../../radio/index.ts";
import type { Path } from "./route.ts";

/** What became of a line: sent, held back by a budget (try again later), or refused for good. */
export type SendResult = "sent" | "rate-limited" | "refused";
export type Send = (line: string) => SendResult;

declare module "../core/services.ts" {
  interface Services {
    /** who sends a radio player's answer on each path, while they can */
    playSenders: Partial<Record<Path, Send>>;
  }
}

/** Sets (or with null clears) a path's sender; returns the function that clears it. */
export function setSender(gw: Core, path: Path, send: Send | null): () => void {
  const m = gw.services.playSenders;
  if (send) m[path] = send;
  else delete m[path];
  return () => {
    if (m[path] === send) delete m[path];
  };
}

export function senderOf(gw: Core, path: Path): Send | null {
  return gw.services.playSenders[path] ?? null;
}

/** The radio's sender: a TNC2 line (RADIO_PATH already in it) as a UI frame through the station's transmitter. */
export function radioSender(tx: Transmitter): Send {
  return (line) => {
    const r = parseTnc2(line);
    if (!r.ok) return "refused";
    const out = tx.sendFrame(r.value);
    // no port up now: later, like an empty budget (the queue gives up after a while)
    return out === "sent" ? "sent" : out === "not-verified" ? "refused" : "rate-limited";
  };
}
