/**
 * What the HTTPS listener serves from: a certificate source per TLS mode
 * (local: the gateway's own CA; files: TLS_CERT and TLS_KEY; acme: an ACME
 * client). A source hands its first pair from `start`, and later pairs
 * (renewals, changed files, a new order) through `swap`; the listener takes
 * each one in (src/hosts/). The ACME code plugs in with `useSource("acme", ...)`.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Config } from "../core/config.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import type { Logger } from "../lib/log.ts";
import type { PemPair } from "./x509.ts";

export type { PemPair } from "./x509.ts";

export const TLS_MODE = t.Union([t.Literal("off"), t.Literal("local"), t.Literal("acme"), t.Literal("files")], {
  description: "TLS: off, local (the gateway's own CA), acme, or files (TLS_CERT and TLS_KEY)",
});
export type TlsMode = Static<typeof TLS_MODE>;

/** A source's own report, for GET /api/ports and the Setup page: the common fields, then each mode's own. */
const SOURCE_STATE_FIELDS = {
  notAfter: nullable(unixMs(), "when the served certificate expires, unix ms"),
  names: t.Array(t.String(), { description: "the names it covers" }),
  lastError: nullable(t.String(), "the last failure to get or renew a certificate, while it lasts; null once one succeeds"),
  caFingerprint: t.Optional(t.String({ description: "local: the CA certificate's SHA-256 fingerprint" })),
  issuedAt: t.Optional(unixMs("local: when the server certificate was issued, unix ms")),
  certFile: t.Optional(t.String({ description: "files: TLS_CERT" })),
  keyFile: t.Optional(t.String({ description: "files: TLS_KEY" })),
  directory: t.Optional(t.String({ description: "acme: the ACME directory URL" })),
  challenge: t.Optional(t.Union([t.Literal("http-01"), t.Literal("tls-alpn-01")], { description: "acme: the challenge it answers" })),
  issuer: t.Optional(nullable(t.String(), "acme: the certificate's issuer")),
  serial: t.Optional(nullable(t.String(), "acme: the certificate's serial number")),
  renewAt: t.Optional(nullable(unixMs(), "acme: when it is renewed, unix ms")),
  nextAttemptAt: t.Optional(nullable(unixMs(), "acme: the next order or renewal, unix ms")),
  failures: t.Optional(wholeNumber({ description: "acme: orders failed in a row" })),
};
export const SOURCE_STATE = closed(SOURCE_STATE_FIELDS);
export type SourceState = Static<typeof SOURCE_STATE>;

export interface CertSource {
  /** the pair to serve now */
  current(): PemPair;
  state(): SourceState;
  /** ends its timers and watchers */
  stop(): void;
  /** After a failure: try again now rather than at the back-off's time. False when there is no failure to retry or an attempt is running. */
  retryNow?(): boolean;
}

/**
 * The HTTP-01 challenge answers the ACME code publishes:
 * GET /.well-known/acme-challenge/:token answers `get(token)` on plain http.
 */
export class AcmeChallenges {
  private readonly answers = new Map<string, string>();
  set(token: string, keyAuthorization: string): void {
    this.answers.set(token, keyAuthorization);
  }
  delete(token: string): void {
    this.answers.delete(token);
  }
  get(token: string): string | null {
    return this.answers.get(token) ?? null;
  }

  private readonly alpnCerts = new Map<string, PemPair>();
  /** TLS-ALPN-01: the acmeIdentifier certificate offered for `name` to a client asking ALPN acme-tls/1 (src/tls/alpn.ts). */
  setAlpn(name: string, pair: PemPair): void {
    this.alpnCerts.set(name.toLowerCase(), pair);
  }
  deleteAlpn(name: string): void {
    this.alpnCerts.delete(name.toLowerCase());
  }
  alpn(name: string): PemPair | null {
    return this.alpnCerts.get(name.toLowerCase()) ?? null;
  }
}

/** What a source is given: settings, log, the data directory's tls/ folder, and the way to swap certificates. */
export interface SourceContext {
  config: Config;
  log: Logger;
  /** the data directory's folder for keys and certificates (0700) */
  dir: string;
  /** serves a new pair from now on (the listener reloads it) */
  swap(pair: PemPair): void;
  challenges: AcmeChallenges;
}

export type SourceFactory = (ctx: SourceContext) => Promise<CertSource>;
