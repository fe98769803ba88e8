/**
 * The server's own words follow the reader's language (src/i18n): the
 * e-mail sign-in message through a real SMTP server and the /tls page, for
 * Accept-Language German and Spanish; English for a language without a
 * file and without the header. A watch digest in the language the account
 * chose (`lang` in its preferences).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { fromAcceptLanguage } from "../../src/i18n/server.ts";
import { signedInUser } from "../helpers/accounts.ts";

let g: Running;
/** with TLS=local, for the /tls page with its CA (plain http there redirects the sign-in POSTs) */
let tls: Running;
let smtp: SmtpSink;

beforeAll(async () => {
  smtp = await startSmtpSink({ user: "gw", pass: "mail-pass" });
  g = await startInProcess({ SMTP_URL: smtp.url, MAIL_FROM: "gw@example.org", INSTANCE: "test-gw" });
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
    const page = (lang: string) => g.get(`/cache/${id}`, { headers: { accept: "text/html", "accept-language": lang, "sec-fetch-mode": "navigate" } });
    const de = await page("de-DE,de;q=0.9");
    expect(de.status).toBe(200);
    expect(de.headers.get("vary")).toContain("Accept-Language");
    const html = await de.text();
    expect(html).toMatch(/<html lang="de">/);
    expect(html).toContain("<h1>Brunnen</h1>");
    expect(html).toContain("0 Funde · 0 Favoriten");
    expect(html).toContain(">Zum Inhalt springen<");
    const en = await (await page("en-US")).text();
    expect(en).toContain("0 finds · 0 favorites");
    expect(en).toMatch(/<html lang="en">/);
  }, 60_000); // the first page request builds the web app
});
