/**
 * SVCL1: connected-mode sync over a circuit (an AX.25 link or a NET/ROM
 * circuit; radio/circuit.ts), the line protocol of SPEC "Connected-mode sync
 * over AX.25 and NET/ROM circuits" with the details docs/protocol.md "SVCL1"
 * fixes:
 *
 *   server  SVCL1 H <b64(cbor caps)>          greets as soon as the circuit is up
 *   client  SVCL1 H <b64(cbor caps)>          both ends intersect (caps.ts)
 *   client  SVCL1 R <b64(cbor {type, since, limit})>
 *   server  SVCL1 P <b64(page)>               one page per request (deflateDict1 if negotiated)
 *   either  SVCL1 E <text>                    a problem with a line
 *
 * The server clamps `limit` to the negotiated batch and halves it until the
 * P line fits the negotiated mtu (the session line budget). The client hands
 * each page to its own gateway's frame intake (applyPage, the function behind
 * POST /federation/frames) with the feed cursor committed in the same
 * transaction, tombstones first.
 *
 *   const report = await pullSvcl1(gw, circuit, { peer: "gw2", caps, transport: "ax25" });
 *   radio.listen((link) => serveSvcl1(gw, link, { caps }));
 */
import type { Core } from "../../core/core.ts";
import { AppError } from "../../lib/errors.ts";
import { applyPage, type ApplyReport } from "../apply.ts";
import { CapsError, decodeCaps, encodeCaps, intersectCaps, type LinkCaps, type NegotiatedLink } from "../../lib/fed/caps.ts";
import { CborError, decodeCbor, encodeCbor, type CborValue } from "../../lib/fed/cbor.ts";
import { compressPage, decompressPage } from "../../lib/fed/compress.ts";
import { instanceSigner, readFeed } from "../feed.ts";
import { decodePage, encodePage } from "../../lib/fed/page.ts";
import { RECORD_TYPES, RecordError, SYNC_KINDS, type SyncKind } from "../../lib/fed/record.ts";
import { addReport, cursorOf, PULL_ORDER, setCursor, type FeedReport } from "../sync.ts";
import { getPeer } from "../peers.ts";
import { LineReader, LineTooLong, systemClock, type Circuit, type Clock, type TimerHandle } from "../../../radio/index.ts";

export const SVCL1 = "SVCL1";
/** Longest line accepted before the greeting is done (node banners, the H line). */
const GREETING_LINE_MAX = 1024;
/** Non-SVCL1 lines (a node's "Connected to" banner) a client skips before the server's H. */
const MAX_BANNER_LINES = 20;
const E_MAX = 200;

class Svcl1Error extends Error {
  override name = "Svcl1Error";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Verb = "H" | "R" | "P" | "E";
interface Line {
  verb: Verb;
  arg: string;
}

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict base64 (standard alphabet, padded): anything else is refused. */
function unb64(s: string): Uint8Array | null {
  if (!B64.test(s)) return null;
  return new Uint8Array(Buffer.from(s, "base64"));
}
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

/** Parses one line; null when it is not an SVCL1 line at all. Throws Svcl1Error for a malformed one. */
function parseLine(bytes: Uint8Array): Line | null {
  for (const c of bytes)
    if (c < 0x20 || c > 0x7e)
      return bytes.length >= 6 && Buffer.from(bytes.subarray(0, 6)).toString("latin1") === "SVCL1 "
        ? bad("bad_line", "an SVCL1 line is printable ASCII")
        : null;
  const s = Buffer.from(bytes).toString("latin1");
  if (!s.startsWith("SVCL1 ")) return null;
  const m = /^SVCL1 ([HRPE]) (.*)$/.exec(s);
  if (!m) return bad("bad_line", `not "SVCL1 H|R|P|E <arg>": ${s.slice(0, 40)}`);
  return { verb: m[1] as Verb, arg: m[2]! };
}

function bad(code: string, message: string): never {
  throw new Svcl1Error(code, message);
}

/** E text: printable ASCII, at most 200 characters. */
function errorText(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, "?").slice(0, E_MAX);
}

/** A circuit read as SVCL1 lines, with a deadline on each wait. */
class Session {
  private reader = new LineReader(GREETING_LINE_MAX);
  private lines: Uint8Array[] = [];
  private failure: Svcl1Error | null = null;
  private waiter: (() => void) | null = null;
  private off: () => void;
  lineBytesIn = 0;
  lineBytesOut = 0;

