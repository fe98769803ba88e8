/**
 * The server's own words follow the reader's language (src/i18n): the
 * e-mail sign-in message through a real SMTP server and the /tls page, for
 * Accept-Language German and Spanish; English for a language without a
 * file and without the header. A watch digest in the language the account
 * chose (`lang` in its preferences), and so is the security e-mail to an
 * account that lost its callsign. The /tls page's steps for each system, the
 * plain-http answer of the HTTPS port and the embeddable badge follow the
 * reader's Accept-Language too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { fromAcceptLanguage } from "../../src/i18n/server.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { plainHttpAnswer } from "../helpers/tls.ts";
import { markCallsignVerified } from "../../src/accounts/users.ts";

const INGEST = "i18n-ingest-secret";

let g: Running;
/** with TLS=local, for the /tls page with its CA (plain http there redirects the sign-in POSTs) */
let tls: Running;
let smtp: SmtpSink;

beforeAll(async () => {
  smtp = await startSmtpSink({ user: "gw", pass: "mail-pass" });
  g = await startInProcess({ SMTP_URL: smtp.url, MAIL_FROM: "gw@example.org", INSTANCE: "test-gw", INGEST_SECRET: INGEST, FED_APRS_CALL: "N0GW-10" });
  tls = await startInProcess({ TLS: "local", HTTPS_PORT: "0" });
});
afterAll(async () => {
  await g.stop();
  await tls.stop();
  await smtp.stop();
});

