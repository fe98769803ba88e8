/**
 * The gateway's TLS (setting TLS): which certificate source runs, what it
 * serves now, who hears of a new certificate (the HTTPS listener), the ACME
 * challenge answers, and the state GET /api/ports shows. Built with the
 * gateway; `start` runs before the HTTPS listener binds.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../core/config.ts";
import type { Logger } from "../lib/log.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";
import { AcmeChallenges, SOURCE_STATE, TLS_MODE, type CertSource, type PemPair, type SourceFactory, type TlsMode } from "./source.ts";

export { AcmeChallenges } from "./source.ts";
export type { CertSource, PemPair, SourceContext, SourceFactory, SourceState, TlsMode } from "./source.ts";

/**
 * The sources of each mode, plugged in by the composition root of the hosts
 * that serve TLS themselves (src/hosts/gateway.ts: local and files; the ACME
 * client: acme), so a Workers bundle carries none of them.
 */
const FACTORIES: Partial<Record<TlsMode, SourceFactory>> = {};

/** Plugs in the source of a mode: useSource("acme", acmeSource). */
export function useSource(mode: Exclude<TlsMode, "off">, factory: SourceFactory): void {
  FACTORIES[mode] = factory;
}

/** The data directory's folder for the CA, account keys and certificates. */
export const tlsDir = (dataDir: string) => join(dataDir, "tls");

/** The local CA's files in tlsDir (TLS=local): its certificate, and its key (never served). */
export const CA_CERT_FILE = "ca.pem";
export const CA_KEY_FILE = "ca.key";

/** HTTPS as it runs now (GET /api/ports, the Setup page, POST /api/tls/retry): the mode, the port and its source's report. */
export const TLS_STATE = closed({
  mode: TLS_MODE,
  httpsPort: nullable(wholeNumber(), "the HTTPS port once listening"),
  // a mode without a source (off, or not started) reports none of its fields
  ...t.Partial(SOURCE_STATE).properties,
  lastError: nullable(t.String(), "the last failure to start, get or renew a certificate; null once one succeeds"),
});
export type TlsState = Static<typeof TLS_STATE>;

/** POST /api/tls/retry. */
export const TLS_RETRY = closed({ retrying: t.Literal(true), state: TLS_STATE });

export class TlsService {
  readonly challenges = new AcmeChallenges();
  private source: CertSource | null = null;
  private readonly listeners = new Set<(pair: PemPair) => void | Promise<void>>();
  private startError: string | null = null;
  httpsPort: number | null = null;

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    /** what the host's runtime serves (on workerd the platform's TLS: always off) */
    readonly mode: TlsMode = config.tls,
  ) {}

  get on(): boolean {
    return this.mode !== "off";
  }

  /** Starts the mode's source and returns the first pair, or null when TLS is off. Throws TlsSetupError for bad files. */
  async start(): Promise<PemPair | null> {
    if (this.mode === "off") return null;
    const factory = FACTORIES[this.mode];
    if (!factory) throw new Error(`TLS=${this.mode} is not available in this build`);
    const dir = tlsDir(this.config.dataDir);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      this.source = await factory({ config: this.config, log: this.log, dir, challenges: this.challenges, swap: (pair) => this.swap(pair) });
    } catch (e) {
      this.startError = (e as Error).message;
      throw e;
    }
    return this.source.current();
  }

  /** The pair served now; null when off or not started. */
  current(): PemPair | null {
    return this.source?.current() ?? null;
  }

  /** The listener hears of each new pair. */
  onChange(fn: (pair: PemPair) => void | Promise<void>): void {
    this.listeners.add(fn);
  }

  private swap(pair: PemPair): void {
    for (const fn of this.listeners) {
      Promise.resolve(fn(pair)).catch((e) => this.log.error("tls", "the HTTPS listener could not take the new certificate", { error: String(e) }));
    }
  }

  state(): TlsState {
    const s = this.source?.state();
    return { mode: this.mode, httpsPort: this.httpsPort, ...s, lastError: s?.lastError ?? this.startError };
  }

  /** The sysop's "try again now" after a failed order or renewal (ACME); false when there is nothing to retry. */
  retryNow(): boolean {
    return this.source?.retryNow?.() ?? false;
  }

  stop(): void {
    this.source?.stop();
    this.source = null;
    this.listeners.clear();
  }
}