  constructor(
    readonly circuit: Circuit,
    private clock: Clock,
  ) {
    this.off = circuit.onData((d) => {
      try {
        for (const l of this.reader.push(d)) {
          this.lines.push(l);
          this.lineBytesIn += l.length + 1;
        }
      } catch (e) {
        if (!(e instanceof LineTooLong)) throw e;
        this.failure = new Svcl1Error("line_too_long", `a line longer than the session's ${e.limit} bytes`);
      }
      this.waiter?.();
    });
    void circuit.closed().then(() => this.waiter?.());
  }

  set maxLine(n: number) {
    this.reader.maxLine = n;
  }

  send(verb: Verb, arg: string): void {
    const line = `${SVCL1} ${verb} ${arg}\r`;
    this.lineBytesOut += line.length;
    this.circuit.send(line);
  }

  /** The next line, or a Svcl1Error: closed, too long, or no line within `ms`. */
  next(ms: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      let timer: TimerHandle | null = null;
      const check = () => {
        if (this.lines.length) return done(() => resolve(this.lines.shift()!));
        if (this.failure) return done(() => reject(this.failure));
        if (this.circuit.state === "disconnected") return done(() => reject(new Svcl1Error("closed", `the circuit to ${this.circuit.peer} ended`)));
      };
      const done = (f: () => void) => {
        timer?.cancel();
        this.waiter = null;
        f();
      };
      this.waiter = check;
      timer = this.clock.after(ms, () => done(() => reject(new Svcl1Error("timeout", `nothing from ${this.circuit.peer} for ${Math.round(ms / 1000)} s`))));
      check();
    });
  }

  close(): void {
    this.off();
  }
}

export interface Svcl1Options {
  /** this end's capability set, after operator policy */
  caps: LinkCaps;
  clock?: Clock;
  /** how long to wait for the other end's next line (default 5 min: a page at 1200 baud takes a while) */
  waitMs?: number;
}

/** What a server did in one session. */
export interface ServeReport {
  peer: string;
  link: NegotiatedLink | null;
  pages: number;
  frames: number;
  errors: string[];
  bytesOut: number;
}

/**
 * The page answering one R: clamped to the link's batch, halved until its line
 * fits the mtu. Throws Svcl1Error `too_large` when the first record alone does
 * not fit: a record is never skipped.
 */
export function answerRequest(
  gw: Core,
  link: NegotiatedLink,
  req: { type: SyncKind; since: number; limit: number },
): { line: string; frames: number; limit: number } {
  const type = RECORD_TYPES[req.type];
  let limit = Math.min(req.limit, link.batch);
  for (;;) {
    const feed = readFeed(gw, type, req.since, limit);
    const frames = feed.rows.filter((r) => r.frame).map((r) => r.frame!);
    const line = `${SVCL1} P ${b64(compressPage(encodePage({ frames, next: feed.next, more: feed.more, type, instance: gw.config.instance }), link.compression))}`;
    if (line.length <= link.mtu) return { line, frames: frames.length, limit };
    if (limit > 1) {
      limit = Math.floor(limit / 2);
      continue;
    }
    // One record alone is longer than the session allows. Skipping it would
    // move the client's cursor (which HTTP pulls share) past a record it never
    // got: refuse the page instead, so the cursor stays and a full link carries it.
    const row = feed.rows[0]!;
    bad(
      "too_large",
      `${req.type} record ${row.gid} v${row.v} alone is a ${line.length}-byte line; this link's line budget is ${link.mtu}: not sent, pull it over a full link`,
    );
  }
}

function parseRequest(arg: string, link: NegotiatedLink): { type: SyncKind; since: number; limit: number } {
  const bytes = unb64(arg);
  if (!bytes) bad("bad_request", "R carries base64");
  let v: CborValue;
  try {
    v = decodeCbor(bytes, { maxBytes: 256, maxDepth: 2, textMaps: "object" });
  } catch (e) {
    if (e instanceof CborError) bad("bad_request", `R: ${e.message}`);
    throw e;
  }
  const o = v as Record<string, unknown>;
  if (!o || typeof o !== "object" || Array.isArray(o) || o instanceof Uint8Array || o instanceof Map)
    bad("bad_request", "R carries a map {type, since, limit}");
  if (typeof o.type !== "string" || !(SYNC_KINDS as readonly string[]).includes(o.type)) bad("bad_request", `type must be one of ${SYNC_KINDS.join(", ")}`);
  if (!link.records.includes(RECORD_TYPES[o.type as SyncKind])) bad("not_carried", `this link does not carry ${o.type} records`);
  if (typeof o.since !== "number" || !Number.isSafeInteger(o.since) || o.since < 0) bad("bad_request", "since must be a cursor");
  if (typeof o.limit !== "number" || !Number.isSafeInteger(o.limit) || o.limit < 1) bad("bad_request", "limit must be a whole number ≥ 1");
  return { type: o.type as SyncKind, since: o.since, limit: o.limit };
}

