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
import { inRange, isV4, parseIp, parseRange, type IpRange } from "./ip.ts";

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

/** Special ranges, first match wins; IPv4 ranges match IPv4 and its IPv4-mapped IPv6 form alike (net/ip.ts). */
const SPECIAL: Array<[IpRange, string]> = (
  [
    ["0.0.0.0/8", "this network"],
    ["10.0.0.0/8", "private (RFC 1918)"],
    ["100.64.0.0/10", "shared address space (CGNAT)"],
    ["127.0.0.0/8", "loopback"],
    ["169.254.0.0/16", "link-local"],
    ["172.16.0.0/12", "private (RFC 1918)"],
    ["192.0.0.0/24", "IETF protocol assignments"],
    ["192.0.2.0/24", "documentation"],
    ["192.88.99.0/24", "6to4 relay anycast"],
    ["192.168.0.0/16", "private (RFC 1918)"],
    ["198.18.0.0/15", "benchmarking"],
    ["198.51.100.0/24", "documentation"],
    ["203.0.113.0/24", "documentation"],
    ["224.0.0.0/4", "multicast"],
    ["240.0.0.0/4", "reserved"],
    ["::/128", "unspecified"],
    ["::1/128", "loopback"],
    ["::/96", "IPv4-compatible (deprecated)"],
    ["64:ff9b:1::/48", "local-use NAT64"],
    ["100::/64", "discard-only"],
    ["fc00::/7", "unique local (ULA)"],
    ["fe80::/10", "link-local"],
    ["fec0::/10", "site-local (deprecated)"],
    ["ff00::/8", "multicast"],
    ["2001:db8::/32", "documentation"],
    ["3ff0::/12", "documentation"],
    ["2001::/23", "IETF protocol assignments (Teredo, ORCHID, ...)"],
  ] as Array<[string, string]>
).map(([r, name]) => [parseRange(r)!, name]);

const NAT64 = parseRange("64:ff9b::/96")!;
const SIX_TO_FOUR = parseRange("2002::/16")!;
const GLOBAL_UNICAST = parseRange("2000::/3")!;
const V4 = (n: bigint) => (0xffffn << 32n) | (n & 0xffffffffn);

function special(ip: bigint): string | null {
  // NAT64 and 6to4 reach the IPv4 address they embed: that address decides.
  if (inRange(ip, NAT64)) return special(V4(ip));
  if (inRange(ip, SIX_TO_FOUR)) {
    const inner = special(V4(ip >> 80n));
    return inner ? `6to4 of ${inner}` : null;
  }
  for (const [r, name] of SPECIAL) if (inRange(ip, r)) return name;
  // everything outside global unicast 2000::/3 (IPv4 aside) is reserved
  return isV4(ip) || inRange(ip, GLOBAL_UNICAST) ? null : "reserved";
}

/**
 * Why an IP address must not be dialled for a user or a peer (the name of its
 * special range), or null for an ordinary public address. Not an address: a
 * reason too.
 */
export function specialAddress(address: string): string | null {
  const ip = parseIp(address);
  return ip === null ? "not an IP address" : special(ip);
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
async function resolveOutbound(host: string, opts: GuardOptions): Promise<string> {
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
export async function guardedFetch(
  url: string,
  init: Omit<RequestInit, "headers"> & { headers?: Record<string, string> },
  opts: GuardOptions,
): Promise<Response> {
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
