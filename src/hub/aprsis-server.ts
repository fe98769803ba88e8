/**
 * The APRS-IS server (APRSIS_LISTEN): APRSdroid, Xastir, YAAC or an IGate log
 * in as they would to an aprsc server on port 14580 and get what the gateway
 * hears (its radio, the upstream APRS-IS feed, /ingest), each through its own
 * filter (filter.ts).
 *
 *   login     `user CALL pass PASSCODE vers NAME VER [filter ...]` within
 *             APRSIS_LOGIN_TIMEOUT_S (30); answered `# logresp CALL verified|unverified,
 *             server SERVER`. A wrong or missing passcode is read-only.
 *             `#filter ...` later replaces the filter.
 *   served    every packet the ingest pipeline stores (its aprsPacket event),
 *             with a q construct (qconstruct.ts), once per DUPE_MS (same
 *             source, destination and information), to each logged-in client
 *             whose filter passes it, or to whom it is a message: addressed to
 *             the login, or to a station the client gated from RF in the last
 *             HEARD_MS (how an IGate gets the messages to gate back to RF).
 *             Never back to the client that sent it.
 *   uploads   a verified client's lines enter the gateway as heard on APRS-IS
 *             (ingestLines, source aprsis) with their q construct; messages
 *             among them may go on the air under the IGate rule (igate.ts).
 *             Unverified clients' lines are dropped and counted (qAX).
 *   alive     a `#` comment every APRSIS_KEEPALIVE_S (20); a client whose queue passes
 *             CLIENT_QUEUE_BYTES is dropped.
 *   capped    a connection past HUB_CLIENTS_PER_ADDRESS from its address, or
 *             HUB_CLIENTS_MAX in all, gets `# server full: ...` and is closed.
 */
import type { Socket } from "bun";
import type { Core } from "../core/core.ts";
import type { GatewayEvents } from "../core/events.ts";
import { aprsIsPasscode } from "../lib/aprs/passcode.ts";
import { decode } from "../lib/aprs/decode.ts";
import { buildInfo } from "../lib/version.ts";
import { isVerifiedCall } from "../radio-node/tx.ts";
import { ingestLines } from "../stations/ingest.ts";
import { registerPort } from "../stations/ports.ts";
import { clientView, type HubClient, type HubClients } from "./clients.ts";
import type { OutQueue } from "./outq.ts";
import { hostPort, listenForClients } from "./listen.ts";
import { matchFilter, MAX_FILTER_TERMS, MAX_PATTERN_LENGTH, parseFilter, type Filter, type LatLon } from "./filter.ts";
import { qForServe, qForUpload, splitLine } from "./qconstruct.ts";
import { gateToRf } from "./igate.ts";

/** The same source, destination and information within this window is served once. */
const DUPE_MS = 30_000;
/** A station a client gated from RF gets its messages through that client for this long. */
const HEARD_MS = 3 * 3600_000;
const MAX_LINE = 1024;

const MESSAGE_KINDS = new Set(["message", "ack", "rej"]);

interface Conn {
  client: HubClient;
  out: OutQueue;
  socket: Socket<Conn>;
  partial: string;
  loggedIn: boolean;
  filter: Filter | null;
  /** stations this client gated from RF, and when */
  heard: Map<string, number>;
}

export interface AprsIsServerStats {
  /** packets offered by the ingest pipeline, and served once or more */
  offered: number;
  served: number;
  /** packets not served: duplicates within DUPE_MS, RF packets marked NOGATE/RFONLY/TCPIP */
  duplicates: number;
  notGated: number;
  /** lines from clients: taken in, refused because the login is unverified (qAX), refused as bad or looped */
  uploaded: number;
  unverified: number;
  badLines: number;
  /** messages gated to RF, and why others were not */
  gatedToRf: number;
  /** clients dropped for being too slow */
  slowDropped: number;
  /** connections closed at once: HUB_CLIENTS_PER_ADDRESS or HUB_CLIENTS_MAX reached */
  capped: number;
}

