/**
 * Every setting, parsed and validated once.
 *
 * Sources, strongest first: command-line flags (only --data/--port/--host), the
 * process environment, then the env file `svc-gateway.env` in the data directory
 * (for operators who do not use a shell). The result is frozen: nothing changes a
 * setting at runtime, and ADMIN_CALLSIGNS in particular is never writable by any
 * route or page.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { syncUrlProblem, validateEndpoint } from "../lib/fed/endpoints.ts";
import { isBaseCallsign, isCallsign, normalizeCall } from "../lib/callsign.ts";
import { publicKeyFromSeed } from "../lib/fed/keys.ts";
import { isInstanceId } from "../lib/fed/record.ts";
import { parseRanges, type IpRange } from "../lib/net/ip.ts";
import { DEFAULT_KISS_PORTS, parseKissPorts, parseRadioCall, type KissPortConfig } from "../../radio/port/config.ts";
import { DIGIPEAT_MODES, type DigipeatMode } from "../../radio/digipeat.ts";
import { formatAddress, parseAddressLoose } from "../../radio/address.ts";

export const ENV_FILE_NAME = "svc-gateway.env";

/** A setting that failed validation: `check` prints one line per error. */
export interface ConfigError {
  setting: string;
  message: string;
}

export interface Config {
  /** Absolute path of the data directory (database, env file, media). */
  dataDir: string;
  port: number;
  host: string;
  /** Public base URL used in links we hand out (e-mails, sitemap, WebAuthn origin). */
  publicUrl: string | null;
  /** HTTPS (src/tls/): off, local (the gateway's own CA), acme, or files (TLS_CERT and TLS_KEY). */
  tls: "off" | "local" | "acme" | "files";
  /** HTTPS port when TLS is on (0 = any free port). */
  httpsPort: number;
  /** TLS=files: the certificate (chain) and its key, PEM files. */
  tlsCert: string | null;
  tlsKey: string | null;
  /** With TLS on, plain http redirects every request to https, machine clients' too (else only browser pages). */
  httpRedirectAll: boolean;
  /** TLS=acme (src/tls/acme.ts): the names to certify, the account's contact, the ACME server, its TLS root (a PEM file), the challenge. */
  acmeDomains: readonly string[];
  acmeEmail: string | null;
  acmeDirectory: string;
  acmeCaCert: string | null;
  acmeChallenge: "http-01" | "tls-alpn-01";
  instance: string;
  fedPrivateKey: string | null;
  fedPublicKey: string | null;
  fedPeers: string[];
  fedEndpoints: string[];
  fedOperator: string | null;
  fedAprsCall: string | null;
  fedHubUrl: string | null;
  /** FED_VIA: fetch peers' public federation documents for those who cannot reach them (a radio island's bridge; src/fed/via.ts) */
  fedVia: boolean;
  /** FED_VIA_URL: the FED_VIA gateway through which peers this one cannot reach are pulled */
  fedViaUrl: string | null;
  fedRegistry: string | null;
  fedRegistryKey: string | null;
  fedRegistryDns: string | null;
  /** Confirmed corroborations before an unvetted peer is promoted; 0 = never. */
  fedAutoPromote: number;
  fedRevealIgate: boolean;
  fedSubmitSecret: string | null;
  fedRelaySecret: string | null;
  /** A spoke's per-spoke relay token from its hub (HTTP lease and answer legs). */
  fedRelayToken: string | null;
  /** Distinct trusted instances that must confirm a find for cross-instance Tier A. */
  fedCorroborationQuorum: number;
  /** Most records per page this instance pulls or pushes over HTTP (clamps the link batch). */
  fedSyncBatch: number;
  /**
   * Tests and labs only. `on` (any: true) allows http://127.0.0.1:PORT
   * (localhost, [::1]) peer URLs and lets peer connections reach loopback and
   * private addresses; `host=PORT` entries send that host name's sync traffic
   * to 127.0.0.1:PORT and nothing else. null = off.
   */
  fedLoopbackPeers: { any: boolean; hosts: Record<string, number> } | null;
  /** Labs only: connections for users and peers may reach loopback and private addresses. */
  outboundAllowPrivate: boolean;
  /** Licensed calls allowed to operate the web sysop surface; empty = locked. */
  adminCallsigns: readonly string[];
  ingestSecret: string | null;
  packetsTtlHours: number;
  tombstoneTtlDays: number;
  messagesTtlDays: number;
  sensorTtlDays: number;
  portCountersTtlDays: number;
  mheardTtlDays: number;
  relayQueueTtlHours: number;
  spotsEnabled: boolean;
  /** REVIEW=on: a new cache waits in the reviewers' queue until one publishes it (src/game/maintenance.ts) */
  review: boolean;
  /** Accounts (verified callsigns) that review caches besides the sysops */
  reviewerCallsigns: readonly string[];
  /** Live connections (WebSockets and SSE streams together) one client address may hold. */
  liveMaxPerIp: number;
  /** Seconds between keep-alive comments on the SSE stream. */
  liveKeepaliveSeconds: number;
  dohUrl: string;
  /** Leaflet tile URL template; empty string = no tile server (the gateway's own map archives only). */
  tileUrl: string;
  tileAttribution: string;
  sourceRepository: string | null;
  logLevel: "debug" | "info" | "warn" | "error";
  /** Largest request body accepted by default, in bytes. */
  maxBodyBytes: number;
  /** Behind a reverse proxy: take the client address from X-Forwarded-For. */
  trustProxy: boolean;
  /** Peers whose X-Forwarded-For is believed (with TRUST_PROXY). */
  trustedProxies: readonly IpRange[];
  /** Callsign challenges may be answered through APRS-IS (weaker: anyone with a passcode sends as any call). */
  verifyAprsIs: boolean;
  /** Requests per minute per IP on rate-limited routes, without / with an API key. */
  rateLimitPerMinute: number;
  rateLimitKeyPerMinute: number;
  /** Writes (any method but GET/HEAD) one signed-in account may make per minute. */
  rateLimitWritesPerMinute: number;
  /** Outgoing mail server (sign-in links, digests); null = write mail to the log. */
  smtpUrl: string | null;
  /** From address of outgoing mail. */
  mailFrom: string | null;
  /** Accept web push endpoints on http or private addresses (a local test push service). */
  pushAllowPrivateEndpoints: boolean;
  /** Radio TNCs; by default Direwolf's KISS port on this machine, if it is running. */
  kissPorts: readonly KissPortConfig[];
  /** The digipeater (src/radio-node/digipeater.ts): off, fill-in (WIDE1-1) or wide (WIDEn-N too). */
  digipeat: DigipeatMode;
  /** The largest n of a WIDEn-N the digipeater repeats in wide mode. */
  digipeatMaxHops: number;
  /** More calls the digipeater repeats for, besides RADIO_CALL. */
  digipeatAliases: readonly string[];
  /** Hold a frame this long and repeat it only if no other digipeater did; 0 = at once. */
  digipeatViscousS: number;
  /** This station's callsign on the air (AX.25 source); unset = receive only. */
  radioCall: string | null;
  /** Digipeater path of the APRS lines this station's TNC transmits. */
  radioPath: readonly string[];
  /** Group and tactical addressees (APRS_GROUPS): messages to them are sent without asking for an ack, and kept as their own conversations. */
  aprsGroups: readonly string[];
  /** Frames the TNC transmitter puts on the air per minute at most (a token bucket). */
  radioTxPerMinute: number;
  /** The same station's position or weather goes out at most this often, seconds. */
  radioBeaconMinS: number;
  /** SVCB1 presence beacon interval, minutes; 0 = never sent on a schedule. */
  fedBeaconIntervalMin: number;
  /** The station's own APRS position beacon (src/radio-node/own-beacons.ts); null = no own beacons, status or telemetry. */
  stationBeacon: StationBeacon | null;
  /** Own position and status beacon interval, minutes (10 or more). */
  stationBeaconMinutes: number;
  /** Own telemetry (station counters) interval, minutes; 0 = none. */
  stationTelemetryMinutes: number;
  /** NET/ROM node alias; null = no NET/ROM node. */
  nodeAlias: string | null;
  /** NET/ROM node callsign (default RADIO_CALL). */
  nodeCall: string | null;
  /** NODES broadcast interval, minutes; 0 = never broadcast. */
  nodesIntervalMin: number;
  /** SVCL1 operator policy: most frames per page, and longest line, in bytes. */
  svcl1MaxBatch: number;
  svcl1LineBudget: number;
  /** Pull over radio circuits from peers reachable only by radio, minutes; 0 = only on request. */
  radioSyncIntervalMin: number;
  /** APRS-IS server to feed the registry from, host:port; null = off. */
  aprsIsServer: { host: string; port: number } | null;
  /** callsign the APRS-IS client logs in as (default FED_APRS_CALL) */
  aprsIsCall: string | null;
  /** APRS-IS server-side filter, e.g. r/42.6/-71.3/100 */
  aprsIsFilter: string | null;
  /** Send the outbox's lines (verified callsigns only) over a verified APRS-IS login. */
  aprsIsTx: boolean;
  /** iGate, RF to APRS-IS: every APRS frame our radio hears goes up with qAR (src/stations/igate.ts). */
  igate: boolean;
  /** iGate, APRS-IS to RF: messages to stations heard directly here go on the air as third-party frames. */
  igateTx: boolean;
  /** iGate, APRS-IS to RF: an aprsc filter naming more that goes on the air (objects, stations); null = messages only. */
  igateTxFilter: string | null;
  /** KISS TCP server for the station's own APRS and packet programs, host:port (0 = any free port); null = off. */
  kissServer: { host: string; port: number } | null;
  /** APRS-IS server (aprsc-style filters) for local clients, host:port (0 = any free port); null = off. */
  aprsIsListen: { host: string; port: number } | null;
  /** The APRS-IS server's `#` keep-alive interval, seconds. */
  aprsIsKeepaliveS: number;
  /** A connection to the APRS-IS server that has not logged in by then is closed, seconds. */
  aprsIsLoginTimeoutS: number;
  /** KISS server clients may transmit (RADIO_CALL's base call or calls verified here); false: their frames are dropped. */
  kissServerTx: boolean;
  /** Caches on the radio's screen: stations heard near active caches get them as APRS objects (src/radio-play/objects.ts). */
  cacheObjects: boolean;
  /** how near a heard station a cache must be to go out as an object, km */
  cacheObjectsRadiusKm: number;
  /** Connections to each hub server (KISS, APRS-IS) from one address, and in all. */
  hubClientsPerAddress: number;
  hubClientsMax: number;
  /** Least time between two APRS weather reports of one own weather station. */
  wxTxIntervalMinutes: number;
  /** This BBS's hierarchical address, e.g. N0GW.#NCA.CA.USA.NOAM; null: derived from FED_APRS_CALL/FED_OPERATOR. */
  bbsAddress: string | null;
  /** TCP port on which partner BBSes call us to forward (FBB over telnet); null = not listening. */
  bbsFbbPort: number | null;
  /** The call-SSID partner BBSes connect to over this instance's radio, and our calls to ax25 partners come from; null = no FBB forwarding over the radio. */
  bbsAx25Call: string | null;
  /** Largest BBS message (routing lines and body) accepted or composed, in bytes. */
  bbsMaxMessageBytes: number;
  bbsBulletinTtlDays: number;
  bbsMailTtlDays: number;
  bbsBidTtlDays: number;
  /** Directory for scheduled database backups (relative: to the data directory); null = none. */
  backupDir: string | null;
  /** Newest scheduled backups kept. */
  backupKeep: number;
  backupIntervalHours: number;
}

