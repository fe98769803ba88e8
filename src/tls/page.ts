/**
 * The local CA for devices: its certificate (GET /tls/ca.pem) and the page
 * /tls, both also on plain http (a device must fetch the CA before it trusts
 * https here): the SHA-256 fingerprint to compare, a QR code of the CA's
 * address for a phone, and how to install it on each system.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import { CA_CERT_FILE, tlsDir, type TlsMode } from "./index.ts";
import { translator, type Translate } from "../i18n/server.ts";

/** The local CA's certificate (never its key); null unless TLS=local made one. */
export function caCertificate(mode: TlsMode, dataDir: string): string | null {
  if (mode !== "local") return null;
  const f = join(tlsDir(dataDir), CA_CERT_FILE);
  return existsSync(f) ? readFileSync(f, "utf8") : null;
}

/** The file name devices save it under: .crt opens the certificate installer on Windows and macOS. */
export const CA_FILE_NAME = "svc-gateway-local-ca.crt";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface TlsPageInput {
  mode: TlsMode;
  ca: string | null;
  /** http://host:port/tls/ca.pem as the visitor reaches it */
  caUrl: string;
  /** https://host:port/ once trusted */
  httpsUrl: string | null;
  qrSvg: string;
  /** the visitor's language (src/i18n: Accept-Language) */
  lang?: string;
}

/** How to install the CA on each system, in the visitor's words (the commands as they are typed). */
function steps(t: Translate): string {
  const file = { file: CA_FILE_NAME };
  const list = (heading: string, items: string[]) => `<h2>${heading}</h2><ol>${items.map((i) => `<li>${i}</li>`).join("")}</ol>`;
  return [
    list("Android", [t("tlsSteps.download"), t("tlsSteps.androidInstall", file), t("tlsSteps.androidBrowsers")]),
    list(t("tlsSteps.ios"), [t("tlsSteps.iosOpen"), t("tlsSteps.iosInstall"), t("tlsSteps.iosTrust")]),
    list("Windows", [t("tlsSteps.windowsOpen", file), t("tlsSteps.windowsInstall", file), t("tlsSteps.windowsBrowsers")]),
    list("macOS", [t("tlsSteps.macOpen"), t("tlsSteps.macTrust", file), t("tlsSteps.macBrowsers")]),
    list(t("tlsSteps.linux"), [t("tlsSteps.linuxImport"), t("tlsSteps.linuxTerminal", file), t("tlsSteps.linuxSystem", file)]),
    list(t("tlsSteps.firefox"), [t("tlsSteps.firefoxImport"), t("tlsSteps.firefoxSystem")]),
  ].join("\n");
}

export function tlsPage(p: TlsPageInput): string {
  const lang = p.lang ?? "en";
  const t = translator(lang);
  const head = `<!doctype html><html lang="${esc(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${t("tls.title")}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:1rem auto;padding:0 1rem}code,kbd{font-size:.9em;background:#eee;padding:0 .2em;border-radius:3px;word-break:break-all}.fp{font-family:monospace;word-break:break-all;background:#eee;padding:.4em}.qr{width:12rem}.qr svg{width:100%;height:auto}h2{margin-top:1.6em}li{margin:.3em 0}</style></head><body>`;
  if (!p.ca)
    return `${head}<h1>${t("tls.offHeading")}</h1><p>${
      p.mode === "off" ? t("tls.off") : t("tls.trusted", { what: t(p.mode === "acme" ? "tls.acme" : "tls.files"), mode: p.mode })
    }</p>${p.httpsUrl ? `<p><a href="${esc(p.httpsUrl)}">${t("tls.openHttps")}</a></p>` : ""}</body></html>`;
  const fp = new X509Certificate(p.ca).fingerprint256;
  const ca = esc(p.caUrl);
  return `${head}<h1>${t("tls.heading")}</h1>
<p>${t("tls.intro", { https: p.httpsUrl ? `<a href="${esc(p.httpsUrl)}">${esc(p.httpsUrl)}</a>` : t("tls.theHttpsAddress") })}</p>
<p><a href="${ca}" download="${CA_FILE_NAME}"><strong>${t("tls.download")}</strong></a> (<code>${ca}</code>), ${t("tls.orScan")}</p>
<div class="qr" role="img" aria-label="${t("tls.qrLabel", { url: ca })}">${p.qrSvg}</div>
<p>${t("tls.compare")}</p><p class="fp" data-fingerprint>${fp}</p>
<p>${t("tls.warning")}</p>
${steps(t)}
</body></html>`;
}
