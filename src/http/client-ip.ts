/**
 * The client address every per-address limit counts against. Without
 * TRUST_PROXY it is the socket's peer. With it, and only when the peer is one
 * of TRUSTED_PROXIES, X-Forwarded-For is read from the right: each proxy
 * appends the address it saw, so the right-most hop that is not a trusted
 * proxy is the client. Entries further left were written by the client
 * itself and count for nothing (taking the left-most one let a client pick a
 * fresh address for every request).
 */
import type { HttpServer } from "./host.ts";
import type { Config } from "../config.ts";
import { inRanges, parseIp, type IpRange } from "../net/ip.ts";

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

export function clientIp(config: Pick<Config, "trustProxy" | "trustedProxies">, request: Request, server: HttpServer | null): string {
  const peer = server?.requestIP(request)?.address ?? "unknown";
  return config.trustProxy ? forwardedClient(peer, request.headers.get("x-forwarded-for"), config.trustedProxies) : peer;
}
