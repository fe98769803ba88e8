/**
 * What the plain-http listener does with a request while TLS is on: browser
 * pages go to https (308 keeps the method and body), machine clients on the
 * LAN keep working over http (the ingest and radio boxes, peers, the API),
 * and what a device needs before it trusts the local CA, or an ACME server
 * needs to validate, always answers over http.
 */

/** Always answered over plain http: the CA for devices, the ACME HTTP-01 challenge. */
const ALWAYS_PLAIN = [/^\/tls(\/ca\.pem)?\/?$/, /^\/\.well-known\/acme-challenge\//];

/** Machine clients' paths, answered over http unless HTTP_REDIRECT_ALL. */
const MACHINE = ["/ingest", "/outbox", "/api/", "/federation/", "/.well-known/", "/keys/", "/feeds/", "/badge/", "/ws", "/health", "/updateweatherstation"];

export type PlainHttp = "serve" | "redirect";

/** What plain http does with `path` (TLS on). */
export function plainHttpAction(path: string, redirectAll: boolean): PlainHttp {
  if (ALWAYS_PLAIN.some((r) => r.test(path))) return "serve";
  if (redirectAll) return "redirect";
  return MACHINE.some((p) => path === p || path.startsWith(p)) ? "serve" : "redirect";
}

/** The https address of a plain-http request: the same host name, the HTTPS port (left out when 443). */
export function httpsLocation(requestUrl: string, hostHeader: string | null, httpsPort: number): string {
  const u = new URL(requestUrl);
  const named = hostHeader ? new URL(`http://${hostHeader}`).hostname : u.hostname;
  return `https://${named}${httpsPort === 443 ? "" : `:${httpsPort}`}${u.pathname}${u.search}`;
}