export interface AprsIsServer {
  port: number;
  /** the name the server gives itself in logresp and q constructs */
  name: string;
  stats: AprsIsServerStats;
  stop(): void;
}

/** The server's own name: RADIO_CALL's (or FED_APRS_CALL's, APRSIS_CALL's) base call with -GW, else SVCGW. */
export function serverName(gw: Core): string {
  const call = gw.config.radioCall ?? gw.config.fedAprsCall ?? gw.config.aprsIsCall;
  return call ? `${call.split("-")[0]!.toUpperCase()}-GW` : "SVCGW";
}

/** Parses `user CALL pass N vers NAME VER [UDP port] [filter ...]`; null when it is not a login. */
function parseLogin(line: string): { call: string; pass: number | null; software: string | null; filter: string | null } | null {
  const w = line.trim().split(/\s+/);
  if (w[0]?.toLowerCase() !== "user" || !w[1] || !/^[A-Za-z0-9-]{1,9}$/.test(w[1])) return null;
  const out = { call: w[1].toUpperCase(), pass: null as number | null, software: null as string | null, filter: null as string | null };
  for (let i = 2; i < w.length; i++) {
    const k = w[i]!.toLowerCase();
    if (k === "pass") out.pass = /^-?\d{1,6}$/.test(w[i + 1] ?? "") ? Number(w[++i]) : (i++, null);
    else if (k === "vers") {
      out.software = [w[i + 1], w[i + 2]].filter((x) => x && !/^(filter|udp)$/i.test(x)).join(" ") || null;
      i += out.software ? out.software.split(" ").length : 0;
    } else if (k === "udp") i++;
    else if (k === "filter") {
      out.filter = w.slice(i + 1).join(" ") || null;
      break;
    }
  }
  return out;
}