function readCaps(arg: string): LinkCaps {
  const bytes = unb64(arg);
  if (!bytes) bad("bad_caps", "H carries base64");
  try {
    return decodeCaps(bytes);
  } catch (e) {
    if (e instanceof CapsError) bad("bad_caps", e.message);
    throw e;
  }
}

/**
 * Serves one circuit: greets with H, waits for the client's H, then answers
 * each R with a P (or an E) until the client hangs up or stays silent for
 * `waitMs`. A line that cannot be read at all (too long, not SVCL1, no H
 * first) gets an E and the circuit is closed.
 */
export async function serveSvcl1(gw: Core, circuit: Circuit, opts: Svcl1Options): Promise<ServeReport> {
  const s = new Session(circuit, opts.clock ?? systemClock);
  const waitMs = opts.waitMs ?? 300_000;
  const report: ServeReport = { peer: circuit.peer, link: null, pages: 0, frames: 0, errors: [], bytesOut: 0 };
  const fail = (e: Svcl1Error) => {
    report.errors.push(`${e.code}: ${e.message}`);
    if (circuit.state === "connected") s.send("E", errorText(e.message));
  };
  try {
    if (!instanceSigner(gw)) {
      fail(new Svcl1Error("unsigned", "this instance has no signing key: it serves no sync feeds"));
      return report;
    }
    s.send("H", b64(encodeCaps(opts.caps)));
    const h = parseLine(await s.next(waitMs));
    if (!h || h.verb !== "H") bad("no_greeting", "send SVCL1 H <caps> first");
    const link = intersectCaps(opts.caps, readCaps(h.arg));
    report.link = link;
    s.maxLine = Math.max(GREETING_LINE_MAX, link.mtu);
    for (;;) {
      let line: Line | null;
      try {
        line = parseLine(await s.next(waitMs));
      } catch (e) {
        if (e instanceof Svcl1Error && (e.code === "closed" || e.code === "timeout")) return report;
        throw e;
      }
      if (!line) bad("bad_line", "not an SVCL1 line");
      if (line.verb === "E") {
        report.errors.push(`peer: ${line.arg}`);
        continue;
      }
      if (line.verb !== "R") {
        fail(new Svcl1Error("unexpected", `the server expects R, not ${line.verb}`));
        continue;
      }
      try {
        const a = answerRequest(gw, link, parseRequest(line.arg, link));
        circuit.send(a.line + "\r");
        report.bytesOut += a.line.length + 1;
        report.pages++;
        report.frames += a.frames;
      } catch (e) {
        if (e instanceof Svcl1Error) fail(e);
        else if (e instanceof AppError) fail(new Svcl1Error(e.code, e.message));
        else throw e;
      }
    }
  } catch (e) {
    if (!(e instanceof Svcl1Error)) throw e;
    if (e.code !== "closed" && e.code !== "timeout") fail(e);
    return report;
  } finally {
    report.bytesOut += s.lineBytesOut;
    s.close();
    if (circuit.state === "connected") {
      await circuit.drained().catch(() => {});
      await circuit.disconnect().catch(() => {});
    }
  }
}

export interface PullOptions extends Svcl1Options {
  /** the peer whose records the server serves: frames of any other origin are refused */
  peer: string;
  /** recorded with every mirrored row: ax25, netrom */
  transport: string;
  /** feeds to pull (default: every feed the link carries, tombstones first) */
  feeds?: readonly SyncKind[];
}

export interface PullReport {
  peer: string;
  ok: boolean;
  error: { code: string; message: string } | null;
  link: NegotiatedLink | null;
  feeds: Partial<Record<SyncKind, FeedReport>>;
  applied: number;
  received: number;
  /** page bytes as they crossed the circuit (compressed, before base64) */
  bytes: number;
  /** the same pages decompressed */
  rawBytes: number;
}

