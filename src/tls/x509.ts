/**
 * Certificates for the local CA (TLS=local): a CA certificate and server
 * certificates signed by it, ECDSA P-256 as Caddy's `tls internal` makes
 * them. Keys come from WebCrypto (node:crypto's, in Bun and in Node); the
 * X.509 encoding is @peculiar/x509's (already under @simplewebauthn/server),
 * whose tsyringe needs the Reflect metadata polyfill loaded before it. Both
 * are loaded on first use, one after the other: a static import's order is
 * not kept (Bun runs an imported CommonJS package when it links the
 * importer, before the modules listed above it), and a gateway without
 * TLS=local never loads them.
 */
import type * as X509 from "@peculiar/x509";
import { randomBytes, webcrypto, X509Certificate } from "node:crypto";
import { isIP } from "node:net";

let loaded: Promise<typeof X509> | null = null;
function lib(): Promise<typeof X509> {
  loaded ??= (async () => {
    await import("reflect-metadata");
    const x509 = await import("@peculiar/x509");
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    return x509;
  })();
  return loaded;
}

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY = 86_400_000;

/** A certificate and its key, both PEM. */
export interface PemPair {
  cert: string;
  key: string;
}

const serial = () => {
  const b = randomBytes(16);
  b[0]! &= 0x7f; // a positive INTEGER
  return b.toString("hex");
};

async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", key as webcrypto.CryptoKey));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString("base64").replace(/.{64}/g, "$&\n").replace(/\n?$/, "\n")}-----END PRIVATE KEY-----\n`;
}

function importKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""), "base64");
  return webcrypto.subtle.importKey("pkcs8", der, ALG, true, ["sign"]) as Promise<CryptoKey>;
}

/** A new CA: ten years, may sign server certificates only (path length 0). */
export async function makeCa(name: string, now = Date.now()): Promise<PemPair> {
  const x509 = await lib();
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name.replace(/[,=+<>#;"\\]/g, " ")}, O=svc-gateway local CA`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 3650 * DAY),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString("pem") + "\n", key: await keyPem(keys.privateKey) };
}

/**
 * A server certificate for `names` (DNS names and IP addresses), signed by
 * `ca`, valid for `days` from an hour ago (clocks on a LAN disagree).
 */
export async function issueServer(ca: PemPair, names: readonly string[], days: number, now = Date.now()): Promise<PemPair> {
  const x509 = await lib();
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await importKey(ca.key);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const dns = names.filter((n) => !isIP(n));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${dns[0] ?? names[0] ?? "localhost"}`,
    issuer: caCert.subject,
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + days * DAY),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names.map((n) => (isIP(n) ? { type: "ip" as const, value: n } : { type: "dns" as const, value: n }))),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { cert: cert.toString("pem") + "\n", key: await keyPem(keys.privateKey) };
}

/** SHA-256 fingerprint as browsers and certutil show it: AB:CD:... */
export const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
