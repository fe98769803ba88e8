/**
 * TLS=acme: a certificate for ACME_DOMAINS from an ACME server (Let's
 * Encrypt, or ACME_DIRECTORY), through acme-client (the protocol: account,
 * order, challenge, finalize), with the challenge answered by the gateway
 * itself: HTTP-01 on the plain-http listener (routes.ts) or TLS-ALPN-01 on
 * the HTTPS listener (alpn.ts).
 *
 * The account key, the certificate (with its chain) and its key live in the
 * data directory's tls/ folder (0600). A stored certificate that is still
 * valid is served at once after a restart, with no new order (one that does
 * not cover ACME_DOMAINS, or came from another ACME_DIRECTORY, e.g. staging,
 * is served while its replacement is ordered); until the first one arrives
 * the HTTPS port serves a self-signed stand-in for the names. A
 * certificate is renewed at two thirds of its lifetime (Let's Encrypt's 90
 * days: after 60); a failed order is retried after 1 minute, doubling to 6
 * hours, while the certificate being served (if any) stays.
 */
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Agent } from "node:https";
import { http, https, tls } from "../lib/builtins.ts";
import { createPrivateKey, X509Certificate } from "node:crypto";
import type * as Acme from "acme-client";
import { TlsSetupError } from "../lib/errors.ts";
import type { CertSource, SourceContext } from "./source.ts";
import { issueServer, makeCa, type PemPair } from "./x509.ts";

/**
 * acme-client, loaded on first use after the Reflect metadata polyfill its
 * @peculiar/x509 (tsyringe) needs; a static import would run it first (see x509.ts).
 */
let acme: typeof Acme;
async function loadAcme(): Promise<void> {
  await import("reflect-metadata");
  const m = (await import("acme-client")) as typeof Acme & { default?: typeof Acme };
  acme = m.default ?? m;
}

const ACCOUNT_KEY_FILE = "acme-account.key";
const CERT_FILE = "acme.pem";
const KEY_FILE = "acme.key";
/** The ACME directory the stored certificate came from: one from another server (staging) is replaced at once. */
const FROM_FILE = "acme.from";
const FIRST_RETRY_MS = 60_000;
const MAX_RETRY_MS = 6 * 3_600_000;
/** setTimeout's limit is 24.8 days; a later renewal is looked at again after a day. */
const MAX_WAIT_MS = 86_400_000;

interface Held extends PemPair {
  x509: X509Certificate;
  /** ACME_DIRECTORY it came from */
  from: string | null;
}

/** The moment a certificate is due for renewal: two thirds of its lifetime. */
function renewAt(x: X509Certificate): number {
  const from = Date.parse(x.validFrom);
  return Math.round(from + ((Date.parse(x.validTo) - from) * 2) / 3);
}

const dnsNames = (x: X509Certificate) =>
  (x.subjectAltName ?? "")
    .split(", ")
    .filter((n) => n.startsWith("DNS:"))
    .map((n) => n.slice(4).toLowerCase());

const covers = (x: X509Certificate, domains: readonly string[]) => domains.every((d) => dnsNames(x).includes(d));

/** Writes a secret whole (a crash leaves the old file or the new one), readable by the gateway's user only. */
function writeSecret(file: string, data: string): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** The stored certificate and key, when both are there, belong together and the certificate has not expired. */
function loadStored(dir: string, log: SourceContext["log"]): Held | null {
  const certFile = join(dir, CERT_FILE);
  const keyFile = join(dir, KEY_FILE);
  if (!existsSync(certFile) || !existsSync(keyFile)) return null;
  try {
    const cert = readFileSync(certFile, "utf8");
    const key = readFileSync(keyFile, "utf8");
    const x509 = new X509Certificate(cert);
    if (!x509.checkPrivateKey(createPrivateKey(key))) throw new Error(`${KEY_FILE} is not the key of ${CERT_FILE}`);
    if (Date.parse(x509.validTo) <= Date.now()) {
      log.warn("tls", `ACME: the stored certificate expired on ${x509.validTo}: ordering a new one`);
      return null;
    }
    const fromFile = join(dir, FROM_FILE);
    return { cert, key, x509, from: existsSync(fromFile) ? readFileSync(fromFile, "utf8").trim() : null };
  } catch (e) {
    log.warn("tls", `ACME: the stored certificate in ${dir} is unusable (${(e as Error).message}): ordering a new one`);
    return null;
  }
}

