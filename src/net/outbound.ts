/**
 * The one guard for connections this server opens on behalf of a user or a
 * peer (web push endpoints, peer sync/notify/corroborate/relay/hub URLs,
 * endpoints learnt from a peer's registry view).
 *
 * guardedFetch() resolves the host name itself (every address it has), refuses
 * the request when any of them lies in a special range (loopback, RFC 1918,
 * CGNAT, link-local, multicast, unspecified, documentation, benchmarking,
 * reserved; IPv6 loopback, ULA, link-local, site-local, multicast,
 * documentation, and the IPv4-mapped/NAT64/6to4 forms of an IPv4 special
 * address), and then connects to the address it checked: the URL's host is
 * replaced by that address, the Host header and the TLS server name (SNI and
 * certificate check) stay the original name. A name that answers a public
 * address to the check and a private one to the connection (DNS rebinding)
 * therefore cannot win. 44.0.0.0/8 (AMPRNet) is ordinary public space.
 *
 * `allowPrivate` (the lab settings: OUTBOUND_ALLOW_PRIVATE, or
 * FED_LOOPBACK_PEERS=on for peers, PUSH_ALLOW_PRIVATE_ENDPOINTS for push)
 * turns the range check off; the name is still resolved and the connection
 * pinned the same way (one code path, which the lab tests exercise).
 *
 * Not under this guard, by decision: URLs and hosts the operator sets in the
 * configuration (DOH_URL, FED_REGISTRY, APRSIS_SERVER, SMTP_URL, KISS_PORTS)
 * and BBS forwarding partners the sysop enters (FBB TCP): the operator may
 * point them at the LAN on purpose, and no user or peer can change them.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";

export class OutboundRefused extends Error {
  override name = "OutboundRefused";
  readonly code = "address_refused";
  constructor(message: string) {
    super(message);
  }
}

export type Lookup = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

// ---------------------------------------------------------------- ranges

/** [first octets as a 32-bit number, prefix length, name] */
const V4_SPECIAL: Array<[number, number, string]> = (
  [
    ["0.0.0.0", 8, "this network"],
    ["10.0.0.0", 8, "private (RFC 1918)"],
    ["100.64.0.0", 10, "shared address space (CGNAT)"],
    ["127.0.0.0", 8, "loopback"],
    ["169.254.0.0", 16, "link-local"],
    ["172.16.0.0", 12, "private (RFC 1918)"],
    ["192.0.0.0", 24, "IETF protocol assignments"],
    ["192.0.2.0", 24, "documentation"],
    ["192.88.99.0", 24, "6to4 relay anycast"],
    ["192.168.0.0", 16, "private (RFC 1918)"],
    ["198.18.0.0", 15, "benchmarking"],
    ["198.51.100.0", 24, "documentation"],
    ["203.0.113.0", 24, "documentation"],
    ["224.0.0.0", 4, "multicast"],
    ["240.0.0.0", 4, "reserved"],
  ] as Array<[string, number, string]>
).map(([a, len, name]) => [v4Number(a)!, len, name]);

function v4Number(a: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(a);
  if (!m) return null;
  const o = m.slice(1).map(Number);
  if (o.some((x) => x > 255)) return null;
  return ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) >>> 0;
}

function v4Special(n: number): string | null {
  for (const [base, len, name] of V4_SPECIAL) {
    const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
    if (((n & mask) >>> 0) === base) return name;
  }
  return null;
}

