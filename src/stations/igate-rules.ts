/**
 * The iGate's rules as pure functions: a frame heard on RF in, the line for
 * APRS-IS or the reason it is not gated out; a line from APRS-IS in, the
 * third-party information field for RF or the reason it stays off the air.
 * The state they need (what was heard where, what was gated) is asked as
 * facts; src/stations/igate.ts keeps it. Rules: aprs-is.net/IGateDetails.aspx
 * and IGating.aspx, q constructs aprs-is.net/q.aspx, third-party format
 * APRS 1.01 chapter 17; Direwolf's and aprx's iGates as references.
 *
 *   rfToIs({ src: "N0X-9", dst: "APRS", path: ["WIDE1*"], info: "!..." }, { igate: "N0GW-10", echo: false })
 *     -> { gate: "N0X-9>APRS,WIDE1*,qAR,N0GW-10:!..." }
 */
import { splitLine, type Header } from "../hub/qconstruct.ts";

/** Why a frame heard on RF did not go up to APRS-IS. */
export type RfDropReason =
  /** TCPIP, TCPXX, NOGATE or RFONLY in the path (the frame's, or a third-party frame's inner one) */
  | "no-gate-path"
  /** a third-party frame whose inner header says it came from the internet (TCPIP/TCPXX) */
  | "third-party-internet"
  /** a third-party frame whose inner packet is not `SRC>DST,PATH:info` */
  | "third-party-malformed"
  /** our own transmission heard back (src/radio-node/echoes.ts) */
  | "own-echo"
  /** a general query (`?APRS?`, `?IGATE?`, ...): answered on RF, never gated */
  | "query"
  /** nothing left of the information field once cut at its first CR, LF or NUL */
  | "empty"
  /** the same source, destination and information went up within the dedup window (igate.ts) */
  | "duplicate"
  /** the header is not an APRS-IS header (igate.ts: formatTnc2 refused it) */
  | "malformed"
  /** no verified APRS-IS login to send it on (igate.ts) */
  | "uplink-down";

export type RfDecision = { gate: string; header: Header } | { drop: RfDropReason; query?: "APRS" | "IGATE" };

/** Path words no iGate gates to APRS-IS. */
const NO_GATE = /^(TCPIP|TCPXX|NOGATE|RFONLY)\*?$/i;
const INTERNET = /^(TCPIP|TCPXX)\*?$/i;

/** The information field as APRS-IS carries it: cut at the first CR or LF (the receive-only iGate rule), or NUL (no APRS-IS line carries one). */
function cutInfo(info: string): string {
  const i = info.search(/[\r\n\0]/);
  return i < 0 ? info : info.slice(0, i);
}

/**
 * What becomes of an APRS frame heard on our radio (as TNC2 pieces: path
 * words with `*` on a used hop). `echo`: we transmitted it ourselves.
 */
export function rfToIs(h: Header, o: { igate: string; echo: boolean }): RfDecision {
  if (o.echo) return { drop: "own-echo" };
  if (h.path.some((w) => NO_GATE.test(w))) return { drop: "no-gate-path" };
  let gated = h;
  if (h.info.startsWith("}")) {
    // third-party: gated by its inner header, the RF header stripped (APRS 1.01 ch. 17)
    const inner = splitLine(cutInfo(h.info.slice(1)));
    if (!inner) return { drop: "third-party-malformed" };
    if (inner.path.some((w) => INTERNET.test(w))) return { drop: "third-party-internet" };
    if (inner.path.some((w) => NO_GATE.test(w) || /^q[A-Z][A-Za-z]$/.test(w))) return { drop: "no-gate-path" };
    gated = inner;
  }
  const info = cutInfo(gated.info);
  if (info.startsWith("?")) {
    const q = /^\?(APRS|IGATE)\?/.exec(info);
    return q ? { drop: "query", query: q[1] as "APRS" | "IGATE" } : { drop: "query" };
  }
  if (!info.length) return { drop: "empty" };
  const header = { ...gated, info };
  return { gate: `${gated.src}>${[gated.dst, ...gated.path, "qAR", o.igate].join(",")}:${info}`, header };
}

/** Why a line from APRS-IS did not go on the air. */
export type IsDropReason =
  /** not `SRC>DST,PATH:info` */
  | "malformed"
  /** qAX, TCPXX, NOGATE or RFONLY in its path */
  | "no-gate-path"
  /** a message to a station not heard directly here in the last 30 minutes */
  | "addressee-not-local"
  /** a message to a station heard on APRS-IS since we last heard it on RF */
  | "addressee-on-aprs-is"
  /** a message from a station heard on our radio: it is local, it needs no gate */
  | "sender-local"
  /** a bulletin, announcement or telemetry definition: never gated */
  | "not-a-message"
  /** neither a message for a local station, the sender's position owed, nor IGATE_TX_FILTER */
  | "not-for-rf"
  /** the same line went on the air within the dedup window (igate.ts) */
  | "duplicate"
  /** RADIO_CALL not verified, no port, or the transmit budget spent (igate.ts, src/radio-node/tx.ts) */
  | "not-verified"
  | "rate-limited"
  | "no-port"
  | "no-radio";

