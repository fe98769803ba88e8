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
import { translator } from "../i18n/server.ts";

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
  /** the visitor's language (src/i18n: Accept-Language); the steps for each system are in English for now */
  lang?: string;
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
<h2>Android</h2><ol><li>Download the certificate (the link or the QR code above).</li><li>Settings › Security and privacy › More security settings › Encryption and credentials › Install a certificate › <b>CA certificate</b> › Install anyway, and pick <code>${CA_FILE_NAME}</code> (names differ a little between makers: search Settings for “CA certificate”).</li><li>Chrome trusts it at once. Firefox: Settings › About Firefox, tap the logo five times, then Settings › Secret settings › <b>Use third party CA certificates</b>.</li></ol>
<h2>iPhone and iPad (iOS, iPadOS)</h2><ol><li>Open the link in <b>Safari</b> (or scan the QR code with the Camera) and allow the configuration profile to download.</li><li>Settings › General › VPN and Device Management › the profile “svc-gateway on …” › Install.</li><li>Settings › General › About › Certificate Trust Settings › turn on full trust for it.</li></ol>
<h2>Windows</h2><ol><li>Download the certificate and open <code>${CA_FILE_NAME}</code>.</li><li>Install Certificate › Local Machine › Place all certificates in the following store › Browse › <b>Trusted Root Certification Authorities</b> › Finish. (Or in an administrator prompt: <kbd>certutil -addstore -f ROOT ${CA_FILE_NAME}</kbd>.)</li><li>Edge and Chrome trust it after a restart of the browser; Firefox: see below.</li></ol>
<h2>macOS</h2><ol><li>Download the certificate and open it: Keychain Access adds it to the login keychain.</li><li>In Keychain Access, open the certificate “svc-gateway on …” › Trust › When using this certificate: <b>Always Trust</b>, and close it (your password confirms). (Or: <kbd>sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain ${CA_FILE_NAME}</kbd>.)</li><li>Safari and Chrome trust it at once; Firefox: see below.</li></ol>
<h2>Linux: Chromium and Chrome</h2><ol><li>Settings › Privacy and security › Security › Manage certificates › Authorities (or “Custom”: Installed by you) › Import, pick the file, tick <b>Trust this certificate for identifying websites</b>.</li><li>Or in a terminal (Debian package <code>libnss3-tools</code>): <kbd>certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n svc-gateway -i ${CA_FILE_NAME}</kbd>, then restart the browser.</li><li>For curl and other programs: <kbd>sudo cp ${CA_FILE_NAME} /usr/local/share/ca-certificates/ &amp;&amp; sudo update-ca-certificates</kbd>.</li></ol>
<h2>Firefox (Linux, Windows, macOS)</h2><ol><li>Settings › Privacy &amp; Security › Certificates › View Certificates › Authorities › Import, pick the file, tick <b>Trust this CA to identify websites</b>.</li><li>On Windows and macOS Firefox can instead use the system's store: <code>about:config</code> › <code>security.enterprise_roots.enabled</code> = true.</li></ol>
</body></html>`;
}
