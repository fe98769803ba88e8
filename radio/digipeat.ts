/**
 * The digipeater's decision, New-N paradigm, as Direwolf 1.6 makes it (its
 * DIGIPEAT with TRACE, checked against it on the air: test/radio-node/digipeater-direwolf.test.ts):
 * a pure function of a frame heard and our rules, giving the frame to
 * transmit or the reason it is not repeated. Everything with state (the
 * duplicate window, the viscous delay, the transmit budget) is the caller's.
 *
 * Only the first hop not yet repeated counts (H bit clear):
 *   - our own call:   marked repeated                 N0CALL-10       -> N0CALL-10*
 *   - an alias:       replaced by our call, repeated  RELAY           -> N0CALL-10*
 *   - WIDEn-1:        replaced by our call, repeated  WIDE1-1         -> N0CALL-10*
 *   - WIDEn-N, N > 1: our call inserted before it, N less one
 *                                                     WIDE2-2         -> N0CALL-10*,WIDE2-1
 *     (with 8 digipeaters already, nothing is inserted: WIDE2-2 -> WIDE2-1)
 * `fill-in` takes WIDE1-1 only; `wide` takes WIDEn-N with n up to maxHops.
 * A WIDEn-N asking for more than n hops (WIDE2-5), or n above maxHops, is
 * not repeated. The frame's C bits, PID and reserved bits go out as heard.
 */
import { sameAddress, type Ax25Address } from "./address.ts";
import { MAX_DIGIS, type Ax25Frame, type Digipeater } from "./frame.ts";

export type DigipeatMode = "off" | "fill-in" | "wide";
export const DIGIPEAT_MODES: readonly DigipeatMode[] = ["off", "fill-in", "wide"];

export interface DigipeatRules {
  mode: DigipeatMode;
  /** Our call (RADIO_CALL): what goes into the path. */
  call: Ax25Address;
  /** More calls we repeat for (DIGIPEAT_ALIASES), replaced by our call. */
  aliases: readonly Ax25Address[];
  /** The largest n of a WIDEn-N we repeat in `wide` mode (DIGIPEAT_MAX_HOPS). */
  maxHops: number;
}

/**
 * Why a frame is not repeated, as far as the frame alone says:
 *   off            the digipeater is off
 *   not-ui         not a UI frame
 *   echo           our own frame (our call is its source)
 *   not-for-us     no path, or its next hop is not our call, an alias or a WIDEn-N we take
 *   used-up        every hop of its path has repeated it
 *   too-many-hops  WIDEn-N with n above our limit, or N above n
 *   malformed      H bits with a gap (a hop repeated after one that was not)
 */
export type DigipeatDrop = "off" | "not-ui" | "echo" | "not-for-us" | "used-up" | "too-many-hops" | "malformed";

export type DigipeatDecision = { repeat: true; frame: Ax25Frame } | { repeat: false; reason: DigipeatDrop };

const WIDE = /^WIDE([1-7])$/;
const drop = (reason: DigipeatDrop): DigipeatDecision => ({ repeat: false, reason });

/** What our digipeater does with a frame heard: the frame to transmit, or why not. Never throws. */
export function digipeat(f: Ax25Frame, rules: DigipeatRules): DigipeatDecision {
  if (rules.mode === "off") return drop("off");
  if (f.type !== "UI") return drop("not-ui");
  if (sameAddress(f.src, rules.call)) return drop("echo");
  const path = f.path;
  if (!path.length) return drop("not-for-us");
  const last = path.findLastIndex((d) => d.repeated);
  for (let i = 0; i < last; i++) if (!path[i]!.repeated) return drop("malformed");
  const at = last + 1;
  if (at >= path.length) return drop("used-up");
  const hop = path[at]!;
  // our call in the hop's place keeps the hop's reserved bits; inserted, it has the usual ones
  const ours = (keep: boolean): Digipeater => ({
    call: rules.call.call,
    ssid: rules.call.ssid,
    ...(keep && hop.rr !== undefined ? { rr: hop.rr } : {}),
    repeated: true,
  });
  const out = (p: Digipeater[]): DigipeatDecision => ({ repeat: true, frame: { ...f, path: p } });
  if (sameAddress(hop, rules.call)) return out(path.map((d, i) => (i === at ? { ...d, repeated: true } : d)));
  if (rules.aliases.some((a) => sameAddress(a, hop))) return out(path.map((d, i) => (i === at ? ours(true) : d)));
  const m = WIDE.exec(hop.call);
  if (!m || hop.ssid === 0) return drop("not-for-us");
  const n = Number(m[1]);
  if (rules.mode === "fill-in" && n !== 1) return drop("not-for-us");
  if (n > (rules.mode === "fill-in" ? 1 : rules.maxHops) || hop.ssid > n) return drop("too-many-hops");
  if (hop.ssid === 1) return out(path.map((d, i) => (i === at ? ours(true) : d)));
  const rest = { ...hop, ssid: hop.ssid - 1, repeated: false };
  if (path.length >= MAX_DIGIS) return out(path.map((d, i) => (i === at ? rest : d)));
  return out([...path.slice(0, at), ours(false), rest, ...path.slice(at + 1)]);
}
