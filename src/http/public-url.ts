/**
 * The base of every absolute URL the gateway hands out (sitemap, robots.txt,
 * QR codes, feeds, the API's links): PUBLIC_URL when it is set. Without it,
 * the Host header is taken only when it names this machine on the port the
 * gateway listens on (localhost, its host name, `<hostname>.local`, one of its
 * interface addresses), so a LAN visitor gets links that work for them; any
 * other Host, which a stranger chooses and a cache may keep, gives the
 * gateway's own listening URL instead.
 */
import { hostname, networkInterfaces } from "node:os";
import type { Gateway } from "./gateway.ts";
import { inRanges, parseIp, parseRanges } from "../lib/net/ip.ts";

const LOOPBACK = parseRanges("127.0.0.0/8,::1").ranges;
const NAMES_TTL_MS = 60_000;
let names: { at: number; hosts: Set<string>; ips: Set<bigint> } | null = null;

/** This machine's names and addresses, read again once a minute (DHCP moves them). */
function machine(now: number) {
  if (names && now - names.at < NAMES_TTL_MS) return names;
  const h = hostname().toLowerCase();
  const ips = new Set<bigint>();
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      const ip = parseIp(a.address);
      if (ip !== null) ips.add(ip);
    }
  }
  names = { at: now, hosts: new Set(["localhost", h, `${h}.local`]), ips };
  return names;
}

/** Whether `Host` (name or address, with or without port: `defaultPort`) names this machine on `port`. */
function namesThisMachine(host: string, port: number | undefined, now = Date.now(), defaultPort = 80): boolean {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(host.trim());
  if (!m) return false;
  if (port !== undefined && Number(m[2] ?? defaultPort) !== port) return false;
  const name = m[1]!.toLowerCase();
  const ip = parseIp(name);
  const known = machine(now);
  if (ip !== null) return inRanges(ip, LOOPBACK) || known.ips.has(ip);
  return known.hosts.has(name);
}

/** The base URL absolute links use, without a trailing slash; see the file comment. */
export function baseUrl(gw: Gateway, request: Request): string {
  if (gw.config.publicUrl) return gw.config.publicUrl.replace(/\/+$/, "");
  const host = request.headers.get("host");
  // with TLS on, https came to gw.server and plain http to gw.plainServer
  const https = new URL(request.url).protocol === "https:";
  const port = https ? gw.server?.port : (gw.plainServer ?? gw.server)?.port;
  if (host && namesThisMachine(host, port, Date.now(), https ? 443 : 80)) return `${https ? "https:" : "http:"}//${host.toLowerCase()}`;
  return gw.url ?? `http://localhost:${gw.config.port}`;
}