/** What the service knows of the stations a line names. */
export interface IsFacts {
  /** the message's addressee was heard directly on our radio in the last 30 minutes */
  addresseeLocal(call: string): boolean;
  /** ...and heard on APRS-IS (not gated from RF) since then */
  addresseeOnIs(call: string): boolean;
  /** the source was heard on our radio in the last 30 minutes */
  senderLocal(call: string): boolean;
  /** a message from this source went on the air and its next position has not (once per 30 minutes) */
  positionOwed(call: string): boolean;
  /** IGATE_TX_FILTER passes the line */
  filter(h: Header): boolean;
}

export type IsDecision = { tx: string; kind: "message" | "position" | "filter"; header: Header; addressee?: string } | { drop: IsDropReason };

const NO_TX = /^(qAX|TCPXX\*?|NOGATE\*?|RFONLY\*?)$/i;
/** APRS message addressees that are bulletins or announcements (APRS 1.01 ch. 14). */
const BULLETIN = /^(BLN|NWS-|SKY|CWA|BOM)/;
/** Telemetry definitions travel as messages but are not messages (Direwolf leaves them out too). */
const TELEMETRY_DEFS = /^(PARM|UNIT|EQNS|BITS)\./;
/** Data types that carry a position (APRS 1.01 ch. 5): a courtesy position is one of these. */
const POSITION = /^[!=/@'`]/;

/** The third-party information field for RF: `}SRC>DST,TCPIP,RADIO_CALL*:info` (APRS 1.01 ch. 17). */
function thirdParty(h: Header, radioCall: string): string {
  return `}${h.src}>${h.dst},TCPIP,${radioCall}*:${h.info}`;
}

/** What becomes of a line received from APRS-IS when IGATE_TX is on. */
export function isToRf(line: string, radioCall: string, facts: IsFacts): IsDecision {
  const h = splitIsLine(line);
  if (!h) return { drop: "malformed" };
  if (h.path.some((w) => NO_TX.test(w))) return { drop: "no-gate-path" };
  const info = h.info;
  if (info.startsWith(":") && info.length >= 11 && info[10] === ":") {
    const addressee = info.slice(1, 10).trim().toUpperCase();
    const body = info.slice(11);
    if (BULLETIN.test(addressee) || TELEMETRY_DEFS.test(body)) return facts.filter(h) ? out(h, radioCall, "filter") : { drop: "not-a-message" };
    if (!facts.addresseeLocal(addressee)) return facts.filter(h) ? out(h, radioCall, "filter") : { drop: "addressee-not-local" };
    if (facts.addresseeOnIs(addressee)) return { drop: "addressee-on-aprs-is" };
    if (facts.senderLocal(h.src)) return { drop: "sender-local" };
    return { ...out(h, radioCall, "message"), addressee };
  }
  if (POSITION.test(info) && facts.positionOwed(h.src.toUpperCase())) return out(h, radioCall, "position");
  return facts.filter(h) ? out(h, radioCall, "filter") : { drop: "not-for-rf" };
}

const out = (h: Header, radioCall: string, kind: "message" | "position" | "filter") => ({ tx: thirdParty(h, radioCall), kind, header: h });

/**
 * `SRC>DST,PATH:info` as APRS-IS servers send it: sources that are not
 * AX.25 addresses (`WHO-IS`), server names in the path (`T2TOKYO3`,
 * `N5JXS-F1`). The path is dropped when it goes on RF, so it is only read.
 */
export function splitIsLine(line: string): Header | null {
  const colon = line.indexOf(":");
  const gt = line.indexOf(">");
  if (gt < 1 || colon < gt + 2) return null;
  const src = line.slice(0, gt);
  const [dst, ...path] = line.slice(gt + 1, colon).split(",");
  if (!/^[A-Za-z0-9-]{1,9}$/.test(src) || !dst || !/^[A-Za-z0-9-]{1,9}$/.test(dst) || path.some((w) => !/^[A-Za-z0-9-]{1,12}\*?$/.test(w))) return null;
  return { src, dst, path, info: line.slice(colon + 1) };
}

/**
 * How many digipeaters a frame heard on RF went through, from its path:
 * used hops that name a station, or one for a used generic alias alone
 * (`WIDE1*`, an untraced digipeater). A WIDE1-1 fill-in leaves `N0DIG*`
 * (Direwolf) or `N0DIG,WIDE1*` (aprx): one hop either way.
 */
export function usedHops(path: readonly string[]): number {
  const last = path.findLastIndex((w) => w.endsWith("*"));
  if (last < 0) return 0;
  const used = path.slice(0, last + 1).map((w) => w.replace(/\*$/, ""));
  const named = used.filter((w) => !/^(WIDE|TRACE|RELAY|TEMP)\d?(-\d+)?$/i.test(w)).length;
  return Math.max(1, named);
}
