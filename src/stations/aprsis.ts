/**
 * The APRS-IS client: logs in to APRSIS_SERVER as APRSIS_CALL (passcode
 * computed) with APRSIS_FILTER, feeds every line it receives to the ingest
 * pipeline in small batches, and reconnects with exponential back-off
 * (1 s doubling to 5 min) when the connection drops, is refused, or goes
 * quiet (servers send a `#` keep-alive every 20 s). Its state shows in
 * GET /api/ports as the port "aprs-is".
 *
 * It also transmits: once the server answers the login `verified` (and unless
 * APRSIS_TX=false), it leases due lines from the APRS outbox as "aprs-is",
 * like the ingest box and the local TNC do, and sends them, so a verified
 * user's message reaches APRS-IS (and the IGates that gate it to RF) and the
 * addressee's ack settles it. Only lines whose source's base call was
 * verified by an account on this instance, or is the login's own, go out;
 * others fail with the reason. At most TX_PER_MINUTE lines a minute: a
 * flooding login gets dropped by the servers, and lines past the budget
 * stay queued for the next minute or another transmitter.
 *
 * The iGate (src/stations/igate.ts) uses the same login: with IGATE, frames
 * our radio heard go up on it once it is verified (outside that budget: an
 * iGate's lines are what APRS-IS is for); with IGATE_TX, each line received
 * is offered to the radio as well as to the ingest pipeline.
 */
import type { Socket } from "bun";
import type { Core } from "../core/core.ts";
import { tcpConnect } from "../lib/net/tcp.ts";
import { concatBytes } from "../lib/net/bytes.ts";
import { aprsIsPasscode } from "../lib/aprs/index.ts";
import { buildInfo } from "../lib/version.ts";
import { baseCall } from "../lib/callsign.ts";
import { ingestLines } from "./ingest.ts";
import { registerPort } from "./ports.ts";
import { deferLeased, leaseDue, reportSent } from "./outbox.ts";
import { isVerifiedCall, TokenBucket } from "../radio-node/tx.ts";
import { radioOf } from "../radio-node/running-radio.ts";
import { fromAprsIs, igateStatus, setUplink } from "./igate.ts";
import { setSender as setPlaySender, type SendResult } from "../radio-play/senders.ts";

const BACKOFF_MIN_MS = 1000;
const BACKOFF_MAX_MS = 300_000;
/** No line at all for this long means the link is dead. */
const IDLE_MS = 120_000;
const FLUSH_MS = 200;
const FLUSH_LINES = 500;
/** Lines sent to APRS-IS per minute, at most. */
const TX_PER_MINUTE = 30;
/** How often the client looks for due lines. */
const TX_POLL_MS = 1000;
/** Bytes of iGate lines held while the socket is slow; past this, lines are dropped (counted as uplink-down). */
const MAX_UNSENT = 64 * 1024;
/**
 * Lines written this long before the server dropped us are written again
 * after the next login: the kernel took them, but a server that was closing
 * may never have read them. APRS-IS servers drop a line they saw in the last
 * 30 s (the dupe check), so one that did arrive goes no further; none is
 * written again once the drop is older than RESEND_WITHIN_MS.
 */
const RESEND_WINDOW_MS = 3000;
const RESEND_WITHIN_MS = 20_000;

export interface AprsIsStatus {
  name: "aprs-is";
  kind: "aprs-is";
  state: "connecting" | "up" | "down" | "off";
  server: string | null;
  call: string | null;
  filter: string | null;
  verified: boolean;
  connectedAt: number | null;
  lastRxAt: number | null;
  rx: number;
  /** lines sent to APRS-IS, and refused (source not verified here) */
  tx: number;
  txRefused: number;
  /** sending: APRSIS_TX and a verified login */
  transmitting: boolean;
  reconnects: number;
  nextRetryAt: number | null;
  lastError: string | null;
}

export interface AprsIsClient {
  status(): AprsIsStatus;
  stop(): void;
}

