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
 */
import type { Core } from "../gateway.ts";
import { AppError, notFound } from "../errors.ts";
import { DialError, fedFetch, NEXT_URL_CODES, peerSyncUrls } from "./dial.ts";
import { MAX_PAGE_BYTES } from "./page.ts";
import { getPeer } from "./peers.ts";

/** A via base URL: `<gateway>/federation/via/<instance>`. */
export const VIA_PATH = "/federation/via/";

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
  const bases = peerSyncUrls(gw, peer).filter((b) => !b.includes(VIA_PATH));
  let last: DialError | null = null;
  for (const base of bases) {
    try {
      const r = await fedFetch(gw, `${base}/${path}${search}`, {
        headers: ifNoneMatch ? { "if-none-match": ifNoneMatch } : {},
        timeoutMs: 120_000,
        maxBytes: MAX_PAGE_BYTES + 4096,
      });
      const headers: Record<string, string> = { "cache-control": "no-store" };
      for (const h of ["content-type", "etag"]) {
        const v = r.headers.get(h);
        if (v) headers[h] = v;
      }
      return new Response(r.status === 304 ? null : (r.bytes as Uint8Array<ArrayBuffer>), { status: r.status, headers });
    } catch (e) {
      if (!(e instanceof DialError) || !NEXT_URL_CODES.has(e.code)) throw e;
      last = e;
    }
  }
  throw new AppError(502, "unreachable", `${instance} did not answer here either${last ? ` (${last.message})` : ""}`);
}
