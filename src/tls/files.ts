/**
 * TLS=files: the operator's own certificate and key (TLS_CERT, TLS_KEY: PEM
 * files, e.g. from certbot), read at start and again whenever either file
 * changes (polled: certbot and editors replace files, which fs.watch loses).
 * An unreadable or mismatched pair stops start-up, naming the file; a bad
 * pair later (a half-written renewal) keeps the one being served and says so.
 */
import { readFileSync, statSync } from "node:fs";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { TlsSetupError } from "../lib/errors.ts";
import type { CertSource, SourceContext } from "./source.ts";
import type { PemPair } from "./x509.ts";

export const POLL_MS = 2_000;

function read(setting: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new TlsSetupError(`${setting} ${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Reads and checks the pair: the certificate parses, the key parses, and the key is the certificate's. */
function readPair(certFile: string, keyFile: string): PemPair & { x509: X509Certificate } {
  const cert = read("TLS_CERT", certFile);
  const key = read("TLS_KEY", keyFile);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new TlsSetupError(`TLS_CERT ${certFile} is not a PEM certificate`);
  }
  let k: ReturnType<typeof createPrivateKey>;
  try {
    k = createPrivateKey(key);
  } catch {
    throw new TlsSetupError(`TLS_KEY ${keyFile} is not a PEM private key (an encrypted key needs its passphrase removed)`);
  }
  if (!x509.checkPrivateKey(k)) throw new TlsSetupError(`TLS_KEY ${keyFile} is not the key of the certificate in TLS_CERT ${certFile}`);
  return { cert, key, x509 };
}

const stamp = (f: string) => {
  try {
    const s = statSync(f);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return "gone";
  }
};

export async function filesSource(ctx: SourceContext): Promise<CertSource> {
  const certFile = ctx.config.tlsCert!;
  const keyFile = ctx.config.tlsKey!;
  let pair = readPair(certFile, keyFile);
  let seen = stamp(certFile) + stamp(keyFile);
  let lastError: string | null = null;
  const state = () => ({
    notAfter: new Date(pair.x509.validTo).getTime(),
    names: (pair.x509.subjectAltName ?? "")
      .split(", ")
      .map((n) => n.replace(/^(DNS|IP Address):/, ""))
      .filter(Boolean),
    lastError,
    certFile,
    keyFile,
  });
  const timer = setInterval(() => {
    const now = stamp(certFile) + stamp(keyFile);
    if (now === seen) return;
    seen = now;
    try {
      pair = readPair(certFile, keyFile);
      lastError = null;
      ctx.log.info("tls", `${certFile} changed: serving the new certificate`, { notAfter: pair.x509.validTo });
      ctx.swap({ cert: pair.cert, key: pair.key });
    } catch (e) {
      lastError = `${(e as Error).message}; still serving the previous certificate`;
      ctx.log.warn("tls", lastError);
    }
  }, POLL_MS);
  timer.unref?.();
  return { current: () => ({ cert: pair.cert, key: pair.key }), state, stop: () => clearInterval(timer) };
}