/** STATION_BEACON: where the station is, its APRS symbol (table and code) and comment. */
export interface StationBeacon {
  lat: number;
  lon: number;
  symbol: string;
  comment: string;
}

/** Settings with a spec-fixed value that operators cannot change. */
export const FIXED = {
  /** Firehose and browser-RF positions are kept this long (SPEC "Limits"). */
  positionRetentionDays: 7,
  /** A session cookie lives this long unless its holder signs out (sessions, pruning, GET /privacy). */
  sessionDays: 30,
  /** A rate-limit counter lives this long, in memory only (the gates, GET /privacy). */
  rateCounterSeconds: 60,
} as const;

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };
type Parser<T> = (raw: string) => Parsed<T>;

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (message: string): Parsed<never> => ({ ok: false, message });

const text: Parser<string> = (raw) => ok(raw);

const secret: Parser<string> = (raw) => (raw.length >= 16 ? ok(raw) : bad("is too short to be a secret (use at least 16 characters)"));

const wholeNumber =
  (min: number, max: number, unit: string): Parser<number> =>
  (raw) => {
    if (!/^\d+$/.test(raw)) return bad(`"${raw}" is not a whole number of ${unit}`);
    const n = Number(raw);
    if (n < min || n > max) return bad(`${n} is out of range (${min} to ${max} ${unit})`);
    return ok(n);
  };

const bool: Parser<boolean> = (raw) => {
  const v = raw.toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return ok(true);
  if (["0", "false", "no", "off", ""].includes(v)) return ok(false);
  return bad(`"${raw}" is not a yes/no value (use true or false)`);
};

const ipRanges: Parser<readonly IpRange[]> = (raw) => {
  const r = parseRanges(raw);
  if (r.errors.length) return bad(`"${r.errors[0]}" is not an IP address or CIDR range (e.g. 127.0.0.1, 10.0.0.0/8, ::1)`);
  return ok(r.ranges);
};

function parseUrl(raw: string, protocols: string[]): Parsed<string> {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return bad(`"${raw}" is not a URL`);
  }
  if (!protocols.includes(u.protocol)) return bad(`"${raw}" must use ${protocols.join(" or ")}`);
  return ok(raw.replace(/\/+$/, ""));
}

const url: Parser<string> = (raw) => parseUrl(raw, ["https:", "http:"]);

const smtpUrl: Parser<string> = (raw) => {
  const p = parseUrl(raw, ["smtp:", "smtps:"]);
  return p.ok ? ok(raw) : bad(`"${raw.replace(/\/\/[^@/]*@/, "//…@")}" is not an smtp:// or smtps:// URL`);
};

const emailAddress: Parser<string> = (raw) => (/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(raw) ? ok(raw) : bad(`"${raw}" is not an e-mail address`));

const urlList: Parser<string[]> = (raw) => {
  const out: string[] = [];
  for (const item of splitList(raw)) {
    const p = url(item);
    if (!p.ok) return p;
    out.push(p.value);
  }
  return ok(out);
};

