/**
 * The one typed endpoint validator (SPEC "Typed endpoints"). An endpoint is
 * written `transport:address`, optionally followed by `;priority`:
 *   https:https://gw.example.org        sync, default internet path
 *   ampr:n0call.ampr.org                sync, plain HTTP inside 44net
 *   ax25:N0CALL-5                       forward, packet circuit
 *   netrom:GWNODE                       forward, NET/ROM node alias
 *   bbs:N0CALL@N0BBS.#NCA.CA.USA.NOAM   forward, FBB store-and-forward
 * A lower priority value is preferred; without one, list order decides.
 */
import { isCallsign } from "../callsign.ts";

export type Transport = "https" | "ampr" | "ax25" | "netrom" | "bbs";

export interface Endpoint {
  transport: Transport;
  address: string;
  priority: number;
}

export type EndpointCheck = { ok: true; endpoint: Endpoint } | { ok: false; message: string };

const AMPR_HOST = /^[a-z0-9]{1,3}[0-9][a-z0-9]{0,3}[a-z](?:-[0-9]{1,2})?\.ampr\.org$/;
const NETROM_ALIAS = /^[A-Z0-9#_-]{1,6}$/;
const BBS_ADDRESS = /^([A-Z0-9]{3,7}(?:-[0-9]{1,2})?)@([A-Z0-9]{3,7})((?:\.#?[A-Z0-9]{1,6}){0,5})$/;

/** Validates one `transport:address[;priority]` entry; `index` is the fallback priority. */
export function validateEndpoint(raw: string, index = 0): EndpointCheck {
  const semi = raw.lastIndexOf(";");
  let body = raw.trim();
  let priority = index * 10;
  if (semi > 0) {
    const p = raw.slice(semi + 1).trim();
    if (!/^\d{1,4}$/.test(p)) return { ok: false, message: `priority "${p}" is not a number 0-9999` };
    priority = Number(p);
    body = raw.slice(0, semi).trim();
  }
  const colon = body.indexOf(":");
  if (colon < 1) return { ok: false, message: "expected transport:address" };
  const transport = body.slice(0, colon).toLowerCase();
  const address = body.slice(colon + 1).trim();
  switch (transport) {
    case "https": {
      let u: URL;
      try {
        u = new URL(address);
      } catch {
        return { ok: false, message: "not a URL" };
      }
      if (u.protocol !== "https:") return { ok: false, message: "an https endpoint needs an https:// URL" };
      if (u.username || u.password) return { ok: false, message: "credentials in an endpoint URL are not allowed" };
      return { ok: true, endpoint: { transport, address: address.replace(/\/+$/, ""), priority } };
    }
    case "ampr": {
      const host = address.toLowerCase();
      if (!AMPR_HOST.test(host)) return { ok: false, message: "an ampr endpoint is a <call>.ampr.org host name" };
      return { ok: true, endpoint: { transport, address: host, priority } };
    }
    case "ax25": {
      const call = address.toUpperCase();
      if (!isCallsign(call)) return { ok: false, message: "an ax25 endpoint is CALLSIGN-SSID" };
      return { ok: true, endpoint: { transport, address: call, priority } };
    }
    case "netrom": {
      const alias = address.toUpperCase();
      if (!NETROM_ALIAS.test(alias)) return { ok: false, message: "a netrom endpoint is a node alias of up to 6 characters" };
      return { ok: true, endpoint: { transport, address: alias, priority } };
    }
    case "bbs": {
      const addr = address.toUpperCase();
      const m = BBS_ADDRESS.exec(addr);
      if (!m || !isCallsign(m[1]!)) return { ok: false, message: "a bbs endpoint is CALL@BBS.#REGION.CC.CONT" };
      return { ok: true, endpoint: { transport, address: addr, priority } };
    }
    default:
      return { ok: false, message: `unknown transport "${transport}" (https, ampr, ax25, netrom, bbs)` };
  }
}

/** Validates a list, dropping malformed entries, sorted by priority (stable). */
export function parseEndpoints(raw: readonly string[]): Endpoint[] {
  const out: Endpoint[] = [];
  raw.forEach((r, i) => {
    const v = validateEndpoint(r, i);
    if (v.ok) out.push(v.endpoint);
  });
  return out.sort((a, b) => a.priority - b.priority);
}

/** An endpoint written back in the form validateEndpoint reads. */
export function formatEndpoint(e: Endpoint): string {
  return `${e.transport}:${e.address};${e.priority}`;
}

/** A `<call>.ampr.org` host name (44net: plain HTTP allowed). */
export function isAmprHost(host: string): boolean {
  return AMPR_HOST.test(host.toLowerCase());
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * The sync transport rule for a base URL: https anywhere; plain http only to
 * a `<call>.ampr.org` host, or to a loopback address on an instance started
 * with FED_LOOPBACK_PEERS=on (tests and labs). Null when allowed, else why not.
 * Which addresses may be reached at all is the outbound guard's rule
 * (src/lib/net/outbound.ts), checked when connecting.
 */
export function syncUrlProblem(raw: string, loopback: { any: boolean; hosts: Record<string, number> } | null): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `"${raw}" is not a URL`;
  }
  if (u.username || u.password) return "credentials in a peer URL are not allowed";
  if (u.protocol === "https:") return null;
  if (u.protocol !== "http:") return `"${raw}" must be https:// (or http:// to a <call>.ampr.org host)`;
  if (isAmprHost(u.hostname)) return null;
  if (loopback?.any && LOOPBACK_HOSTS.has(u.hostname)) return null;
  return `"${raw}" is plain HTTP to a host outside 44net: use https:// (plain http only to a <call>.ampr.org host)`;
}

/** The URL a sync endpoint resolves to (https: its URL; ampr: http://host), or null for forward transports. */
export function endpointUrl(e: Endpoint): string | null {
  if (e.transport === "https") return e.address;
  if (e.transport === "ampr") return `http://${e.address}`;
  return null;
}