async function accountKey(dir: string): Promise<string> {
  const file = join(dir, ACCOUNT_KEY_FILE);
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    return readFileSync(file, "utf8");
  }
  const key = (await acme.crypto.createPrivateEcdsaKey()).toString();
  writeSecret(file, key);
  return key;
}

/** The ACME server's HTTPS is checked against the system's roots plus ACME_CA_CERT (a private or test server's root). */
function trustAcmeServer(caFile: string | null): void {
  if (!caFile) return;
  let pem: string;
  try {
    pem = readFileSync(caFile, "utf8");
    new X509Certificate(pem);
  } catch (e) {
    throw new TlsSetupError(`ACME_CA_CERT ${caFile} is not a readable PEM certificate (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  acme.axios.defaults.httpsAgent = new (https().Agent)({ ca: [...tls().rootCertificates, pem] });
}

const reason = (e: unknown) => {
  const err = e as Error & { response?: { data?: { detail?: string } }; code?: string };
  // acme-client's retry of a network error, once spent, fails on the missing response
  if (err instanceof TypeError && /response/.test(err.message)) return "the ACME server stopped answering (network error)";
  return (err.response?.data?.detail ?? err.message ?? String(e)).replace(/\s+/g, " ").trim() || (err.code ?? "unknown error");
};

/** A failed authorization, by name. */
class DomainError extends Error {}

/**
 * The directory answers: a server that is down, unknown or unreachable fails
 * the order at once with the reason (acme-client would retry a network
 * error for 75 s, then fail without one).
 */
function reachable(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith("https:") ? https().get : http().get;
    const req = get(
      url,
      url.startsWith("https:") ? { agent: acme.axios.defaults.httpsAgent as Agent | undefined, timeout: 15_000 } : { timeout: 15_000 },
      (res) => {
        res.resume();
        if ((res.statusCode ?? 500) < 500) resolve();
        else reject(new Error(`the ACME server ${url} answered ${res.statusCode}`));
      },
    );
    req.on("timeout", () => req.destroy(Object.assign(new Error("timeout"), { code: "no answer in 15 s" })));
    req.on("error", (e: NodeJS.ErrnoException) => reject(new Error(`cannot reach the ACME server ${url}: ${e.code ?? e.message}`)));
  });
}

/**
 * Finds the account of our key, or makes it. acme-client's createAccount
 * sends an existing account an update of the same fields, which an ACME
 * server may refuse as empty (Pebble does, without a contact): ask for the
 * existing one first (onlyReturnExisting, then a POST-as-GET).
 */
async function account(client: Acme.Client, email: string | null): Promise<void> {
  try {
    await client.createAccount({ onlyReturnExisting: true });
    return;
  } catch (e) {
    // the server's word for "no such account" (Boulder: "No account exists with the provided key"; Pebble: "unable to find existing account ..."); a network error names no account
    if (!/account/i.test(reason(e))) throw e;
  }
  await client.createAccount({ termsOfServiceAgreed: true, ...(email ? { contact: [`mailto:${email}`] } : {}) });
}

/** One order, start to finish: the new certificate (with chain) and its key. */
async function order(ctx: SourceContext, accountKeyPem: string): Promise<PemPair> {
  const c = ctx.config;
  await reachable(c.acmeDirectory);
  const client = new acme.Client({ directoryUrl: c.acmeDirectory, accountKey: accountKeyPem, backoffMin: 500, backoffMax: 10_000, backoffAttempts: 15 });
  await account(client, c.acmeEmail);
  const [key, csr] = await acme.crypto.createCsr({ commonName: c.acmeDomains[0], altNames: [...c.acmeDomains] }, await acme.crypto.createPrivateEcdsaKey());
  const placed = await client.createOrder({ identifiers: c.acmeDomains.map((value) => ({ type: "dns", value })) });
  const authorizations = await client.getAuthorizations(placed);
  await Promise.all(
    authorizations.map(async (authz) => {
      if (authz.status === "valid") return;
      const name = authz.identifier.value;
      const challenge = authz.challenges.find((ch) => ch.type === c.acmeChallenge);
      if (!challenge) throw new DomainError(`${name}: the ACME server offers no ${c.acmeChallenge} challenge`);
      const keyAuthorization = await client.getChallengeKeyAuthorization(challenge);
      try {
        if (c.acmeChallenge === "http-01") ctx.challenges.set(challenge.token, keyAuthorization);
        else {
          const [k, cert] = await acme.crypto.createAlpnCertificate(authz, keyAuthorization);
          ctx.challenges.setAlpn(name, { cert: cert.toString(), key: k.toString() });
        }
        await client.completeChallenge(challenge);
        await client.waitForValidStatus(challenge);
      } catch (e) {
        throw new DomainError(`${name}: ${reason(e)}`);
      } finally {
        ctx.challenges.delete(challenge.token);
        ctx.challenges.deleteAlpn(name);
      }
    }),
  );
  const finalized = await client.finalizeOrder(placed, csr);
  return { cert: await client.getCertificate(finalized), key: key.toString() };
}

export async function acmeSource(ctx: SourceContext): Promise<CertSource> {
  const c = ctx.config;
  const domains = c.acmeDomains;
  await loadAcme();
  trustAcmeServer(c.acmeCaCert);
  const account = await accountKey(ctx.dir);

  let held = loadStored(ctx.dir, ctx.log);
  if (held && !covers(held.x509, domains)) ctx.log.info("tls", `ACME: the stored certificate does not cover ${domains.join(", ")}: ordering one that does`);
  else if (held && held.from !== c.acmeDirectory)
    ctx.log.info("tls", `ACME: the stored certificate came from ${held.from ?? "another ACME server"}: ordering one from ${c.acmeDirectory}`);
  let standIn: PemPair | null = null;
  if (!held) standIn = await issueServer(await makeCa("svc-gateway waiting for its ACME certificate"), domains, 7);

  let lastError: string | null = null;
  let failures = 0;
  let nextAt: number | null = null;
  let busy = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const due = () => !held || !covers(held.x509, domains) || held.from !== c.acmeDirectory || Date.now() >= renewAt(held.x509);
  const schedule = (at: number) => {
    clearTimeout(timer);
    if (stopped) return;
    nextAt = at;
    timer = setTimeout(() => void run(), Math.min(Math.max(0, at - Date.now()), MAX_WAIT_MS));
    timer.unref?.();
  };
  const run = async () => {
    if (busy || stopped) return;
    if (!due() && failures === 0) return schedule(renewAt(held!.x509));
    busy = true;
    const renewing = held !== null;
    try {
      const pair = await order(ctx, account);
      const x509 = new X509Certificate(pair.cert);
      writeSecret(join(ctx.dir, KEY_FILE), pair.key);
      writeSecret(join(ctx.dir, CERT_FILE), pair.cert);
      writeSecret(join(ctx.dir, FROM_FILE), `${c.acmeDirectory}\n`);
      held = { ...pair, x509, from: c.acmeDirectory };
      standIn = null;
      failures = 0;
      lastError = null;
      ctx.log.info("tls", `ACME: ${renewing ? "renewed the" : "got a"} certificate for ${domains.join(", ")}, valid until ${x509.validTo}`, {
        issuer: x509.issuer,
        serial: x509.serialNumber,
      });
      if (!stopped) ctx.swap({ cert: pair.cert, key: pair.key });
      schedule(renewAt(x509));
    } catch (e) {
      failures++;
      const wait = Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), MAX_RETRY_MS);
      const what = e instanceof DomainError ? e.message : `${domains.join(", ")}: ${reason(e)}`;
      lastError = `no certificate for ${what}`;
      ctx.log.error(
        "tls",
        `ACME: ${lastError}; trying again in ${wait >= 3_600_000 ? `${wait / 3_600_000} h` : `${wait / 60_000} min`}${held ? " (still serving the current certificate)" : ""}`,
        { directory: c.acmeDirectory, challenge: c.acmeChallenge, failures },
      );
      schedule(Date.now() + wait);
    } finally {
      busy = false;
    }
  };
  // the first order waits for the listeners (they bind once `start` returns): its challenge is answered there
  schedule(due() ? Date.now() : renewAt(held!.x509));

  return {
    current: () => held ?? standIn!,
    state: () => ({
      notAfter: held ? Date.parse(held.x509.validTo) : null,
      names: [...domains],
      lastError,
      directory: c.acmeDirectory,
      challenge: c.acmeChallenge,
      issuer: held?.x509.issuer ?? null,
      serial: held?.x509.serialNumber ?? null,
      renewAt: held ? renewAt(held.x509) : null,
      nextAttemptAt: nextAt,
      failures,
    }),
    retryNow: () => {
      if (stopped || busy || failures === 0) return false;
      schedule(Date.now());
      return true;
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