const callsign: Parser<string> = (raw) => (isCallsign(raw) ? ok(normalizeCall(raw)) : bad(`"${raw}" is not a valid callsign`));

const callsignList: Parser<string[]> = (raw) => {
  const out: string[] = [];
  for (const item of splitList(raw)) {
    if (!isCallsign(item)) return bad(`"${item}" is not a valid callsign`);
    out.push(normalizeCall(item));
  }
  return ok(out);
};

/** FED_ENDPOINTS entries that fail the typed validator are dropped, not fatal (SPEC). */
const endpointList: Parser<string[]> = (raw) => ok(splitList(raw));

const instanceId: Parser<string> = (raw) =>
  isInstanceId(raw) ? ok(raw) : bad(`"${raw}" is not a valid instance id (lower-case letters, digits, dots and dashes, up to 63)`);

const b64urlKey: Parser<string> = (raw) =>
  /^[A-Za-z0-9_-]{43}$/.test(raw) && Buffer.from(raw, "base64url").length === 32
    ? ok(raw)
    : bad("is not a 32-byte base64url key (run `svc-gateway keygen` to make one)");

const port: Parser<number> = wholeNumber(0, 65535, "");

const loopbackPeers: Parser<{ any: boolean; hosts: Record<string, number> }> = (raw) => {
  const hosts: Record<string, number> = {};
  let any = false;
  for (const item of splitList(raw)) {
    if (["on", "1", "true", "yes"].includes(item.toLowerCase())) {
      any = true;
      continue;
    }
    const m = /^([a-z0-9.-]+)=(\d{1,5})$/i.exec(item);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) return bad(`"${item}" is not host=PORT (or use on)`);
    hosts[m[1]!.toLowerCase()] = Number(m[2]);
  }
  return ok({ any, hosts });
};

