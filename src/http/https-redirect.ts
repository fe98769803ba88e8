/**
 * Plain http beside HTTPS (TLS on): browser pages redirect to https with 308,
 * machine clients and /tls answer (src/tls/policy.ts). HTTPS answers carry
 * HSTS only with TLS=acme: a certificate from the local CA or the operator's
 * files may go away, and HSTS would then lock browsers out of plain http.
 */
import type { Gateway } from "./gateway.ts";
import { httpsLocation, plainHttpAction } from "../tls/policy.ts";

const HSTS = "max-age=31536000";

/** An onRequest hook: a redirect Response for plain http when TLS says so, else nothing. */
export function httpsRedirect(gw: Gateway) {
  return ({ request, set }: { request: Request; set: { headers: Record<string, unknown> } }): Response | undefined => {
    if (!gw.tls.on) return;
    const url = new URL(request.url);
    if (url.protocol === "https:") {
      if (gw.tls.mode === "acme") set.headers["strict-transport-security"] = HSTS;
      return;
    }
    const port = gw.tls.httpsPort;
    if (port === null || plainHttpAction(url.pathname, gw.config.httpRedirectAll) === "serve") return;
    return new Response(null, {
      status: 308,
      headers: { location: httpsLocation(request.url, request.headers.get("host"), port), "cache-control": "no-store" },
    });
  };
}
