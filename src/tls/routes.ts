/**
 * TLS's routes, all answered on plain http too (src/tls/policy.ts): the local
 * CA's certificate and its install page, and the ACME HTTP-01 challenge
 * answers the ACME client publishes in `tls.challenges`.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { conflict, notFound } from "../lib/errors.ts";
import { caCertificate, CA_FILE_NAME, tlsPage } from "./page.ts";
import { fromAcceptLanguage } from "../i18n/server.ts";
import { TLS_RETRY, type TlsService } from "./index.ts";
import { answers, answersMedia } from "../http/openapi.ts";

const TAGS = ["System"];
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `httpPort`: the plain http port once listening (the CA is fetched there: a phone does not trust the HTTPS one yet) */
export function tlsRoutes(gw: Core, kit: RouteKit, tls: TlsService, httpPort: () => number) {
  const ca = () => caCertificate(tls.mode, gw.config.dataDir);
  return kit.app
    .get(
      "/tls/ca.pem",
      () => {
        const pem = ca();
        if (!pem) throw notFound(`a local certificate authority (TLS is ${tls.mode})`);
        return new Response(pem, {
          headers: {
            "content-type": "application/x-x509-ca-cert",
            "content-disposition": `attachment; filename="${CA_FILE_NAME}"`,
            "cache-control": "no-cache",
          },
        });
      },
      {
        gate: "public",
        detail: {
          summary: "The local certificate authority's certificate (TLS=local), PEM; also on plain http",
          description: "404 not_found unless TLS=local. The CA's key is never served.",
          tags: TAGS,
          responses: answersMedia("the CA certificate, PEM (a download)", "application/x-x509-ca-cert"),
        },
      },
    )
    .get(
      "/tls",
      async ({ request }) => {
        const host = request.headers.get("host") ?? new URL(request.url).host;
        const name = new URL(`http://${host}`).hostname;
        const named = name.includes(":") ? `[${name}]` : name;
        const caUrl = `http://${named}:${httpPort()}/tls/ca.pem`;
        const httpsPort = tls.httpsPort;
        const httpsUrl = httpsPort === null ? null : `https://${named}${httpsPort === 443 ? "" : `:${httpsPort}`}/`;
        const { default: QRCode } = await import("qrcode");
        const qrSvg = await QRCode.toString(caUrl, { type: "svg", margin: 2, errorCorrectionLevel: "M" });
        const lang = fromAcceptLanguage(request.headers.get("accept-language"));
        return new Response(tlsPage({ mode: tls.mode, ca: ca(), caUrl, httpsUrl, qrSvg, lang }), {
          headers: {
            "content-type": "text/html; charset=utf-8",
            "content-security-policy": PAGE_CSP,
            "cache-control": "no-cache",
            "content-language": lang,
            vary: "accept-language",
          },
        });
      },
      {
        gate: "public",
        detail: {
          summary:
            "How to trust this gateway's HTTPS: the local CA's fingerprint, a QR code of its address and install steps per system (HTML); also on plain http",
          tags: TAGS,
          responses: answersMedia("the page, in the Accept-Language's language", "text/html"),
        },
      },
    )
    .post(
      "/api/tls/retry",
      ({ set }) => {
        if (!tls.retryNow())
          throw conflict(
            "nothing_to_retry",
            `there is no failed certificate order to retry (TLS is ${tls.mode}${tls.mode === "acme" ? ", and its last order did not fail or is running now" : ""})`,
          );
        set.status = 202;
        return { retrying: true, state: tls.state() };
      },
      {
        gate: "sysop",
        detail: {
          summary: "After a failed ACME order or renewal: try again now instead of at the back-off's time (sysop)",
          description:
            "202 {retrying, state}; 409 nothing_to_retry when TLS is not acme, the last order did not fail, or one is running. The outcome shows in GET /api/ports a moment later.",
          tags: TAGS,
          responses: answers("the retry is under way; TLS's state now", TLS_RETRY, 202),
        },
      },
    )
    .get(
      "/.well-known/acme-challenge/:token",
      ({ params }) => {
        const answer = tls.challenges.get(params.token);
        if (answer === null) throw notFound("an ACME challenge with this token");
        return new Response(answer, { headers: { "content-type": "text/plain" } });
      },
      {
        gate: "public",
        params: t.Object({ token: t.String({ pattern: "^[A-Za-z0-9_-]{1,256}$", description: "the ACME HTTP-01 token" }) }),
        detail: {
          summary: "ACME HTTP-01 challenge answer (TLS=acme), on plain http",
          tags: TAGS,
          responses: answersMedia("the key authorization", "text/plain"),
        },
      },
    );
}