const hostPort: Parser<{ host: string; port: number }> = (raw) => {
  const m = /^([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(raw);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) return bad(`"${raw}" is not host:port (e.g. rotate.aprs2.net:14580)`);
  return ok({ host: m[1]!.replace(/^\[|\]$/g, ""), port: Number(m[2]) });
};

/** A listening address: host:port, where port 0 takes any free port. */
const listenAddr: Parser<{ host: string; port: number }> = (raw) => {
  // a bare port listens on loopback only: opening it wider takes an explicit host
  if (/^\d{1,5}$/.test(raw) && Number(raw) <= 65535) return ok({ host: "127.0.0.1", port: Number(raw) });
  const m = /^([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(raw);
  if (!m || Number(m[2]) > 65535) return bad(`"${raw}" is not host:port to listen on (e.g. 0.0.0.0:8001, or 127.0.0.1:8001 for this machine only)`);
  return ok({ host: m[1]!.replace(/^\[|\]$/g, ""), port: Number(m[2]) });
};

const aprsFilter: Parser<string> = (raw) =>
  /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/.test(raw) && raw.length <= 512
    ? ok(raw)
    : bad(`"${raw}" is not an APRS-IS filter (printable words, e.g. r/42.6/-71.3/100)`);

const tlsMode: Parser<Config["tls"]> = (raw) => {
  const v = raw.toLowerCase();
  return v === "off" || v === "local" || v === "acme" || v === "files" ? ok(v) : bad(`"${raw}" is not off, local, acme or files`);
};

const acmeDomains: Parser<readonly string[]> = (raw) => {
  const out: string[] = [];
  for (const item of splitList(raw)) {
    if (item.startsWith("*.")) return bad(`"${item}": a wildcard needs the DNS-01 challenge, which the gateway does not answer`);
    const d = dnsName(item);
    if (!d.ok || !d.value.includes(".")) return bad(`"${item}" is not a public DNS name`);
    out.push(d.value.toLowerCase());
  }
  return ok(out);
};

const acmeChallenge: Parser<Config["acmeChallenge"]> = (raw) => {
  const v = raw.toLowerCase();
  return v === "http-01" || v === "tls-alpn-01" ? ok(v) : bad(`"${raw}" is not http-01 or tls-alpn-01`);
};

const host: Parser<string> = (raw) => (/^[A-Za-z0-9.:[\]-]+$/.test(raw) ? ok(raw) : bad(`"${raw}" is not a host name or address`));

const dnsName: Parser<string> = (raw) =>
  /^(?=.{1,253}$)([A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$/.test(raw)
    ? ok(raw.replace(/\.$/, ""))
    : bad(`"${raw}" is not a DNS name`);

const bbsAddress: Parser<string> = (raw) => {
  const v = raw.trim().toUpperCase();
  const parts = v.split(".");
  if (v.length > 40 || parts.length > 6 || !isBaseCallsign(parts[0]!) || !parts.slice(1).every((p) => /^#?[A-Z0-9]{1,6}$/.test(p)))
    return bad(`"${raw}" is not a BBS hierarchical address (CALL.#REGION.CC.CONT, e.g. N0GW.#NCA.CA.USA.NOAM)`);
  return ok(v);
};

const logLevel: Parser<Config["logLevel"]> = (raw) =>
  ["debug", "info", "warn", "error"].includes(raw) ? ok(raw as Config["logLevel"]) : bad(`"${raw}" is not one of debug, info, warn, error`);

const tileUrl: Parser<string> = (raw) => {
  if (raw === "" || raw === "off" || raw === "none") return ok("");
  const p = parseUrl(raw.replaceAll("{", "%7B").replaceAll("}", "%7D"), ["https:", "http:"]);
  if (!p.ok) return bad(`"${raw}" is not a tile URL template`);
  if (!raw.includes("{z}") || !raw.includes("{x}") || !raw.includes("{y}")) return bad(`"${raw}" must contain {z}, {x} and {y}`);
  return ok(raw);
};

const kissPorts: Parser<readonly KissPortConfig[]> = (raw) => {
  const r = parseKissPorts(raw);
  return r.ok ? ok(r.value) : bad(r.error.message);
};

const digipeatMode: Parser<DigipeatMode> = (raw) =>
  (DIGIPEAT_MODES as readonly string[]).includes(raw.toLowerCase())
    ? ok(raw.toLowerCase() as DigipeatMode)
    : bad(`"${raw}" is not one of ${DIGIPEAT_MODES.join(", ")}`);

/** DIGIPEAT_ALIASES: callsigns or aliases (RELAY, N0CALL-3), comma-separated; none for none. */
const aliasList: Parser<readonly string[]> = (raw) => {
  if (/^(none|off)?$/i.test(raw.trim())) return ok(Object.freeze([]));
  const out: string[] = [];
  for (const item of splitList(raw)) {
    const a = parseAddressLoose(item);
    if (!a.ok) return bad(`"${item}" is not a callsign or alias (1-6 of A-Z 0-9, an SSID 0-15)`);
    out.push(formatAddress(a.value));
  }
  return out.length > 16 ? bad("has more than 16 aliases") : ok(Object.freeze(out));
};

const digiPath: Parser<readonly string[]> = (raw) => {
  if (/^(none|direct)$/i.test(raw)) return ok([]);
  const hops = splitList(raw.toUpperCase());
  if (hops.length > 8) return bad("has more than 8 digipeaters");
  for (const h of hops) if (!/^[A-Z0-9]{1,6}(?:-(?:[1-9]|1[0-5]))?$/.test(h)) return bad(`"${h}" is not a digipeater (e.g. WIDE1-1)`);
  return ok(hops);
};

/** `LAT,LON,SYMBOL[,COMMENT]`: decimal degrees, a two-character symbol, the rest of the line as the comment (commas included). */
const stationBeacon: Parser<StationBeacon> = (raw) => {
  const m = /^(-?\d{1,3}(?:\.\d+)?),\s*(-?\d{1,3}(?:\.\d+)?),\s*([/\\A-Z0-9][\x21-\x7e])(?:,(.*))?$/.exec(raw);
  if (!m) return bad(`"${raw}" is not LAT,LON,SYMBOL[,COMMENT] (e.g. 42.3601,-71.0589,R&,svc-gateway iGate)`);
  const lat = Number(m[1]);
  const lon = Number(m[2]);
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180) return bad(`"${raw}": latitude is -90 to 90, longitude -180 to 180`);
  const comment = (m[4] ?? "").trim();
  if (comment.length > 43 || /[|~{\x00-\x1f\x7f-\uffff]/.test(comment))
    return bad(`"${raw}": the comment is up to 43 printable ASCII characters, without | ~ {`);
  return ok({ lat, lon, symbol: m[3]!, comment });
};

/** Minutes between own telemetry reports: 0 (none), or 10 and more, as aprx sends them. */
const telemetryMinutes: Parser<number> = (raw) => {
  const n = wholeNumber(0, 1440, "minutes")(raw);
  return n.ok && n.value > 0 && n.value < 10 ? bad(`${n.value} is too often (0 for none, else 10 to 1440 minutes)`) : n;
};

const nodeAlias: Parser<string> = (raw) =>
  /^[A-Z0-9#_-]{1,6}$/.test(raw.toUpperCase()) ? ok(raw.toUpperCase()) : bad(`"${raw}" is not a node alias (1-6 of A-Z 0-9 # _ -)`);

const radioCall: Parser<string> = (raw) => {
  const r = parseRadioCall(raw);
  if (!r.ok) return bad(r.error.message);
  return isCallsign(r.value) ? ok(r.value) : bad(`"${raw}" is not a licensed callsign`);
};

const baseCallOf = (call: string) => call.split("-")[0]!;

/** APRS_GROUPS: comma-separated message addressees (1-9 of A-Z 0-9 -), upper-cased. */
const aprsGroupList: Parser<string[]> = (raw) => {
  const list = splitList(raw).map((g) => g.toUpperCase());
  const badOne = list.find((g) => !/^[A-Z0-9-]{1,9}$/.test(g));
  return badOne !== undefined ? bad(`"${badOne}" is not an APRS addressee (1-9 of A-Z 0-9 -)`) : ok(list);
};

function splitList(raw: string): string[] {
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

interface Setting<K extends keyof Config> {
  env: string;
  key: K;
  parse: Parser<Config[K]>;
  fallback: Config[K];
  /** One line for `--help` and docs/operating.md. */
  doc: string;
}

function setting<K extends keyof Config>(env: string, key: K, parse: Parser<Config[K]>, fallback: Config[K], doc: string): Setting<K> {
  return { env, key, parse, fallback, doc };
}

const MIB = 1024 * 1024;

/** The table of every environment setting. Order is the order `--help` prints. */
export const SETTINGS = [
  setting("PORT", "port", port, 8080, "HTTP port (also --port)"),
  setting("HOST", "host", host, "0.0.0.0", "address to listen on (also --host); 0.0.0.0 serves the LAN"),
  setting("PUBLIC_URL", "publicUrl", url, null, "public base URL for links in e-mail, sitemap and passkeys"),
  setting(
    "TLS",
    "tls",
    tlsMode,
    "off",
    "HTTPS: off; local (the gateway is its own certificate authority: devices install its CA from /tls); acme (a certificate for ACME_DOMAINS from Let's Encrypt or ACME_DIRECTORY); files (TLS_CERT and TLS_KEY)",
  ),
  setting("HTTPS_PORT", "httpsPort", port, 8443, "HTTPS port when TLS is on (443 under systemd with AmbientCapabilities=CAP_NET_BIND_SERVICE)"),
  setting("TLS_CERT", "tlsCert", text, null, "TLS=files: the certificate (with its chain), a PEM file; read again when it changes"),
  setting("TLS_KEY", "tlsKey", text, null, "TLS=files: the certificate's private key, a PEM file; read again when it changes"),
  setting(
    "HTTP_REDIRECT_ALL",
    "httpRedirectAll",
    bool,
    false,
    "with TLS on, plain http redirects every request to https; off: browser pages only, while machine clients (/api, /federation, the ingest and radio boxes) keep working over http",
  ),
  setting(
    "ACME_DOMAINS",
    "acmeDomains",
    acmeDomains,
    [],
    "TLS=acme: the public names to get a certificate for, comma-separated (each must reach this gateway's HTTP or HTTPS port)",
  ),
  setting("ACME_EMAIL", "acmeEmail", emailAddress, null, "TLS=acme: the ACME account's contact address (Let's Encrypt writes before a certificate expires)"),
  setting(
    "ACME_DIRECTORY",
    "acmeDirectory",
    url,
    "https://acme-v02.api.letsencrypt.org/directory",
    "TLS=acme: the ACME server's directory URL (Let's Encrypt staging: https://acme-staging-v02.api.letsencrypt.org/directory)",
  ),
  setting("ACME_CA_CERT", "acmeCaCert", text, null, "TLS=acme: a PEM file with the ACME server's TLS root, for a private or test ACME server (Pebble)"),
  setting(
    "ACME_CHALLENGE",
    "acmeChallenge",
    acmeChallenge,
    "http-01",
    "TLS=acme: http-01 (answered on the HTTP port, which must be reachable as port 80) or tls-alpn-01 (on the HTTPS port, as 443)",
  ),
  setting("INSTANCE", "instance", instanceId, "local", "this instance's federation id, e.g. n0call-gw"),
  setting("FED_PRIVATE_KEY", "fedPrivateKey", b64urlKey, null, "Ed25519 signing key (svc-gateway keygen); unset = unsigned instance"),
  setting("FED_PUBLIC_KEY", "fedPublicKey", b64urlKey, null, "optional: the matching public key, checked against FED_PRIVATE_KEY"),
  setting("FED_PEERS", "fedPeers", urlList, [], "comma-separated peer base URLs; these start trusted"),
  setting("FED_ENDPOINTS", "fedEndpoints", endpointList, [], "comma-separated typed endpoints this instance is reachable at"),
  setting("FED_OPERATOR", "fedOperator", callsign, null, "operator callsign published in the registry entry"),
  setting("FED_APRS_CALL", "fedAprsCall", callsign, null, "APRS service callsign published in the registry entry"),
  setting("FED_HUB_URL", "fedHubUrl", url, null, "hub to push signed records to (spoke mode)"),
  setting(
    "FED_VIA",
    "fedVia",
    bool,
    false,
    "on: fetch peers' descriptors, sync pages and registry views for gateways that cannot reach them (the bridge of a radio island)",
  ),
  setting("FED_VIA_URL", "fedViaUrl", url, null, "a FED_VIA gateway: peers this instance cannot reach are pulled through it (a gateway on a radio island)"),
  setting("FED_REGISTRY", "fedRegistry", url, null, "URL of a signed instance registry"),
  setting("FED_REGISTRY_KEY", "fedRegistryKey", b64urlKey, null, "public key that signs FED_REGISTRY"),
  setting("FED_REGISTRY_DNS", "fedRegistryDns", dnsName, null, "DNS name whose TXT record anchors the registry"),
  setting(
    "FED_AUTO_PROMOTE",
    "fedAutoPromote",
    wholeNumber(0, 1_000_000, "corroborations"),
    0,
    "confirmed corroborations that promote an unvetted peer; 0 = never",
  ),
  setting("FED_REVEAL_IGATE", "fedRevealIgate", bool, false, "reveal the exact IGate in corroboration answers (both sides must opt in)"),
  setting("FED_SUBMIT_SECRET", "fedSubmitSecret", secret, null, "secret spokes present to /federation/submit and /federation/corroborate"),
  setting("FED_RELAY_SECRET", "fedRelaySecret", secret, null, "relay key for /federation/relay/*"),
  setting("FED_RELAY_TOKEN", "fedRelayToken", secret, null, "spoke: the per-spoke relay token its hub issued (svc-gateway relay token SPOKE on the hub)"),
  setting(
    "FED_CORROBORATION_QUORUM",
    "fedCorroborationQuorum",
    wholeNumber(1, 100, "instances"),
    2,
    "distinct trusted instances that must confirm a find for cross-instance Tier A",
  ),
  setting("FED_SYNC_BATCH", "fedSyncBatch", wholeNumber(1, 10_000, "records"), 2000, "most records per page pulled or pushed over HTTP"),
  setting(
    "FED_LOOPBACK_PEERS",
    "fedLoopbackPeers",
    loopbackPeers,
    null,
    "tests and labs only: on = allow loopback and private peers (http://127.0.0.1:PORT too); host=PORT,... maps those hosts to 127.0.0.1:PORT (on,host=PORT for both)",
  ),
  setting(
    "OUTBOUND_ALLOW_PRIVATE",
    "outboundAllowPrivate",
    bool,
    false,
    "labs only: let connections made for users and peers (push, peer sync, registry-learnt endpoints) reach loopback, private and other special addresses",
  ),
  setting("ADMIN_CALLSIGNS", "adminCallsigns", callsignList, [], "comma-separated sysop callsigns; unset locks the web operator surface"),
  setting(
    "APRS_GROUPS",
    "aprsGroups",
    aprsGroupList,
    [],
    "comma-separated group and tactical message addressees (e.g. CQ,QST,EVENT): sent without an ack, shown as their own conversations",
  ),
  setting(
    "VERIFY_APRSIS",
    "verifyAprsIs",
    bool,
    false,
    "callsign challenges may also be answered through APRS-IS, not only on the air (anyone with a passcode can send as any call there); never for taking over a call another account verified",
  ),
  setting("INGEST_SECRET", "ingestSecret", secret, null, "shared secret of the operator's ingest box (x-ingest-secret)"),
  setting("PACKETS_TTL_HOURS", "packetsTtlHours", wholeNumber(1, 24 * 365, "hours"), 24, "raw packet ring retention"),
  setting("TOMBSTONE_TTL_DAYS", "tombstoneTtlDays", wholeNumber(1, 3650, "days"), 180, "how long tombstones are kept"),
  setting("MESSAGES_TTL_DAYS", "messagesTtlDays", wholeNumber(1, 3650, "days"), 30, "APRS message log retention"),
  setting("SENSOR_TTL_DAYS", "sensorTtlDays", wholeNumber(1, 3650, "days"), 30, "telemetry and weather readings retention"),
  setting("PORT_COUNTERS_TTL_DAYS", "portCountersTtlDays", wholeNumber(1, 3650, "days"), 7, "radio port counter samples retention"),
  setting("MHEARD_TTL_DAYS", "mheardTtlDays", wholeNumber(1, 3650, "days"), 14, "MHeard list retention"),
  setting("RELAY_QUEUE_TTL_HOURS", "relayQueueTtlHours", wholeNumber(1, 24 * 365, "hours"), 48, "stale relay-queue entries are pruned after this"),
  setting("SPOTS_ENABLED", "spotsEnabled", bool, false, "serve /api/spots"),
  setting("REVIEW", "review", bool, false, "on: a new cache waits in a review queue until a reviewer (a sysop or REVIEWER_CALLSIGNS) publishes it"),
  setting("REVIEWER_CALLSIGNS", "reviewerCallsigns", callsignList, [], "comma-separated callsigns (verified) that review caches besides the sysops"),
  setting(
    "LIVE_MAX_PER_IP",
    "liveMaxPerIp",
    wholeNumber(1, 100_000, "connections"),
    32,
    "live connections (WebSockets and CoT streams) one client address may hold",
  ),
  setting("LIVE_KEEPALIVE_SECONDS", "liveKeepaliveSeconds", wholeNumber(1, 300, "seconds"), 15, "keep-alive comment interval on the CoT SSE stream"),
  setting("DOH_URL", "dohUrl", url, "https://cloudflare-dns.com/dns-query", "DNS-over-HTTPS resolver"),
  setting(
    "TILE_URL",
    "tileUrl",
    tileUrl,
    "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
    "map tile URL template; 'off' for this gateway's own maps only (built-in world basemap and tiles/*.pmtiles)",
  ),
  setting("TILE_ATTRIBUTION", "tileAttribution", text, "&copy; OpenStreetMap contributors", "map tile attribution"),
  setting("SOURCE_REPOSITORY", "sourceRepository", url, null, "repository URL served by /.well-known/source (set it if you run modified code)"),
  setting("LOG_LEVEL", "logLevel", logLevel, "info", "debug, info, warn or error"),
  setting(
    "TRUST_PROXY",
    "trustProxy",
    bool,
    false,
    "behind a reverse proxy: take the client address from X-Forwarded-For (the right-most hop that is not a trusted proxy)",
  ),
  setting(
    "TRUSTED_PROXIES",
    "trustedProxies",
    ipRanges,
    parseRanges("127.0.0.0/8,::1").ranges,
    "with TRUST_PROXY: comma-separated addresses or CIDR ranges of the reverse proxies; only their X-Forwarded-For is read",
  ),
  setting("RATE_LIMIT_PER_MINUTE", "rateLimitPerMinute", wholeNumber(1, 1_000_000, "requests"), 120, "rate-limited API requests per minute per IP"),
  setting("RATE_LIMIT_KEY_PER_MINUTE", "rateLimitKeyPerMinute", wholeNumber(1, 10_000_000, "requests"), 1200, "the same with a free API key"),
  setting(
    "RATE_LIMIT_WRITES_PER_MINUTE",
    "rateLimitWritesPerMinute",
    wholeNumber(1, 1_000_000, "requests"),
    120,
    "writes (POST, PUT, PATCH, DELETE) one signed-in account may make per minute, on any route",
  ),
  setting("SMTP_URL", "smtpUrl", smtpUrl, null, "outgoing mail server, e.g. smtps://user:pass@mail.example.org; unset = mail goes to the log"),
  setting("MAIL_FROM", "mailFrom", emailAddress, null, "From address of outgoing mail (default svc-gateway@<instance>.invalid)"),
  setting(
    "PUSH_ALLOW_PRIVATE_ENDPOINTS",
    "pushAllowPrivateEndpoints",
    bool,
    false,
    "accept web push endpoints on http:// or private addresses (only for a local test push service)",
  ),
  setting("MAX_BODY_BYTES", "maxBodyBytes", wholeNumber(1024, 256 * MIB, "bytes"), 1 * MIB, "largest request body accepted by default"),
  setting("KISS_PORTS", "kissPorts", kissPorts, DEFAULT_KISS_PORTS, "radio TNCs: comma-separated tcp://HOST:PORT or serial:PATH[@BAUD]; off for none"),
  setting("RADIO_CALL", "radioCall", radioCall, null, "this station's callsign on the air, e.g. N0CALL-10; unset = receive only"),
  setting(
    "RADIO_PATH",
    "radioPath",
    digiPath,
    ["WIDE1-1", "WIDE2-1"],
    "digipeater path of APRS lines the TNC transmits, e.g. WIDE1-1,WIDE2-1; none for direct",
  ),
  setting(
    "RADIO_TX_PER_MINUTE",
    "radioTxPerMinute",
    wholeNumber(1, 60, "frames"),
    6,
    "most APRS frames the TNC transmits per minute (keeps the channel polite)",
  ),
  setting(
    "DIGIPEAT",
    "digipeat",
    digipeatMode,
    "off",
    "the digipeater: off; fill-in repeats WIDE1-1; wide also WIDEn-N up to DIGIPEAT_MAX_HOPS; both repeat frames through RADIO_CALL or DIGIPEAT_ALIASES (needs RADIO_CALL, transmits only while it is verified, within RADIO_TX_PER_MINUTE)",
  ),
  setting("DIGIPEAT_MAX_HOPS", "digipeatMaxHops", wholeNumber(1, 7, "hops"), 2, "wide digipeater: a WIDEn-N with n above this is not repeated"),
  setting(
    "DIGIPEAT_ALIASES",
    "digipeatAliases",
    aliasList,
    [],
    "more calls the digipeater repeats for, comma-separated (e.g. RELAY,N0CALL-3); replaced by RADIO_CALL when used",
  ),
  setting(
    "DIGIPEAT_VISCOUS_S",
    "digipeatViscousS",
    wholeNumber(0, 60, "seconds"),
    0,
    "viscous digipeating: hold a frame this long and repeat it only if no other digipeater did meanwhile; 0 = repeat at once",
  ),
  setting(
    "RADIO_BEACON_MIN_S",
    "radioBeaconMinS",
    wholeNumber(60, 86_400, "seconds"),
    600,
    "the same station's position or weather is transmitted at most this often",
  ),
  setting(
    "FED_BEACON_INTERVAL_MIN",
    "fedBeaconIntervalMin",
    wholeNumber(0, 10_080, "minutes"),
    60,
    "SVCB1 presence beacon on the radio every N minutes; 0 = off",
  ),
  setting(
    "STATION_BEACON",
    "stationBeacon",
    stationBeacon,
    null,
    "the station's own APRS beacon from RADIO_CALL: LAT,LON,SYMBOL[,COMMENT], e.g. 42.3601,-71.0589,R&,svc-gateway iGate; with it go a status (software and version) and telemetry of the station's counters; unset = none",
  ),
  setting(
    "STATION_BEACON_MINUTES",
    "stationBeaconMinutes",
    wholeNumber(10, 1440, "minutes"),
    30,
    "minutes between the station's own position beacons and status reports (10 or more)",
  ),
  setting(
    "STATION_TELEMETRY_MINUTES",
    "stationTelemetryMinutes",
    telemetryMinutes,
    10,
    "with STATION_BEACON: minutes between telemetry reports of the station's counters (frames heard, gated, not gated, sent, digipeated); 0 = none",
  ),
  setting("NODE_ALIAS", "nodeAlias", nodeAlias, null, "NET/ROM node alias, e.g. GWNODE; unset = no NET/ROM node"),
  setting("NODE_CALL", "nodeCall", radioCall, null, "NET/ROM node callsign (default RADIO_CALL); must differ from the call SVCL1 is served on"),
  setting("NODES_INTERVAL_MIN", "nodesIntervalMin", wholeNumber(0, 1440, "minutes"), 60, "broadcast our NODES every N minutes (with NODE_ALIAS); 0 = never"),
  setting("SVCL1_MAX_BATCH", "svcl1MaxBatch", wholeNumber(1, 10_000, "frames"), 25, "most records per SVCL1 page over radio circuits"),
  setting("SVCL1_LINE_BUDGET", "svcl1LineBudget", wholeNumber(512, 1_048_576, "bytes"), 2048, "longest SVCL1 line sent or accepted over radio circuits"),
  setting(
    "RADIO_SYNC_INTERVAL_MIN",
    "radioSyncIntervalMin",
    wholeNumber(0, 10_080, "minutes"),
    60,
    "pull over AX.25/NET/ROM from peers that list only radio endpoints, every N minutes; 0 = on request only",
  ),
  setting("APRSIS_SERVER", "aprsIsServer", hostPort, null, "APRS-IS server host:port to feed the station registry from; unset = off"),
  setting("APRSIS_CALL", "aprsIsCall", callsign, null, "callsign the APRS-IS client logs in as (passcode computed); default FED_APRS_CALL"),
  setting("APRSIS_FILTER", "aprsIsFilter", aprsFilter, null, "APRS-IS server filter, e.g. r/42.6/-71.3/100 (area around a point, km)"),
  setting(
    "APRSIS_TX",
    "aprsIsTx",
    bool,
    true,
    "send queued APRS lines of verified callsigns over the APRS-IS login once the server says verified; false = receive only",
  ),
  setting(
    "IGATE",
    "igate",
    bool,
    false,
    "iGate RF to APRS-IS: every APRS frame the radio hears goes up with qAR,<APRSIS_CALL> (needs APRSIS_SERVER and a login the server answers verified); TCPIP/TCPXX/NOGATE/RFONLY paths, our own frames heard back and general queries are not gated",
  ),
  setting(
    "IGATE_TX",
    "igateTx",
    bool,
    false,
    "iGate APRS-IS to RF: a message from APRS-IS to a station heard directly on our radio in the last 30 minutes (and not on APRS-IS since) goes on the air as a third-party frame from RADIO_CALL, within RADIO_TX_PER_MINUTE",
  ),
  setting(
    "IGATE_TX_FILTER",
    "igateTxFilter",
    aprsFilter,
    null,
    "iGate APRS-IS to RF: packets from APRS-IS matching this aprsc filter also go on the air (e.g. o/NET* b/N0CALL-5); unset = messages only",
  ),
  setting(
    "KISS_SERVER",
    "kissServer",
    listenAddr,
    null,
    "KISS TCP server for local programs (APRSdroid, Xastir, YAAC, aprx): a bare port (8001) listens on 127.0.0.1 only, host:port (0.0.0.0:8001) opens it wider; they hear every frame the radio hears, and transmit only with KISS_SERVER_TX; unset = off",
  ),
  setting(
    "KISS_SERVER_TX",
    "kissServerTx",
    bool,
    false,
    "let KISS server clients transmit: only frames whose source is a callsign verified on this instance (RADIO_CALL's included), within RADIO_TX_PER_MINUTE; off = their frames are dropped and counted",
  ),
  setting(
    "CACHE_OBJECTS",
    "cacheObjects",
    bool,
    false,
    "caches on the radio's screen: when a station is heard on our radio within CACHE_OBJECTS_RADIUS_KM of active caches, up to 3 go on the air as APRS objects from RADIO_CALL (each at most once per 30 minutes; objects take at most a third of RADIO_TX_PER_MINUTE); objects of caches since archived or disabled are killed",
  ),
  setting("CACHE_OBJECTS_RADIUS_KM", "cacheObjectsRadiusKm", wholeNumber(1, 50, "km"), 5, "CACHE_OBJECTS: how near a heard station a cache must be to be sent"),
  setting(
    "HUB_CLIENTS_PER_ADDRESS",
    "hubClientsPerAddress",
    wholeNumber(1, 10_000, "connections"),
    8,
    "connections one address may hold to the KISS server, and to the APRS-IS server; more are closed at once",
  ),
  setting(
    "HUB_CLIENTS_MAX",
    "hubClientsMax",
    wholeNumber(1, 100_000, "connections"),
    64,
    "connections the KISS server, and the APRS-IS server, each take in all; more are closed at once",
  ),
  setting(
    "APRSIS_LISTEN",
    "aprsIsListen",
    listenAddr,
    null,
    "APRS-IS server for local clients and IGates: a bare port (14580) listens on 127.0.0.1 only, host:port (0.0.0.0:14580) opens it wider; serves what the gateway hears through aprsc-style filters; verified logins may upload; unset = off",
  ),
  setting(
    "APRSIS_KEEPALIVE_S",
    "aprsIsKeepaliveS",
    wholeNumber(1, 300, "seconds"),
    20,
    "APRSIS_LISTEN: seconds between the '#' keep-alive comments to each client (aprsc sends one every 20 s)",
  ),
  setting(
    "APRSIS_LOGIN_TIMEOUT_S",
    "aprsIsLoginTimeoutS",
    wholeNumber(1, 600, "seconds"),
    30,
    "APRSIS_LISTEN: a connection that has not logged in after this many seconds is closed (at the next keep-alive)",
  ),
  setting("BACKUP_DIR", "backupDir", text, null, "directory for scheduled database backups (e.g. on a USB disk); unset = none"),
  setting("BACKUP_KEEP", "backupKeep", wholeNumber(1, 1000, "backups"), 7, "how many scheduled backups are kept (the oldest go)"),
  setting("BACKUP_INTERVAL_HOURS", "backupIntervalHours", wholeNumber(1, 24 * 30, "hours"), 24, "hours between scheduled backups"),
  setting(
    "WX_TX_INTERVAL_MINUTES",
    "wxTxIntervalMinutes",
    wholeNumber(5, 1440, "minutes"),
    10,
    "least time between two APRS weather reports of an own weather station (5 or more)",
  ),
  setting("BBS_HA", "bbsAddress", bbsAddress, null, "this BBS's hierarchical address, e.g. N0GW.#NCA.CA.USA.NOAM (default: FED_APRS_CALL or FED_OPERATOR)"),
  setting(
    "BBS_FBB_PORT",
    "bbsFbbPort",
    wholeNumber(0, 65535, ""),
    null,
    "TCP port partner BBSes call to forward mail (FBB over telnet); unset = not listening, 0 = any free port",
  ),
  setting(
    "BBS_AX25_CALL",
    "bbsAx25Call",
    radioCall,
    null,
    "call-SSID partner BBSes connect to over the radio for FBB forwarding, and our calls to ax25 partners come from, e.g. N0GW-1; must differ from RADIO_CALL and NODE_CALL; unset = no forwarding over the radio",
  ),
  setting("BBS_MAX_MESSAGE_BYTES", "bbsMaxMessageBytes", wholeNumber(1024, 4 * MIB, "bytes"), 64 * 1024, "largest BBS message accepted or composed"),
  setting("BBS_BULLETIN_TTL_DAYS", "bbsBulletinTtlDays", wholeNumber(1, 3650, "days"), 30, "how long BBS bulletins are kept"),
  setting("BBS_MAIL_TTL_DAYS", "bbsMailTtlDays", wholeNumber(1, 3650, "days"), 180, "how long personal BBS mail and traffic are kept"),
  setting("BBS_BID_TTL_DAYS", "bbsBidTtlDays", wholeNumber(1, 3650, "days"), 365, "how long BIDs are remembered to refuse duplicates"),
] as const;

const KNOWN_ENV = new Set<string>([...SETTINGS.map((s) => s.env), "SVC_DATA"]);

/**
 * Settings read from the process environment only, never from the env file
 * (spec, Authentication rule 2): a file in the data directory is what a
 * compromised or careless write could change, the environment is not.
 */
const ENVIRONMENT_ONLY = new Set(["ADMIN_CALLSIGNS"]);

/** Parses a KEY=VALUE env file: `#` comments, optional `export`, single or double quotes. */
export function parseEnvFile(textContent: string): { values: Record<string, string>; errors: ConfigError[] } {
  const values: Record<string, string> = {};
  const errors: ConfigError[] = [];
  textContent.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim();
    if (t === "" || t.startsWith("#")) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(t);
    if (!m) {
      errors.push({ setting: `${ENV_FILE_NAME}:${i + 1}`, message: "is not a KEY=VALUE line" });
      return;
    }
    let v = m[2]!;
    const q = v[0];
    if (q === '"' || q === "'") {
      const end = v.indexOf(q, 1);
      if (end < 0 || !/^\s*(#.*)?$/.test(v.slice(end + 1))) {
        errors.push({ setting: `${ENV_FILE_NAME}:${i + 1}`, message: "has an unterminated quote" });
        return;
      }
      v = v.slice(1, end);
    } else {
      v = v.replace(/\s+#.*$/, "");
    }
    values[m[1]!] = v;
  });
  return { values, errors };
}

export interface ConfigSources {
  dataDir: string;
  env: Record<string, string | undefined>;
  flags?: { port?: string; host?: string };
}

export interface LoadedConfig {
  config: Config;
  errors: ConfigError[];
  /** Non-fatal notes: unknown names in the env file, dropped endpoints. */
  warnings: ConfigError[];
  envFile: string | null;
}

/** Reads and validates every setting. Never throws: bad settings come back as errors. */
export function loadConfig(src: ConfigSources): LoadedConfig {
  const errors: ConfigError[] = [];
  const warnings: ConfigError[] = [];
  const envFilePath = join(src.dataDir, ENV_FILE_NAME);
  let fileValues: Record<string, string> = {};
  let envFile: string | null = null;
  if (existsSync(envFilePath)) {
    envFile = envFilePath;
    const parsed = parseEnvFile(readFileSync(envFilePath, "utf8"));
    fileValues = parsed.values;
    errors.push(...parsed.errors);
    for (const name of Object.keys(fileValues)) {
      if (!KNOWN_ENV.has(name)) warnings.push({ setting: name, message: `in ${ENV_FILE_NAME} is not a known setting` });
      if (ENVIRONMENT_ONLY.has(name)) {
        warnings.push({
          setting: name,
          message: `in ${ENV_FILE_NAME} is ignored: it is read from the environment only (under systemd: systemctl edit svc-gateway, then Environment=${name}=...)`,
        });
        delete fileValues[name];
      }
    }
  }
  const flagValues: Record<string, string | undefined> = { PORT: src.flags?.port, HOST: src.flags?.host };

  const out: Record<string, unknown> = { dataDir: src.dataDir };
  for (const s of SETTINGS) {
    const raw = flagValues[s.env] ?? src.env[s.env] ?? fileValues[s.env];
    // An empty value means "unset", except TILE_URL where empty turns tiles off.
    if (raw === undefined || (raw.trim() === "" && s.env !== "TILE_URL")) {
      out[s.key] = s.fallback;
      continue;
    }
    const p = CONTROL.test(raw.trim()) ? controlRefused : (s.parse as Parser<unknown>)(raw.trim());
    if (p.ok) out[s.key] = p.value;
    else {
      errors.push({ setting: s.env, message: p.message });
      out[s.key] = s.fallback;
    }
  }
  const config = out as unknown as Config;

  // Cross-setting rules.
  if (config.fedPrivateKey && config.instance === "local" && !("INSTANCE" in src.env || "INSTANCE" in fileValues)) {
    errors.push({ setting: "INSTANCE", message: "must be set when FED_PRIVATE_KEY is set (it names this instance's records)" });
  }
  if (config.fedPrivateKey && config.fedPublicKey) {
    if (publicKeyFromSeed(config.fedPrivateKey) !== config.fedPublicKey) errors.push({ setting: "FED_PUBLIC_KEY", message: "does not match FED_PRIVATE_KEY" });
  }
  for (const p of config.fedPeers) {
    const problem = syncUrlProblem(p, config.fedLoopbackPeers);
    if (problem) errors.push({ setting: "FED_PEERS", message: problem });
  }
  if (config.fedHubUrl) {
    const problem = syncUrlProblem(config.fedHubUrl, config.fedLoopbackPeers);
    if (problem) errors.push({ setting: "FED_HUB_URL", message: problem });
  }
  if (config.fedViaUrl) {
    const problem = syncUrlProblem(config.fedViaUrl, config.fedLoopbackPeers);
    if (problem) errors.push({ setting: "FED_VIA_URL", message: problem });
  }
  if (config.fedRegistry && !config.fedRegistryKey)
    errors.push({ setting: "FED_REGISTRY_KEY", message: "must be set when FED_REGISTRY is set (the registry is verified against it)" });
  if (config.digipeat !== "off" && !config.radioCall)
    errors.push({ setting: "DIGIPEAT", message: "needs RADIO_CALL: the digipeater puts the station's verified call in the path" });
  const endpoints: string[] = [];
  for (const e of config.fedEndpoints) {
    const v = validateEndpoint(e);
    if (v.ok) endpoints.push(e);
    else warnings.push({ setting: "FED_ENDPOINTS", message: `entry "${e}" dropped: ${v.message}` });
  }
  config.fedEndpoints = endpoints;
  if (config.nodeAlias) {
    const nodeCall = config.nodeCall ?? config.radioCall;
    const ax25 = endpoints.map((e) => validateEndpoint(e)).find((v) => v.ok && v.endpoint.transport === "ax25");
    const svcCall = ax25?.ok ? ax25.endpoint.address : config.radioCall;
    if (!nodeCall) errors.push({ setting: "NODE_ALIAS", message: "needs RADIO_CALL or NODE_CALL: a NET/ROM node transmits" });
    else if (nodeCall === svcCall)
      errors.push({
        setting: "NODE_CALL",
        message: `must differ from ${svcCall}, the call SVCL1 sync is served on (use another SSID, e.g. ${baseCallOf(nodeCall)}-7)`,
      });
  }

  if (config.tls === "files")
    for (const [env, v] of [
      ["TLS_CERT", config.tlsCert],
      ["TLS_KEY", config.tlsKey],
    ] as const)
      if (!v) errors.push({ setting: env, message: "must be set when TLS=files (a PEM file)" });
  if (config.tls === "acme" && config.acmeDomains.length === 0)
    errors.push({ setting: "ACME_DOMAINS", message: "must name at least one public DNS name when TLS=acme" });
  if (config.stationBeacon && !config.radioCall)
    errors.push({ setting: "STATION_BEACON", message: "needs RADIO_CALL: the beacon goes out under the station's verified call" });
  if (config.bbsAx25Call) {
    const nodeCall = config.nodeAlias ? (config.nodeCall ?? config.radioCall) : null;
    if (!config.radioCall) errors.push({ setting: "BBS_AX25_CALL", message: "needs RADIO_CALL: the station's verified call licenses what it sends" });
    else if (config.bbsAx25Call === config.radioCall)
      errors.push({
        setting: "BBS_AX25_CALL",
        message: `must differ from RADIO_CALL ${config.radioCall}, the call SVCL1 sync is served on (use another SSID, e.g. ${baseCallOf(config.radioCall)}-1)`,
      });
    else if (config.bbsAx25Call === nodeCall) errors.push({ setting: "BBS_AX25_CALL", message: `must differ from the NET/ROM node call ${nodeCall}` });
  }
  Object.freeze(config.adminCallsigns);
  Object.freeze(config.aprsGroups);
  Object.freeze(config.fedPeers);
  Object.freeze(config.fedEndpoints);
  Object.freeze(config.kissPorts);
  Object.freeze(config.radioPath);
  return { config: Object.freeze(config), errors, warnings, envFile };
}

/** The same config with some settings replaced: for tests and the in-process gateway. */
export function configFor(dataDir: string, env: Record<string, string | undefined> = {}): Config {
  const loaded = loadConfig({ dataDir, env });
  if (loaded.errors.length) {
    throw new Error(loaded.errors.map((e) => `${e.setting}: ${e.message}`).join("\n"));
  }
  return loaded.config;
}

/** Line breaks and other control characters: no setting has one, and the env file is one line per setting. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/; // C0, DEL, C1 (NEL among them) and the Unicode line and paragraph separators
const controlRefused = bad("has a line break or another control character");

/** Validates one setting's raw value with the same parser startup uses. */
export function validateSetting(env: string, raw: string): { ok: true } | { ok: false; message: string } {
  const s = SETTINGS.find((x) => x.env === env);
  if (!s) return { ok: false, message: `${env} is not a known setting` };
  const p = CONTROL.test(raw.trim()) ? controlRefused : (s.parse as Parser<unknown>)(raw.trim());
  return p.ok ? { ok: true } : { ok: false, message: `${env} ${p.message}` };
}

/**
 * Sets keys in the env file, keeping every other line (comments included) as
 * it is. The file is written whole to a temporary name and renamed, so a crash
 * never leaves half a file.
 */
export function updateEnvFile(path: string, values: Record<string, string>): void {
  for (const [k, v] of Object.entries(values)) {
    if (CONTROL.test(v) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
      throw new Error(`${k}: refusing to write a line break or control character to ${ENV_FILE_NAME}`);
  }
  const lines = existsSync(path) ? readFileSync(path, "utf8").split(/\r?\n/) : ["# svc-gateway settings (see svc-gateway --help)"];
  const pending = new Map(Object.entries(values));
  const quote = (v: string) => (/^[A-Za-z0-9_./:@,{}-]*$/.test(v) ? v : `"${v.replaceAll('"', "")}"`);
  const out = lines.map((line) => {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line);
    if (m && pending.has(m[1]!)) {
      const v = pending.get(m[1]!)!;
      pending.delete(m[1]!);
      return `${m[1]}=${quote(v)}`;
    }
    return line;
  });
  while (out.length && out[out.length - 1] === "") out.pop();
  for (const [k, v] of pending) out.push(`${k}=${quote(v)}`);
  writeFileSync(path + ".tmp", out.join("\n") + "\n", { mode: 0o600 });
  renameSync(path + ".tmp", path);
}
