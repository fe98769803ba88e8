/**
 * Through a gateway (FED_VIA, FED_VIA_URL): a gateway with internet access
 * fetches a peer's public federation documents (its descriptor, sync pages
 * and registry view) for those who cannot reach that peer themselves. The
 * case it is for: an island of gateways that reach each other and one bridge
 * over 1200-baud radio (HTTP over AX.25 IP or 44net on the air) and nothing
 * else. The bridge sets FED_VIA=on; each island gateway announces
 * `https:<bridge>/federation/via/<itself>` among its endpoints, so the rest
 * of the network pulls it through the bridge, and sets FED_VIA_URL to the
 * bridge, so it pulls the rest the same way. Nothing is trusted for the path
 * it took: the descriptor is checked against the keys pinned for the peer,
 * and every frame is verified as on any pull.
 *
 * The island's radio is one slow shared channel, and every gateway that pulls
 * the island asks the bridge for the same descriptor (and, once they are
 * level, the same page). So the bridge answers a document it fetched less
 * than VIA_FRESH_MS ago from what it kept (a 304 when the asker holds that
 * ETag), and the radio carries it once for all of them.
 */
import type { Core } from "../core/core.ts";
import { AppError, notFound } from "../lib/errors.ts";
import { ifNoneMatch as ifNoneMatchHeader } from "../lib/net/etag.ts";
import { DialError, fedFetch, NEXT_URL_CODES, peerSyncUrls } from "./dial.ts";
import { MAX_PAGE_BYTES } from "../lib/fed/page.ts";
import { getPeer } from "./peers.ts";

/** A via base URL: `<gateway>/federation/via/<instance>`. */
export const VIA_PATH = "/federation/via/";

/** A document fetched for someone is answered from what was kept for this long. */
export const VIA_FRESH_MS = 120_000;
/** At most this many documents are kept (the oldest go first). */
const MAX_KEPT = 500;

/** The documents a via request may ask for: what anyone may read of the peer. */
const VIA_DOCUMENTS = /^(\.well-known\/svc|federation\/sync\/[a-z-]{1,20}|federation\/registry)$/;

/**
 * GET `<path>?<search>` of `instance` fetched from its own URLs (never through
 * another via: no loops), passed on with its status, type and ETag.
 */
export async function fetchVia(gw: Core, instance: string, path: string, search: string, ifNoneMatch: string | null): Promise<Response> {
  if (!gw.config.fedVia) throw notFound("this gateway fetches for no one (FED_VIA is off)");
  const peer = getPeer(gw, instance);
  if (!peer || peer.trust === "blocked" || !VIA_DOCUMENTS.test(path)) throw notFound(`no ${path} of ${instance} to fetch here`);
  const key = `${instance} ${path}${search}`;
  const kept = gw.viaKept.get(key);
  if (kept && gw.clock.now() - kept.at < VIA_FRESH_MS) return answer(kept, ifNoneMatch);
  const bases = peerSyncUrls(gw, peer).filter((b) => !b.includes(VIA_PATH));
  let last: DialError | null = null;
  for (const base of bases) {
    try {
      // revalidate what was kept: a 304 costs the radio no body
      const etag = kept?.etag ?? ifNoneMatch;
      const r = await fedFetch(gw, `${base}/${path}${search}`, {
        headers: etag ? { "if-none-match": etag } : {},
        timeoutMs: 120_000,
        maxBytes: MAX_PAGE_BYTES + 4096,
      });
      if (r.status === 304 && kept) {
        kept.at = gw.clock.now();
        return answer(kept, ifNoneMatch);
      }
      if (r.status === 304) return new Response(null, { status: 304, headers: { etag: etag!, "cache-control": "no-store" } });
      const fresh = { status: r.status, contentType: r.headers.get("content-type"), etag: r.headers.get("etag"), bytes: r.bytes, at: gw.clock.now() };
      gw.viaKept.delete(key);
      if (r.status === 200) {
        gw.viaKept.set(key, fresh);
        if (gw.viaKept.size > MAX_KEPT) gw.viaKept.delete(gw.viaKept.keys().next().value!);
      }
      return answer(fresh, ifNoneMatch);
    } catch (e) {
      if (!(e instanceof DialError) || !NEXT_URL_CODES.has(e.code)) throw e;
      last = e;
    }
  }
  throw new AppError(502, "unreachable", `${instance} did not answer here either${last ? ` (${last.message})` : ""}`);
}

function answer(d: { status: number; contentType: string | null; etag: string | null; bytes: Uint8Array }, ifNoneMatch: string | null): Response {
  const headers: Record<string, string> = { "cache-control": "no-store" };
  if (d.contentType) headers["content-type"] = d.contentType;
  if (d.etag) headers.etag = d.etag;
  if (d.etag && ifNoneMatchHeader(ifNoneMatch, d.etag)) return new Response(null, { status: 304, headers });
  return new Response(d.bytes as Uint8Array<ArrayBuffer>, { status: d.status, headers });
}