/** Starts the client when APRSIS_SERVER is set (a serving gateway starts it once: src/hosts/gateway.ts); stops with the gateway. */
export function startAprsIs(gw: Core): AprsIsClient | null {
  const server = gw.config.aprsIsServer;
  const call = gw.config.aprsIsCall ?? gw.config.fedAprsCall;
  const st: AprsIsStatus = {
    name: "aprs-is",
    kind: "aprs-is",
    state: "off",
    server: server ? `${server.host}:${server.port}` : null,
    call,
    filter: gw.config.aprsIsFilter,
    verified: false,
    connectedAt: null,
    lastRxAt: null,
    rx: 0,
    tx: 0,
    txRefused: 0,
    transmitting: false,
    reconnects: 0,
    nextRetryAt: null,
    lastError: null,
  };
  // the iGate (IGATE, IGATE_TX) reports with the login it gates through
  registerPort(gw, "aprs-is", () => ({ ...st, igate: igateStatus(gw) }));
  if (!server) {
    if (gw.config.igate || gw.config.igateTx) gw.log.warn("aprs-is", "IGATE/IGATE_TX are on but APRSIS_SERVER is not set: nothing is gated");
    return null;
  }
  if (!call) {
    st.lastError = "APRSIS_SERVER is set but neither APRSIS_CALL nor FED_APRS_CALL names a callsign to log in as";
    gw.log.warn("aprs-is", st.lastError);
    return null;
  }

  let stopped = false;
  let socket: Socket<undefined> | null = null;
  let backoff = BACKOFF_MIN_MS;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let idleTimer: ReturnType<typeof setInterval> | null = null;
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  let partial = new Uint8Array(0);
  let pending: Uint8Array[] = [];
  let txTimer: ReturnType<typeof setInterval> | null = null;
  const bucket = new TokenBucket(TX_PER_MINUTE, gw.clock.now());
  const loginBase = baseCall(call);

  // Bytes the socket has not taken yet (TCP back-pressure); nothing new is sent until they are.
  let unsent: Uint8Array | null = null;
  const writeOut = (s: Socket<undefined>) => {
    if (!unsent) return;
    const n = s.write(unsent);
    unsent = n >= unsent.length ? null : n > 0 ? unsent.subarray(n) : unsent;
  };
  /** Lines written lately on this connection, and those to write again after a drop (RESEND_WINDOW_MS). */
  let recent: Array<{ bytes: Uint8Array; at: number }> = [];
  let resend: { lines: Uint8Array[]; droppedAt: number } | null = null;
  const put = (s: Socket<undefined>, bytes: Uint8Array) => {
    const now = gw.clock.now();
    recent = recent.filter((r) => now - r.at < RESEND_WINDOW_MS);
    recent.push({ bytes, at: now });
    unsent = unsent ? concatBytes([unsent, bytes]) : bytes;
    writeOut(s);
  };
  /** On a drop: keep what may not have been read (and what the socket had not taken yet). */
  const keepForResend = () => {
    const now = gw.clock.now();
    const lines = recent.filter((r) => now - r.at < RESEND_WINDOW_MS).map((r) => r.bytes);
    recent = [];
    if (lines.length) resend = { lines, droppedAt: now };
  };

  /** The iGate's lines (RF to APRS-IS): queued behind what the socket has not taken, up to MAX_UNSENT bytes. */
  const sendLine = (bytes: Uint8Array): boolean => {
    const s = socket;
    if (stopped || !s || !st.verified) return false;
    if (unsent) {
      if (unsent.length + bytes.length > MAX_UNSENT) return false;
    }
    put(s, bytes);
    return true;
  };

  /** Sends what is due, within the budget; hands lines back when the link is gone. */
  const transmit = () => {
    if (stopped || !socket || !st.transmitting || unsent) return;
    const room = bucket.available(gw.clock.now());
    if (room < 1) return;
    const items = leaseDue(gw, { by: "aprs-is", limit: room });
    if (!items.length) return;
    const sent: number[] = [];
    const failed: Array<{ id: number; error: string }> = [];
    for (const item of items) {
      const src = item.line.slice(0, item.line.indexOf(">"));
      if (baseCall(src) !== loginBase && !isVerifiedCall(gw, src)) {
        st.txRefused++;
        failed.push({ id: item.id, error: `${src} is not a verified callsign on this instance` });
        continue;
      }
      const s = socket;
      if (!s || unsent || !bucket.take(gw.clock.now())) {
        deferLeased(gw, item.id, gw.clock.now());
        continue;
      }
      put(s, new TextEncoder().encode(item.line + "\r\n"));
      st.tx++;
      sent.push(item.id);
    }
    if (sent.length || failed.length) reportSent(gw, { sent, failed });
  };

  /** A radio player's answer (src/radio-play/): one line of ours, within the outbox's budget, under the same source rule. */
  const playSend = (line: string): SendResult => {
    const src = line.slice(0, line.indexOf(">"));
    if (baseCall(src) !== loginBase && !isVerifiedCall(gw, src)) return "refused";
    const s = socket;
    if (stopped || !s || !st.transmitting || unsent || !bucket.take(gw.clock.now())) return "rate-limited";
    put(s, new TextEncoder().encode(line + "\r\n"));
    st.tx++;
    return "sent";
  };

  const flush = () => {
    flushTimer = null;
    if (pending.length === 0 || stopped) return;
    const batch = pending;
    pending = [];
    const failed = (e: unknown) => gw.log.error("aprs-is", "ingest failed", { error: String(e) });
    try {
      // through the store's write gate: a RESTART checkpoint holds the batch, in order, rather than SQLite's busy handler
      const r = gw.writeGate.run(() => ingestLines(gw, batch, { source: "aprsis" }));
      if (r instanceof Promise) r.catch(failed);
    } catch (e) {
      failed(e);
    }
  };

  const onLine = (bytes: Uint8Array) => {
    st.lastRxAt = gw.clock.now();
    if (bytes[0] === 35 /* # */) {
      const text = new TextDecoder().decode(bytes);
      const m = /^# logresp \S+ (verified|unverified)/.exec(text);
      if (m) {
        st.verified = m[1] === "verified";
        st.state = "up";
        backoff = BACKOFF_MIN_MS;
        st.transmitting = st.verified && gw.config.aprsIsTx;
        const again = resend;
        resend = null;
        if (st.verified && again && gw.clock.now() - again.droppedAt < RESEND_WITHIN_MS && socket) for (const bytes of again.lines) put(socket, bytes);
        // the iGate gates up only on a login the server verified
        setUplink(gw, st.verified && gw.config.igate ? sendLine : null);
        setPlaySender(gw, "aprsis", st.transmitting ? playSend : null);
        // leasing and settling outbox lines are writes: through the store's write gate too
        if (st.transmitting)
          txTimer ??= setInterval(() => {
            const r = gw.writeGate.run(transmit);
            if (r instanceof Promise) r.catch((e) => gw.log.error("aprs-is", "sending failed", { error: String(e) }));
          }, TX_POLL_MS);
      }
      return;
    }
    st.rx++;
    try {
      // the iGate: messages for local stations go on the air (src/stations/igate.ts)
      fromAprsIs(gw, bytes, radioOf(gw)?.tx ?? null);
    } catch (e) {
      gw.log.error("aprs-is", "iGate to RF failed", { error: String(e) });
    }
    pending.push(bytes);
    if (pending.length >= FLUSH_LINES) flush();
    else flushTimer ??= setTimeout(flush, FLUSH_MS);
  };

  const onData = (data: Uint8Array) => {
    const buf = partial.length ? concatBytes([partial, data]) : data;
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      if (buf[i] === 10) {
        let end = i;
        if (end > start && buf[end - 1] === 13) end--;
        if (end > start) onLine(buf.slice(start, end));
        start = i + 1;
      }
    }
    partial = buf.slice(start);
    if (partial.length > 4096) partial = new Uint8Array(0); // no line is this long
  };

  const scheduleRetry = (why: string) => {
    if (stopped || retryTimer) return;
    st.state = "down";
    st.lastError = why;
    st.nextRetryAt = gw.clock.now() + backoff;
    gw.log.warn("aprs-is", `${st.server}: ${why}; retrying in ${Math.round(backoff / 1000)} s`);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      st.reconnects++;
      connect();
    }, backoff);
    backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
  };

  const stopTx = () => {
    setUplink(gw, null);
    setPlaySender(gw, "aprsis", null);
    st.transmitting = false;
    if (txTimer) clearInterval(txTimer);
    txTimer = null;
  };

  const closeSocket = () => {
    stopTx();
    keepForResend();
    unsent = null;
    if (idleTimer) clearInterval(idleTimer);
    idleTimer = null;
    const s = socket;
    socket = null;
    s?.end();
  };

  const connect = () => {
    if (stopped) return;
    st.state = "connecting";
    st.nextRetryAt = null;
    partial = new Uint8Array(0);
    tcpConnect({
      hostname: server.host,
      port: server.port,
      socket: {
        open(s) {
          socket = s;
          st.connectedAt = gw.clock.now();
          st.lastRxAt = gw.clock.now();
          const filter = gw.config.aprsIsFilter ? ` filter ${gw.config.aprsIsFilter}` : "";
          s.write(`user ${call} pass ${aprsIsPasscode(call)} vers svc-gateway ${buildInfo().version}${filter}\r\n`);
          idleTimer = setInterval(
            () => {
              if (gw.clock.now() - (st.lastRxAt ?? 0) > IDLE_MS) {
                closeSocket();
                scheduleRetry(`nothing heard for ${IDLE_MS / 1000} s`);
              }
            },
            Math.min(IDLE_MS / 4, 10_000),
          );
        },
        data(_s, data) {
          onData(data);
        },
        drain(s) {
          writeOut(s);
        },
        close() {
          if (socket || st.state !== "down") {
            socket = null;
            keepForResend();
            unsent = null;
            stopTx();
            if (idleTimer) clearInterval(idleTimer);
            idleTimer = null;
            flush();
            scheduleRetry("the server closed the connection");
          }
        },
        error(_s, e) {
          scheduleRetry(`connection error: ${e.message}`);
        },
        connectError(_s, e) {
          scheduleRetry(`cannot connect: ${e.message}`);
        },
      },
    }).catch((e: Error) => scheduleRetry(`cannot connect: ${e.message}`));
  };

  const client: AprsIsClient = {
    status: () => ({ ...st }),
    stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      closeSocket();
      st.state = "off";
    },
  };
  // Stop before the gateway closes its database.
  gw.onStop(() => client.stop());
  setTimeout(connect, 0);
  return client;
}