/** Eight 16-bit groups of an IPv6 address (with an optional dotted IPv4 tail), or null. */
function v6Groups(a: string): number[] | null {
  let s = a.toLowerCase();
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  const lastColon = s.lastIndexOf(":");
  const dotted = s.slice(lastColon + 1);
  if (dotted.includes(".")) {
    const n = v4Number(dotted);
    if (n === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const part = (x: string) => (x === "" ? [] : x.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = part(halves[0]!);
  const rest = halves.length === 2 ? part(halves[1]!) : [];
  const want = 8;
  let groups: number[];
  if (halves.length === 2) {
    const fill = want - head.length - rest.length;
    if (fill < 1) return null;
    groups = [...head, ...new Array<number>(fill).fill(0), ...rest];
  } else {
    if (head.length !== want) return null;
    groups = head;
  }
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function v6Special(g: number[]): string | null {
  const v4 = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 8)) return "unspecified";
  if (zero(0, 7) && g[7] === 1) return "loopback";
  // IPv4-mapped ::ffff:a.b.c.d and NAT64 64:ff9b::a.b.c.d: the IPv4 address decides
  if (zero(0, 5) && g[5] === 0xffff) return v4Special(v4(g[6]!, g[7]!)) ?? null;
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4Special(v4(g[6]!, g[7]!)) ?? null;
  if (zero(0, 6)) return "IPv4-compatible (deprecated)";
  // 6to4 2002:a.b.c.d::/48 reaches the IPv4 address it embeds
  if (g[0] === 0x2002) {
    const inner = v4Special(v4(g[1]!, g[2]!));
    return inner ? `6to4 of ${inner}` : null;
  }
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return "unique local (ULA)";
  if ((first & 0xffc0) === 0xfe80) return "link-local";
  if ((first & 0xffc0) === 0xfec0) return "site-local (deprecated)";
  if ((first & 0xff00) === 0xff00) return "multicast";
  if (first === 0x2001 && g[1] === 0x0db8) return "documentation";
  if ((first & 0xfff0) === 0x3ff0) return "documentation";
  if (first === 0x2001 && g[1]! < 0x0200) return "IETF protocol assignments (Teredo, ORCHID, ...)";
  if (first === 0x0064 && g[1] === 0xff9b && g[2] === 1) return "local-use NAT64";
  if (first === 0x0100 && zero(1, 4)) return "discard-only";
  // everything outside global unicast 2000::/3 is reserved
  if ((first & 0xe000) !== 0x2000) return "reserved";
  return null;
}

/**
 * Why an IP address must not be dialled for a user or a peer (the name of its
 * special range), or null for an ordinary public address. Not an address: a
 * reason too.
 */
export function specialAddress(address: string): string | null {
  const a = address.replace(/^\[|\]$/g, "");
  const kind = isIP(a.split("%")[0]!);
  if (kind === 4) return v4Special(v4Number(a)!);
  if (kind === 6) {
    const g = v6Groups(a);
    return g ? v6Special(g) : "not an IPv6 address";
  }
  return "not an IP address";
}

// ---------------------------------------------------------------- resolving and connecting

export interface GuardOptions {
  /** lab setting: skip the range check */
  allowPrivate: boolean;
  /** the resolver; the system's (node:dns lookup, all addresses) by default */
  lookup?: Lookup;
}

/**
 * Resolves a host (a name or an IP literal) and returns the address to
 * connect to. Throws OutboundRefused when any address it has is special, and
 * the resolver's error when it has none.
 */
export async function resolveOutbound(host: string, opts: GuardOptions): Promise<string> {
  const h = host.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(h)) addresses = [h];
  else {
    const answers = await (opts.lookup ?? systemLookup)(h);
    addresses = answers.map((a) => a.address);
    if (addresses.length === 0) throw Object.assign(new Error(`${h} has no address`), { code: "ENOTFOUND" });
  }
  if (!opts.allowPrivate) {
    for (const a of addresses) {
      const why = specialAddress(a);
      if (why) throw new OutboundRefused(`${h === a ? a : `${h} (${a})`} is a ${why} address; this server does not connect there for users or peers`);
    }
  }
  return addresses[0]!;
}

/**
 * Why a host would be refused, or null when it resolves to public addresses
 * only (or does not resolve now: the connection is checked again then).
 */
export async function outboundProblem(host: string, opts: GuardOptions): Promise<string | null> {
  try {
    await resolveOutbound(host, opts);
    return null;
  } catch (e) {
    return e instanceof OutboundRefused ? e.message : null;
  }
}

/**
 * fetch() under the guard: the URL's host is resolved and checked, and the
 * request goes to the checked address with the original Host header and TLS
 * server name. Redirects are never followed (a redirect would be a new,
 * unchecked destination). Throws OutboundRefused before any connection.
 */
export async function guardedFetch(url: string, init: Omit<RequestInit, "headers"> & { headers?: Record<string, string> }, opts: GuardOptions): Promise<Response> {
  const u = new URL(url);
  if (u.protocol !== "https:" && u.protocol !== "http:") throw new OutboundRefused(`${u.protocol} is not http(s)`);
  const name = u.hostname.replace(/^\[|\]$/g, "");
  const address = await resolveOutbound(name, opts);
  const pinned = new URL(url);
  pinned.hostname = isIP(address) === 6 ? `[${address}]` : address;
  const headers: Record<string, string> = { ...init.headers, host: u.host };
  const tls = u.protocol === "https:" && !isIP(name) ? { serverName: name } : undefined;
  return fetch(pinned.toString(), { ...init, headers, redirect: "manual", ...(tls ? { tls } : {}) } as RequestInit);
}
