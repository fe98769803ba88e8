/**
 * The client address every per-address limit counts against. Without
 * TRUST_PROXY it is the socket's peer. With it, and only when the peer is one
 * of TRUSTED_PROXIES, X-Forwarded-For is read from the right: each proxy
 * appends the address it saw, so the right-most hop that is not a trusted
 * proxy is the client. Entries further left were written by the client
 * itself and count for nothing (taking the left-most one let a client pick a
 * fresh address for every request).
 *
 * An IPv6 client counts by its /64: one subscriber, home or host is given a
 * whole /64 and can pick a fresh address in it for every request. IPv4 (also
 * written IPv4-mapped, ::ffff:a.b.c.d) counts by its address.
 */
import type { HttpServer } from "./host.ts";
import type { Config } from "../core/config.ts";
import { inRanges, isV4, parseIp, type IpRange } from "../lib/net/ip.ts";

const trusted = (addr: string, ranges: readonly IpRange[]) => {
  const ip = parseIp(addr);
  return ip !== null && inRanges(ip, ranges);
};

/** The client named by a trusted proxy chain; see the file comment. */
export function forwardedClient(peer: string, forwardedFor: string | null, proxies: readonly IpRange[]): string {
  if (!forwardedFor || !trusted(peer, proxies)) return peer;
  const hops = forwardedFor
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted(hops[i]!, proxies)) return hops[i]!.slice(0, 64);
  }
  return hops[0]?.slice(0, 64) ?? peer;
}

/**
 * What a per-address limit counts an address as: IPv4 as itself (dotted, also
 * when it came IPv4-mapped), IPv6 as its /64; anything else as it is.
 *
 *   countedAddress("2001:db8:1:2:aaaa::7")  // "2001:db8:1:2::/64"
 *   countedAddress("::ffff:192.0.2.1")      // "192.0.2.1"
 */
export function countedAddress(addr: string): string {
  const ip = parseIp(addr);
  if (ip === null) return addr;
  if (isV4(ip)) return [24n, 16n, 8n, 0n].map((s) => String((ip >> s) & 0xffn)).join(".");
  const words = [112n, 96n, 80n, 64n].map((s) => ((ip >> s) & 0xffffn).toString(16));
  return `${words.join(":")}::/64`;
}

/** The client every per-address limit counts (see the file comment). */
export function clientIp(config: Pick<Config, "trustProxy" | "trustedProxies">, request: Request, server: HttpServer | null): string {
  const peer = server?.requestIP(request)?.address ?? "unknown";
  return countedAddress(config.trustProxy ? forwardedClient(peer, request.headers.get("x-forwarded-for"), config.trustedProxies) : peer);
}