/**
 * Pulls a peer's feeds over a circuit already connected to it, then hangs
 * up. Never throws for what the peer or the circuit does: it is in the report.
 */
export async function pullSvcl1(gw: Core, circuit: Circuit, opts: PullOptions): Promise<PullReport> {
  const s = new Session(circuit, opts.clock ?? systemClock);
  const waitMs = opts.waitMs ?? 300_000;
  const report: PullReport = { peer: opts.peer, ok: false, error: null, link: null, feeds: {}, applied: 0, received: 0, bytes: 0, rawBytes: 0 };
  try {
    const peer = getPeer(gw, opts.peer);
    if (!peer) bad("unknown_peer", `${opts.peer} is not a peer`);
    if (peer.trust === "blocked") bad("blocked", `${opts.peer} is blocked: never mirrored`);
    // the server speaks first; a node's banner lines come before its H
    let h: Line | null = null;
    for (let i = 0; !h; i++) {
      if (i > MAX_BANNER_LINES) bad("no_greeting", "no SVCL1 greeting from the far end");
      h = parseLine(await s.next(waitMs));
      if (h && h.verb === "E") bad("refused", `the server said: ${h.arg}`);
      if (h && h.verb !== "H") bad("no_greeting", `expected SVCL1 H, got ${h.verb}`);
    }
    const link = intersectCaps(opts.caps, readCaps(h.arg));
    report.link = link;
    s.send("H", b64(encodeCaps(opts.caps)));
    s.maxLine = Math.max(GREETING_LINE_MAX, opts.caps.mtu);
    const feeds = (opts.feeds ?? PULL_ORDER).filter((k) => link.records.includes(RECORD_TYPES[k]));
    const feedErrors: Array<{ code: string; message: string }> = [];
    for (const kind of PULL_ORDER.filter((k) => feeds.includes(k))) {
      const type = RECORD_TYPES[kind];
      const f: FeedReport = (report.feeds[kind] = { pages: 0, received: 0, applied: 0, duplicate: 0, suppressed: 0, quarantined: 0, rejected: 0, bytes: 0 });
      let cursor = cursorOf(gw, peer.id, type);
      for (;;) {
        s.send("R", b64(encodeCbor({ type: kind, since: cursor, limit: link.batch })));
        const line = parseLine(await s.next(waitMs));
        if (!line) bad("bad_line", "not an SVCL1 line");
        if (line.verb === "E") {
          // The server could not answer this page (a record too long for the
          // link, say): this feed stops where its cursor stands, the other
          // feeds are still pulled, and the pull as a whole is not ok.
          feedErrors.push({ code: "server_error", message: `${kind}: ${line.arg}` });
          break;
        }
        if (line.verb !== "P") bad("unexpected", `expected P, got ${line.verb}`);
        const wire = unb64(line.arg);
        if (!wire) bad("bad_page", "P carries base64");
        let pageBytes: Uint8Array;
        let page;
        try {
          pageBytes = decompressPage(wire, link.compression);
          page = decodePage(pageBytes);
        } catch (e) {
          if (e instanceof RecordError) bad("bad_page", e.message);
          throw e;
        }
        if (page.more && page.next <= cursor) bad("bad_page", `${kind} cursor does not advance past ${cursor}`);
        const next = Math.max(cursor, page.next);
        // the frame intake behind POST /federation/frames, with the cursor in the same transaction
        const applied: ApplyReport = await applyPage(gw, pageBytes, {
          via: opts.transport,
          servedBy: opts.peer,
          onCommit: () => setCursor(gw, peer.id, type, next),
        });
        addReport(f, applied, wire.length);
        report.rawBytes += pageBytes.length;
        cursor = next;
        if (!page.more) break;
      }
      report.applied += f.applied;
      report.received += f.received;
      report.bytes += f.bytes;
    }
    report.error = feedErrors[0] ?? null;
    report.ok = feedErrors.length === 0;
  } catch (e) {
    if (!(e instanceof Svcl1Error)) throw e;
    report.error = { code: e.code, message: e.message };
    if (circuit.state === "connected" && !["closed", "refused", "server_error"].includes(e.code)) s.send("E", errorText(e.message));
  } finally {
    s.close();
    if (circuit.state === "connected") {
      await circuit.drained().catch(() => {});
      await circuit.disconnect().catch(() => {});
    }
  }
  return report;
}
