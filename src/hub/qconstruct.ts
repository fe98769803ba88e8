/**
 * q constructs (aprs-is.net/q.aspx) for the gateway's APRS-IS server: what a
 * client's upload gets before it enters the gateway, and what a packet heard
 * elsewhere gets before it is served.
 */
import type { GatewayEvents } from "../core/events.ts";

const Q = /^q[A-Z][A-Za-z]$/;

/** The TNC2 header split: source, destination and path elements. */
export interface Header {
  src: string;
  dst: string;
  path: string[];
  info: string;
}

/** Splits `SRC>DST,PATH:info`; null when it is not that shape. */
export function splitLine(line: string): Header | null {
  const colon = line.indexOf(":");
  const gt = line.indexOf(">");
  if (gt < 1 || colon < gt + 2) return null;
  const src = line.slice(0, gt);
  const [dst, ...path] = line.slice(gt + 1, colon).split(",");
  if (!/^[A-Za-z0-9-]{1,9}$/.test(src) || !dst || path.some((h) => !/^[A-Za-z0-9-]{1,9}\*?$/.test(h))) return null;
  return { src, dst, path, info: line.slice(colon + 1) };
}

const join = (h: Header) => `${h.src}>${[h.dst, ...h.path].join(",")}:${h.info}`;

export type UploadResult = { ok: true; line: string; q: string } | { ok: false; why: "unverified" | "loop" | "bad-line" };

/**
 * A line a client sent, with its q construct (bidirectional port rules):
 * unverified logins are not forwarded (qAX); a q construct the client put is
 * kept; `CALL,I` becomes `qAR,CALL`; otherwise qAC,<server> when the source is
 * the login, qAS,<login> when it is not. A line naming this server after its q
 * construct has looped.
 */
export function qForUpload(line: string, c: { login: string; verified: boolean }, server: string): UploadResult {
  const h = splitLine(line);
  if (!h) return { ok: false, why: "bad-line" };
  if (!c.verified) return { ok: false, why: "unverified" };
  const qi = h.path.findIndex((x) => Q.test(x));
  if (qi >= 0) {
    if (h.path.slice(qi + 1).some((x) => x.toUpperCase() === server.toUpperCase())) return { ok: false, why: "loop" };
    return { ok: true, line: join(h), q: h.path[qi]! };
  }
  if (h.path.length >= 2 && h.path[h.path.length - 1] === "I") {
    const igate = h.path[h.path.length - 2]!;
    return { ok: true, line: join({ ...h, path: [...h.path.slice(0, -2), "qAR", igate] }), q: "qAR" };
  }
  const own = h.src.toUpperCase() === c.login.toUpperCase();
  return { ok: true, line: join({ ...h, path: [...h.path, own ? "qAC" : "qAS", own ? server : c.login] }), q: own ? "qAC" : "qAS" };
}

/** Path words an IGate never gates from RF to APRS-IS. */
const NO_GATE = /^(TCPIP|TCPXX|NOGATE|RFONLY)\*?$/i;

/**
 * A packet the gateway stored, as its APRS-IS server serves it: a line that
 * has a q construct goes as it is; one heard on RF (our TNC, or an ingest box
 * that named its IGate) gets qAR,<igate> (qAo when it is our own radio and
 * RADIO_CALL is not verified); any other gets qAS,<server>. RF packets marked
 * NOGATE/RFONLY or already from the internet (TCPIP/TCPXX) are not served.
 */
export function qForServe(e: GatewayEvents["aprsPacket"], server: string, ownIgate: { call: string | null; verified: boolean }): string | null {
  if (/(^|,)q[A-Z][A-Za-z](,|$)/.test(e.path)) return e.line;
  const colon = e.line.indexOf(":");
  if (colon < 0) return null;
  const header = e.line.slice(0, colon);
  const rest = e.line.slice(colon);
  if (e.source === "rf") {
    if (e.path && e.path.split(",").some((h) => NO_GATE.test(h))) return null;
    const igate = e.igate ?? server;
    const q = ownIgate.call && igate === ownIgate.call && !ownIgate.verified ? "qAo" : "qAR";
    return `${header},${q},${igate}${rest}`;
  }
  return `${header},qAS,${server}${rest}`;
}
