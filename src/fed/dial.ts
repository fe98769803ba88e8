/**
 * Reaching other instances over HTTP: which URL a peer is synced at, the
 * transport rule (https, or plain http only to a `<call>.ampr.org` host), and
 * one fetch with a deadline and a size cap for everything federation sends.
 *
 * A peer's sync URL is its lowest-priority-value endpoint that resolves to a
 * URL (https: the URL; ampr: http://host), else its legacy `url` (the https
 * fallback); a pull that cannot reach one tries the next (peerSyncUrls).
 * Endpoint data is addressing only: it never changes trust.
 *
 * Every peer connection goes through the outbound guard (src/lib/net/outbound.ts):
 * the host is resolved, refused when any address is loopback, private or
 * otherwise special, and the connection is made to the checked address. A
 * peer (or a peer's registry view) naming https://127.0.0.1:PORT or a name
 * that resolves into the LAN is therefore never dialled.
 *
 * FED_LOOPBACK_PEERS (tests and labs): `on` accepts http://127.0.0.1:PORT
 * (localhost, [::1]) peer URLs and lets peer connections reach loopback and
 * private addresses (as OUTBOUND_ALLOW_PRIVATE does); `host=PORT` entries send
 * that host name's traffic to 127.0.0.1:PORT, the operator's own mapping, and
 * leave the guard on for every other host. URLs the operator configures
 * (rule "configured": DOH_URL, FED_REGISTRY) are not under the guard.
 */
import type { Core } from "../core/core.ts";
import { guardedFetch, OutboundRefused } from "../lib/net/outbound.ts";
import { endpointUrl, syncUrlProblem } from "../lib/fed/endpoints.ts";
import type { Peer } from "./peers.ts";
import { notePeerDate } from "../system/clock-sanity.ts";

export class DialError extends Error {
  override name = "DialError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The base URL to sync a peer at, or null when it has none this instance may use. */
export function peerSyncUrl(gw: Core, peer: Pick<Peer, "endpoints" | "url" | "instance">): string | null {
  return peerSyncUrls(gw, peer)[0] ?? null;
}

/**
 * Every base URL a peer may be synced at, best first: its sync endpoints by
 * priority, then its configured URL (FED_PEERS or the operator's). A pull
 * tries the next when one does not answer: an endpoint the peer announces
 * may be unreachable from here (an amateur-IP host this instance cannot
 * resolve) while its configured URL still works.
 */
export function peerSyncUrls(gw: Core, peer: Pick<Peer, "endpoints" | "url" | "instance">): string[] {
  const out: string[] = [];
  const add = (u: string | null) => {
    if (!u || syncUrlProblem(u, gw.config.fedLoopbackPeers)) return;
    const base = u.replace(/\/+$/, "");
    if (!out.includes(base)) out.push(base);
  };
  for (const e of peer.endpoints) add(endpointUrl(e));
  add(peer.url);
  // last: through the gateway this one reaches the rest by (FED_VIA_URL, src/fed/via.ts)
  if (gw.config.fedViaUrl) add(`${gw.config.fedViaUrl.replace(/\/+$/, "")}/federation/via/${peer.instance}`);
  return out;
}

/** Network failures that mean "try the peer's next URL"; anything else (a wrong instance, bad keys) ends the pull. */
export const NEXT_URL_CODES = new Set(["unreachable", "timeout", "address_refused", "transport_refused"]);

/** Applies the transport rule and the loopback map; returns the URL to connect to and whether the operator's map chose it. */
function dialUrl(gw: Core, url: string): { url: string; mapped: boolean } {
  const problem = syncUrlProblem(url, gw.config.fedLoopbackPeers);
  if (problem) throw new DialError("transport_refused", problem);
  const lb = gw.config.fedLoopbackPeers;
  if (lb) {
    const u = new URL(url);
    const port = lb.hosts[u.hostname.toLowerCase()];
    if (port) return { url: `http://127.0.0.1:${port}${u.pathname}${u.search}`, mapped: true };
  }
  return { url, mapped: false };
}

/** Whether peer connections may reach loopback and private addresses (labs). */
function peerPrivateAllowed(gw: Core): boolean {
  return gw.config.outboundAllowPrivate || gw.config.fedLoopbackPeers?.any === true;
}

function configuredUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new DialError("transport_refused", `"${url}" is not a URL`);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw new DialError("transport_refused", `"${url}" is not http(s)`);
  return url;
}