describe("the server's words in the reader's language", () => {
  test("Accept-Language picks the best language there is a file for", () => {
    expect(fromAcceptLanguage("de-AT,de;q=0.9,en;q=0.5")).toBe("de");
    expect(fromAcceptLanguage("fr-FR, es;q=0.8, en;q=0.9")).toBe("en");
    expect(fromAcceptLanguage("fr, es;q=0.5")).toBe("es");
    expect(fromAcceptLanguage("fr, ja")).toBe("en");
    expect(fromAcceptLanguage("de;q=0")).toBe("en");
    expect(fromAcceptLanguage(null)).toBe("en");
  });

  test("the e-mail sign-in message is in German for Accept-Language: de, and its link and code still work", async () => {
    const start = await g.post("/auth/email/start", { email: "de@example.org" }, { headers: { "accept-language": "de-DE,de;q=0.9" } });
    expect(start.status).toBe(202);
    const mail = await smtp.next("de@example.org");
    expect(mail.subject).toMatch(/^Anmeldung bei test-gw: Code \d{6}$/);
    expect(mail.text).toContain("Öffne diesen Link, um dich anzumelden:");
    expect(mail.text).toContain("15 Minuten lang");
    const code = /Code (\d{6})/.exec(mail.subject)![1];
    const v = await g.post("/auth/email/verify", { email: "de@example.org", code });
    expect(v.status).toBe(200);
  });

  test("in Spanish for es, and in English without the header", async () => {
    await g.post("/auth/email/start", { email: "es@example.org" }, { headers: { "accept-language": "es-MX" } });
    const es = await smtp.next("es@example.org");
    expect(es.subject).toMatch(/^Inicio de sesión en test-gw: código \d{6}$/);
    expect(es.text).toContain("Abre este enlace para iniciar sesión:");
    await g.post("/auth/email/start", { email: "en@example.org" });
    const en = await smtp.next("en@example.org");
    expect(en.subject).toMatch(/^Sign in to test-gw: code \d{6}$/);
  });

  test("the /tls page in German for Accept-Language: de, in English otherwise", async () => {
    const de = await tls.get("/tls", { headers: { "accept-language": "de" } });
    expect(de.status).toBe(200);
    expect(de.headers.get("content-language")).toBe("de");
    expect(de.headers.get("vary")?.toLowerCase()).toContain("accept-language");
    const html = await de.text();
    expect(html).toContain('<html lang="de">');
    expect(html).toContain("<h1>Den Zertifikaten dieses Gateways vertrauen</h1>");
    expect(html).toContain("Das CA-Zertifikat herunterladen");
    expect(html).toMatch(/data-fingerprint>[0-9A-F:]{95}</);
    const en = await (await tls.get("/tls", { headers: { "accept-language": "fr" } })).text();
    expect(en).toContain('<html lang="en">');
    expect(en).toContain("<h1>Trust this gateway's certificates</h1>");
    // TLS off: the short page, in Spanish
    const off = await (await g.get("/tls", { headers: { "accept-language": "es-ES,es;q=0.9" } })).text();
    expect(off).toContain("<h1>HTTPS en este gateway</h1>");
    expect(off).toContain("HTTPS está desactivado (ajuste <code>TLS=off</code>)");
  });

  test("a watch digest e-mail is in the account's chosen language", async () => {
    const watcher = signedInUser(g.gw, "N0DEU", { verified: true });
    const owner = signedInUser(g.gw, "N0OWN", { verified: true });
    const finder = signedInUser(g.gw, "N0FND", { verified: true });
    g.gw.db.query("UPDATE users SET email = ? WHERE id = ?").run("watcher@example.org", watcher.id);
    const as = (u: { cookie: string }) => ({ headers: { cookie: u.cookie, "content-type": "application/json" } });
    expect((await g.get("/api/prefs", { ...as(watcher), method: "PUT", body: JSON.stringify({ lang: "de", units: "metric" }) })).status).toBe(200);
    expect((await g.get("/api/notify/prefs", { ...as(watcher), method: "PUT", body: JSON.stringify({ email: true, digest: "hourly" }) })).status).toBe(200);
    const cache = await g.post(
      "/api/caches",
      { name: "Mühlenteich", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 48.1, lon: 11.5 },
      as(owner),
    );
    const id = ((await cache.json()) as { id: number }).id;
    expect((await g.post(`/api/caches/${id}/watch`, {}, as(watcher))).status).toBe(200);
    expect((await g.post(`/api/caches/${id}/logs`, { kind: "find", text: "Danke!" }, as(finder))).status).toBe(201);
    const run = (await g.gw.scheduler.runNow("watch-digests")) as { sent: number };
    expect(run.sent).toBeGreaterThanOrEqual(1);
    const mail = await smtp.next("watcher@example.org");
    expect(mail.subject).toBe("1 neues Log zu beobachteten Caches");
    expect(mail.text).toContain("Neue Logs zu Caches, die du auf test-gw beobachtest:");
    expect(mail.text).toContain("N0FND hat ihn gefunden");
    expect(mail.text).toContain("Du bekommst diese stündliche Zusammenfassung");
  });

  test("a record page's server-drawn first view is in the visitor's language", async () => {
    const owner = signedInUser(g.gw, "N0PAG", { verified: true });
    const made = await g.post(
      "/api/caches",
      { name: "Brunnen", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 48.2, lon: 11.6 },
      { headers: { cookie: owner.cookie } },
    );
    const id = ((await made.json()) as { id: number }).id;
    expect((await g.post(`/api/caches/${id}/logs`, { kind: "note", text: "Frisch gelegt" }, { headers: { cookie: owner.cookie } })).status).toBe(201);
    const page = (lang: string) => g.get(`/cache/${id}`, { headers: { accept: "text/html", "accept-language": lang, "sec-fetch-mode": "navigate" } });
    const de = await page("de-DE,de;q=0.9");
    expect(de.status).toBe(200);
    expect(de.headers.get("vary")).toContain("Accept-Language");
    const html = await de.text();
    expect(html).toMatch(/<html lang="de">/);
    expect(html).toContain("<h1>Brunnen</h1>");
    expect(html).toContain("0 Funde · 0 Favoriten");
    // the cache's type, size and status in the app's words for them
    expect(html).toContain('<span class="tag">aktiv</span>');
    expect(html).toContain(" · Traditional · klein · D2/T2 · ");
    expect(html).toContain("<li><b>Notiz</b> N0PAG ");
    expect(html).toContain(">Zum Inhalt springen<");
    const en = await (await page("en-US")).text();
    expect(en).toContain("0 finds · 0 favorites");
    expect(en).toContain(" · traditional · small · D2/T2 · ");
    expect(en).toMatch(/<html lang="en">/);
  }, 60_000); // the first page request builds the web app

  test("the security e-mail to an account that lost its callsign is in that account's language", async () => {
    const prev = signedInUser(g.gw, "N0ALT", { verified: true });
    markCallsignVerified(g.gw, prev.id, "N0ALT", "test: verified by hand");
    g.gw.db.query("UPDATE users SET email = ? WHERE id = ?").run("alt@example.org", prev.id);
    const as = (u: { cookie: string }) => ({ headers: { cookie: u.cookie, "content-type": "application/json" } });
    expect((await g.get("/api/prefs", { ...as(prev), method: "PUT", body: JSON.stringify({ lang: "de" }) })).status).toBe(200);
    // another account verifies N0ALT on the air: heard by the operator's box from N0ALT-7 itself
    const next = signedInUser(g.gw, "N0NEU");
    expect((await g.post("/auth/callsigns", { add: "N0ALT-7" }, as(next))).status).toBe(200);
    const ch = (await (await g.post("/verify/aprs/start", { call: "N0ALT" }, as(next))).json()) as { code: string };
    const line = `N0ALT-7>APDR16,WIDE1-1::${"N0GW-10".padEnd(9)}:VERIFY ${ch.code}`;
    expect((await g.post("/ingest?igate=N0GW-10", `${line}\n`, { headers: { "content-type": "text/plain", "x-ingest-secret": INGEST } })).status).toBe(200);
    const mail = await smtp.next("alt@example.org");
    expect(mail.subject).toBe("N0ALT wurde auf test-gw von einem anderen Konto bestätigt");
    expect(mail.text).toContain(
      "Das Rufzeichen N0ALT wurde auf der svc-gateway-Instanz test-gw von einem anderen Konto bestätigt (APRS-Bestätigung von N0ALT-7 über",
    );
    expect(mail.text).toContain("Geräteschlüssel, die du dafür registriert hattest, wurden widerrufen");
    expect(mail.text).not.toContain("another account");
  });

  test("the /tls page's steps for each system are in German too, the commands as they are typed", async () => {
    const html = await (await tls.get("/tls", { headers: { "accept-language": "de-CH,de;q=0.9" } })).text();
    expect(html).toContain("<h2>iPhone und iPad (iOS, iPadOS)</h2>");
    expect(html).toContain("<b>Vertrauenswürdige Stammzertifizierungsstellen</b>");
    expect(html).toContain("Schlüsselbundverwaltung");
    expect(html).toContain("<h2>Linux: Chromium und Chrome</h2>");
    expect(html).toContain("<kbd>certutil -addstore -f ROOT svc-gateway-local-ca.crt</kbd>");
    expect(html).not.toContain("Download the certificate");
    expect(html).not.toContain("Trusted Root");
    const es = await (await tls.get("/tls", { headers: { "accept-language": "es" } })).text();
    expect(es).toContain("<b>Entidades de certificación raíz de confianza</b>");
    const en = await (await tls.get("/tls")).text();
    expect(en).toContain("<b>Trusted Root Certification Authorities</b>");
  });

  test("plain http typed at the HTTPS port is answered in the reader's language", async () => {
    const port = tls.gw.tls.httpsPort!;
    const ask = async (lang: string) =>
      Buffer.from(await plainHttpAnswer(port, `GET /map HTTP/1.1\r\nHost: gw.local:${port}\r\nAccept-Language: ${lang}\r\n\r\n`), "latin1").toString("utf8");
    const de = await ask("de-DE,de;q=0.9");
    expect(de).toStartWith("HTTP/1.1 400 Bad Request\r\n");
    expect(de).toContain("content-language: de\r\n");
    expect(de).toContain(`Dieser Port spricht HTTPS, kein unverschlüsseltes http. Öffne https://gw.local:${port}/map`);
    expect(await ask("es")).toContain(`Este puerto habla HTTPS, no http sin cifrar. Abre https://gw.local:${port}/map`);
    expect(await ask("fr")).toContain(`This port speaks HTTPS, not plain http. Open https://gw.local:${port}/map`);
  });

  test("the embeddable badge speaks the language of the page's reader", async () => {
    // N0FND logged one find in the digest's test above
    const es = await g.get("/badge/N0FND.svg", { headers: { "accept-language": "es-ES,es;q=0.9" } });
    expect(es.headers.get("vary")?.toLowerCase()).toContain("accept-language");
    const svg = await es.text();
    expect(svg).toContain(">1 hallazgo · 0 RF · 0 escondidos</text>");
    expect(svg).toContain("<title>N0FND en test-gw: 1 hallazgo · 0 RF · 0 escondidos</title>");
    expect(await (await g.get("/badge/N0FND.svg", { headers: { "accept-language": "de" } })).text()).toContain(">1 Fund · 0 RF · 0 versteckt</text>");
    expect(await (await g.get("/badge/N0FND.svg")).text()).toContain(">1 find · 0 RF · 0 hidden</text>");
    // a call with no game record yet
    expect(await (await g.get("/badge/N0XYZ.svg", { headers: { "accept-language": "de" } })).text()).toContain(">noch keine Funde</text>");
  });
});
