/**
 * Every name and address the gateway answers on, for the local CA's server
 * certificate: the host name, `<hostname>.local` (mDNS), localhost and the
 * loopback addresses, each non-loopback interface address, and the host of
 * PUBLIC_URL. Link-local IPv6 addresses are left out: a URL can only name
 * them with a zone, which no certificate can carry.
 */
import { hostname, networkInterfaces } from "node:os";
import { isIP } from "node:net";

export function answeredNames(publicUrl: string | null, host = hostname(), interfaces = networkInterfaces()): string[] {
  const names = new Set<string>();
  const name = host.toLowerCase().replace(/\.$/, "");
  if (/^[a-z0-9.-]+$/.test(name) && name !== "localhost") {
    names.add(name);
    // mDNS (Avahi, Bonjour) answers for the first label: pi.example.org is pi.local
    names.add(`${name.split(".")[0]}.local`);
  }
  names.add("localhost");
  names.add("127.0.0.1");
  names.add("::1");
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) {
      if (a.internal || /^fe80:/i.test(a.address)) continue;
      names.add(a.address.toLowerCase());
    }
  }
  if (publicUrl) {
    const h = new URL(publicUrl).hostname.replace(/^\[|\]$/g, "").toLowerCase();
    if (h && (isIP(h) || /^[a-z0-9.-]+$/.test(h))) names.add(h);
  }
  return [...names];
}

/** Whether two name lists hold the same names, in any order. */
export const sameNames = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((n) => b.includes(n));