export function startAprsIsServer(gw: Core, at: { host: string; port: number }, clients: HubClients): AprsIsServer | null {
  const name = serverName(gw);
  // messages gated to RF lately, so a client's retry does not go out twice (igate.ts)
  const gated = new Map<string, number>();
  const stats: AprsIsServerStats = {
    offered: 0,
    served: 0,
    duplicates: 0,
    notGated: 0,
    uploaded: 0,
    unverified: 0,
    badLines: 0,
    gatedToRf: 0,
    slowDropped: 0,
    capped: 0,
  };
  const conns = new Set<Conn>();
  const enc = new TextEncoder();
  const dupes = new Map<string, number>();

  const send = (c: Conn, text: string | Uint8Array): boolean => {
    if (c.out.push(typeof text === "string" ? enc.encode(text) : text)) return true;
    c.client.dropped++;
    stats.slowDropped++;
    drop(c, "dropped: its queue is full (too slow)");
    return false;
  };

  const drop = (c: Conn, why: string, quiet = false) => {
    if (!conns.delete(c)) return;
    clients.remove(c.client.id);
    if (!quiet) gw.log.info("hub", `APRS-IS client ${c.client.login ?? c.client.address} ${why}`);
    c.socket.end();
  };

  /** The last known positions of the calls a filter refers to, from the station registry. */
  const loadRefs = (f: Filter) => {
    for (const call of f.refs) {
      const row = gw.db.query("SELECT lat, lon FROM stations WHERE call = ? AND lat IS NOT NULL").get(call) as LatLon | null;
      if (row) f.positions.set(call, { lat: row.lat, lon: row.lon });
    }
  };

  const setFilter = (c: Conn, text: string | null) => {
    c.filter = text ? parseFilter(text, c.client.login ?? "") : null;
    c.client.filter = c.filter?.text ?? null;
    if (!c.filter) return;
    loadRefs(c.filter);
    if (c.filter.unknown.length)
      send(
        c,
        `# filter: ${c.filter.unknown.length} term(s) ignored (not understood, a pattern over ${MAX_PATTERN_LENGTH} characters, or past ${MAX_FILTER_TERMS} terms): ${c.filter.unknown.join(" ")}\r\n`,
      );
  };

  const login = (c: Conn, line: string) => {
    const l = parseLogin(line);
    if (!l) {
      send(c, "# login by user CALL pass PASSCODE vers NAME VERSION [filter ...]\r\n");
      return;
    }
    c.loggedIn = true;
    c.client.login = l.call;
    c.client.verified = l.pass !== null && l.pass >= 0 && l.pass === aprsIsPasscode(l.call);
    c.client.software = l.software;
    send(c, `# logresp ${l.call} ${c.client.verified ? "verified" : "unverified"}, server ${name}\r\n`);
    setFilter(c, l.filter);
    gw.log.info(
      "hub",
      `APRS-IS client ${c.client.address} logged in as ${l.call} (${c.client.verified ? "verified" : "unverified"})${l.software ? `, ${l.software}` : ""}`,
    );
  };

  const upload = (c: Conn, line: string) => {
    const q = qForUpload(line, { login: c.client.login!, verified: c.client.verified }, name);
    if (!q.ok) {
      c.client.refused++;
      if (q.why === "unverified") stats.unverified++;
      else stats.badLines++;
      return;
    }
    c.client.rx++;
    stats.uploaded++;
    const h = splitLine(q.line)!;
    if (q.q === "qAR" || q.q === "qAo" || q.q === "qAr") c.heard.set(h.src.toUpperCase(), gw.clock.now());
    // through the store's write gate: a RESTART checkpoint holds the line, in order, rather than SQLite's busy handler
    const stored = gw.writeGate.run(() => ingestLines(gw, [q.line], { source: "aprsis", origin: c.client.id }));
    if (stored instanceof Promise) stored.catch((e) => gw.log.error("hub", "ingest failed", { error: String(e) }));
    const r = decode(q.line);
    if (gateToRf(gw, h, r.ok ? r.packet : null, gated) === "sent") stats.gatedToRf++;
  };

  const onLine = (c: Conn, line: string) => {
    if (!c.loggedIn) {
      if (!line.startsWith("#")) login(c, line);
      return;
    }
    if (line.startsWith("#")) {
      const m = /^#\s*filter\s*(.*)$/i.exec(line);
      if (m) {
        setFilter(c, m[1]!.trim() || null);
        send(c, `# filter ${c.client.filter ?? ""} is active\r\n`);
      }
      return;
    }
    upload(c, line);
  };

  const onData = (c: Conn, chunk: Uint8Array) => {
    let text = c.partial + new TextDecoder("latin1").decode(chunk);
    let nl: number;
    while ((nl = text.indexOf("\n")) >= 0) {
      const line = text.slice(0, nl).replace(/\r$/, "");
      text = text.slice(nl + 1);
      if (line.length && line.length <= MAX_LINE) onLine(c, line);
      if (!conns.has(c)) return;
    }
    if (text.length > MAX_LINE) {
      drop(c, "dropped: a line longer than 1024 bytes");
      return;
    }
    c.partial = text;
  };

  /** Whether `e` is a message a client should get whatever its filter: to its login, or to a station it gated from RF. */
  const messageFor = (c: Conn, addressee: string, now: number) => {
    if (addressee === c.client.login) return true;
    const at = c.heard.get(addressee);
    return at !== undefined && now - at <= HEARD_MS;
  };

  const serve = (e: GatewayEvents["aprsPacket"]) => {
    stats.offered++;
    if (!conns.size) return;
    const now = gw.clock.now();
    const key = `${e.src}>${e.dst}:${e.info}`;
    const last = dupes.get(key);
    if (last !== undefined && now - last < DUPE_MS) {
      stats.duplicates++;
      return;
    }
    dupes.set(key, now);
    if (dupes.size > 50_000) for (const [k, t] of dupes) if (now - t >= DUPE_MS) dupes.delete(k);
    const line = qForServe(e, name, { call: gw.config.radioCall, verified: ownVerified() });
    if (!line) {
      stats.notGated++;
      return;
    }
    const h = splitLine(line);
    const fp = { src: e.src, dst: e.dst, path: h?.path ?? [], packet: e.packet };
    const pos = e.packet && e.packet.lat !== undefined && e.packet.lon !== undefined ? { lat: e.packet.lat, lon: e.packet.lon } : null;
    const src = e.src.toUpperCase();
    const addressee = e.packet && MESSAGE_KINDS.has(e.packet.type) ? (e.packet.addressee ?? "").trim().toUpperCase() : null;
    const bytes = enc.encode(line + "\r\n");
    let sent = false;
    for (const c of conns) {
      if (!c.loggedIn || c.client.id === e.origin) continue;
      const f = c.filter;
      if (f && pos && f.refs.has(src)) f.positions.set(src, pos);
      if ((addressee && messageFor(c, addressee, now)) || (f && matchFilter(f, fp))) {
        if (send(c, bytes)) {
          c.client.tx++;
          sent = true;
        }
      }
    }
    if (sent) stats.served++;
  };

  // whether RADIO_CALL is verified, looked up at most once a minute (it decides qAR or qAo)
  let verifiedAt = -Infinity;
  let verified = false;
  const ownVerified = () => {
    const now = gw.clock.now();
    if (now - verifiedAt > 60_000) {
      verified = isVerifiedCall(gw, gw.config.radioCall);
      verifiedAt = now;
    }
    return verified;
  };

  const listener = listenForClients<Conn>(clients, "aprs-is", `APRSIS_LISTEN ${hostPort(at.host, at.port)}`, at, {
    make: () => ({ partial: "", loggedIn: false, filter: null, heard: new Map() }),
    opened(c) {
      conns.add(c);
      const full = clients.overCap(c.client);
      if (full) {
        stats.capped++;
        send(c, `# server full: ${full}; try again later\r\n`);
        drop(c, "refused", true);
        clients.logCapped("aprs-is", full);
        return;
      }
      send(c, `# svc-gateway ${buildInfo().version}\r\n`);
    },
    data: (c, chunk) => onData(c, chunk),
    drop: (c, why) => drop(c, why),
  });
  if (!listener) return null;

  const off = gw.events.on("aprsPacket", serve);
  const timer = setInterval(() => {
    const now = gw.clock.now();
    const stamp = new Date(now).toUTCString();
    for (const c of [...conns]) {
      if (!c.loggedIn && now - c.client.connectedAt > gw.config.aprsIsLoginTimeoutS * 1000) drop(c, "dropped: no login");
      else send(c, `# svc-gateway ${buildInfo().version} ${stamp} ${name}\r\n`);
    }
  }, gw.config.aprsIsKeepaliveS * 1000);
  (timer as { unref?: () => void }).unref?.();

  const address = hostPort(at.host, listener.port);
  const offPort = registerPort(gw, "aprsis-server", () => {
    const mine = clients.of("aprs-is");
    return {
      name: "aprsis-server",
      kind: "aprsis-server",
      state: "up",
      listen: address,
      server: name,
      rx: stats.uploaded,
      tx: mine.reduce((n, c) => n + c.tx, 0),
      ...stats,
      clients: mine.map(clientView),
    };
  });
  gw.log.info("hub", `APRS-IS server ${name} on ${address}`);
  const server: AprsIsServer = {
    port: listener.port,
    name,
    stats,
    stop() {
      off();
      offPort();
      clearInterval(timer);
      for (const c of [...conns]) drop(c, "closed: the gateway stops");
      listener.stop(true);
    },
  };
  gw.onStop(() => server.stop());
  return server;
}