export interface Fetched {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
}

export interface FetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  timeoutMs?: number;
  /** largest response body read; a larger one is refused */
  maxBytes?: number;
  /**
   * sync (default): another instance, under the transport rule. configured: a
   * URL the operator set (DOH_URL, FED_REGISTRY), any http(s); what comes from
   * it is verified by signature or is the operator's own choice of resolver.
   */
  rule?: "sync" | "configured";
}

/** One request to another instance, with a deadline and a body cap; throws DialError. */
export async function fedFetch(gw: Core, url: string, opts: FetchOptions = {}): Promise<Fetched> {
  // Operator-set URLs and the operator's loopback map go out as given; everything else through the guard.
  const target = opts.rule === "configured" ? { url: configuredUrl(url), mapped: true } : dialUrl(gw, url);
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  let res: Response;
  try {
    const init = {
      method: opts.method ?? "GET",
      headers: { "user-agent": `svc-gateway (${gw.config.instance})`, ...opts.headers },
      body: opts.body as BodyInit | undefined,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
      redirect: "manual" as const,
    };
    res = gw.fedTransport
      ? await gw.fedTransport(url, init)
      : target.mapped
        ? await fetch(target.url, init)
        : await guardedFetch(target.url, init, { allowPrivate: peerPrivateAllowed(gw) });
  } catch (e) {
    if (e instanceof OutboundRefused) throw new DialError("address_refused", `${url}: ${e.message}`);
    const name = (e as Error)?.name;
    throw new DialError(
      name === "TimeoutError" ? "timeout" : "unreachable",
      `${url}: ${name === "TimeoutError" ? "no answer in time" : String((e as Error)?.message ?? e)}`,
    );
  }
  // another instance's clock, for ours to be checked against (system/clock-sanity.ts)
  if (opts.rule !== "configured") notePeerDate(gw, peerOf(url), res.headers.get("date"));
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new DialError("too_large", `${url}: the answer is larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    if (res.body) {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        total += chunk.length;
        if (total > maxBytes) {
          await res.body.cancel().catch(() => {});
          throw new DialError("too_large", `${url}: the answer is larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
    }
  } catch (e) {
    if (e instanceof DialError) throw e;
    throw new DialError("unreachable", `${url}: the answer broke off (${String((e as Error)?.message ?? e)})`);
  }
  const bytes = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    bytes.set(c, o);
    o += c.length;
  }
  return { status: res.status, headers: res.headers, bytes };
}

const peerOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** At most this many answers are kept for revalidation (the oldest go first). */
const MAX_KEPT_ANSWERS = 2000;

/**
 * A JSON answer of another instance: 2xx with a JSON body, or DialError.
 * `revalidate` (GETs of what seldom changes: a descriptor, a registry view):
 * the last answer from this URL is kept with its ETag and asked for with
 * If-None-Match; a 304 gives it back without its bytes crossing the link.
 */
export async function fedJson<T = unknown>(
  gw: Core,
  url: string,
  opts: FetchOptions & { json?: unknown; revalidate?: boolean } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
  let body = opts.body;
  if (opts.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.json);
  }
  const kept = opts.revalidate ? gw.fedAnswers.get(url) : undefined;
  if (kept) headers["if-none-match"] = kept.etag;
  const r = await fedFetch(gw, url, { ...opts, headers, body });
  if (kept && r.status === 304) {
    // most recently used last: the oldest goes first when the map is full
    gw.fedAnswers.delete(url);
    gw.fedAnswers.set(url, kept);
    return { status: 200, body: kept.body as T };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(r.bytes));
  } catch {
    throw new DialError("bad_answer", `${url}: answered ${r.status} without JSON`);
  }
  if (r.status < 200 || r.status > 299) {
    const e = parsed as { error?: string; message?: string };
    throw new DialError(e?.error ?? `http_${r.status}`, `${url}: ${r.status} ${e?.message ?? ""}`.trim());
  }
  const etag = opts.revalidate ? r.headers.get("etag") : null;
  if (opts.revalidate) gw.fedAnswers.delete(url);
  if (etag) {
    gw.fedAnswers.set(url, { etag, body: parsed });
    if (gw.fedAnswers.size > MAX_KEPT_ANSWERS) gw.fedAnswers.delete(gw.fedAnswers.keys().next().value!);
  }
  return { status: r.status, body: parsed as T };
}
