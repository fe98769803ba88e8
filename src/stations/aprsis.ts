/**
 * The APRS-IS client: logs in to APRSIS_SERVER as APRSIS_CALL (passcode
 * computed) with APRSIS_FILTER, feeds every line it receives to the ingest
 * pipeline in small batches, and reconnects with exponential back-off
 * (1 s doubling to 5 min) when the connection drops, is refused, or goes
 * quiet (servers send a `#` keep-alive every 20 s). Its state shows in
 * GET /api/ports as the port "aprs-is".
 */
import type { Socket } from "bun";
import type { Gateway } from "../gateway.ts";
import { aprsIsPasscode } from "../aprs/index.ts";
import { buildInfo } from "../version.ts";
import { ingestLines } from "./ingest.ts";
import { registerPort } from "./ports.ts";

export const BACKOFF_MIN_MS = 1000;
export const BACKOFF_MAX_MS = 300_000;
/** No line at all for this long means the link is dead. */
export const IDLE_MS = 120_000;
const FLUSH_MS = 200;
const FLUSH_LINES = 500;

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
  reconnects: number;
  nextRetryAt: number | null;
  lastError: string | null;
}

export interface AprsIsClient {
  status(): AprsIsStatus;
  stop(): void;
}

const clients = new WeakMap<Gateway, AprsIsClient>();

/** Starts the client when APRSIS_SERVER is set (once per gateway); stops with the gateway. */
export function startAprsIs(gw: Gateway): AprsIsClient | null {
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
    reconnects: 0,
    nextRetryAt: null,
    lastError: null,
  };
  registerPort(gw, "aprs-is", () => ({ ...st }));
  if (!server) return null;
  if (!call) {
    st.lastError = "APRSIS_SERVER is set but neither APRSIS_CALL nor FED_APRS_CALL names a callsign to log in as";
    gw.log.warn("aprs-is", st.lastError);
    return null;
  }
  if (clients.has(gw)) return clients.get(gw)!;

  let stopped = false;
  let socket: Socket<undefined> | null = null;
  let backoff = BACKOFF_MIN_MS;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let idleTimer: ReturnType<typeof setInterval> | null = null;
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  let partial = new Uint8Array(0);
  let pending: Uint8Array[] = [];

  const flush = () => {
    flushTimer = null;
    if (pending.length === 0 || stopped) return;
    const batch = pending;
    pending = [];
    try {
      ingestLines(gw, batch, { source: "aprsis" });
    } catch (e) {
      gw.log.error("aprs-is", "ingest failed", { error: String(e) });
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
      }
      return;
    }
    st.rx++;
    pending.push(bytes);
    if (pending.length >= FLUSH_LINES) flush();
    else flushTimer ??= setTimeout(flush, FLUSH_MS);
  };

  const onData = (data: Uint8Array) => {
    let buf = partial.length ? concat(partial, data) : data;
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

  const closeSocket = () => {
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
    Bun.connect({
      hostname: server.host,
      port: server.port,
      socket: {
        open(s) {
          socket = s;
          st.connectedAt = gw.clock.now();
          st.lastRxAt = gw.clock.now();
          const filter = gw.config.aprsIsFilter ? ` filter ${gw.config.aprsIsFilter}` : "";
          s.write(`user ${call} pass ${aprsIsPasscode(call)} vers svc-gateway ${buildInfo().version}${filter}\r\n`);
          idleTimer = setInterval(() => {
            if (gw.clock.now() - (st.lastRxAt ?? 0) > IDLE_MS) {
              closeSocket();
              scheduleRetry(`nothing heard for ${IDLE_MS / 1000} s`);
            }
          }, Math.min(IDLE_MS / 4, 10_000));
        },
        data(_s, data) {
          onData(data);
        },
        close() {
          if (socket || st.state !== "down") {
            socket = null;
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
  clients.set(gw, client);
  // Stop before the gateway closes its database.
  gw.onStop(() => client.stop());
  setTimeout(connect, 0);
  return client;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
