/**
 * The instance registry: a standalone signed document (signing base
 * `svc-doc/1` LF + RFC 8785 JSON without `sig`) binding instance names to
 * keys and operators:
 *
 *   {"type": "registry", "name": "svc-net", "at": 1718000000,
 *    "entries": [{"instance": "gw1", "keys": ["<b64url>"], "operators": ["N0CALL"],
 *                 "aprsCall": "N0CALL-10", "endpoints": ["ampr:n0call.ampr.org;5"]}],
 *    "signerKey": "<b64url>", "sig": "<b64url>"}
 *
 * It comes from FED_REGISTRY, verified with FED_REGISTRY_KEY, or from the DNS
 * TXT anchor at FED_REGISTRY_DNS (`v=svcreg1; url=<document URL>; key=<b64url>`,
 * resolved over DoH; the AD flag is recorded). An older document than the one
 * held is refused (no rollback). Entries it binds:
 *  - instances not known yet join as unvetted peers (foundVia registry),
 *    pinned to their first key, with the endpoints the entry publishes;
 *  - a bound peer's records are accepted only under keys the binding names
 *    (apply.ts), and sync refuses a peer publishing another key: not mirrored.
 */
import { sign } from "node:crypto";
import type { Core } from "../core/core.ts";
import { isCallsign, normalizeCall } from "../lib/callsign.ts";
import { DialError, fedFetch } from "./dial.ts";
import { resolveTxt, parseTxtFields } from "./doh.ts";
import { verifyEd25519 } from "../lib/fed/ed25519.ts";
import { validateEndpoint } from "../lib/fed/endpoints.ts";
import { instanceSigner } from "./feed.ts";
import { documentBytes, privateKeyObject, publicKeyFromSeed } from "../lib/fed/keys.ts";
import { addPeerKey, getPeer, upsertPeer } from "./peers.ts";
import { isB64urlKey, isInstanceId } from "../lib/fed/record.ts";
import type { RegistryBinding, RegistryRefresh, RegistrySource } from "./shapes.ts";

export type { RegistryRefresh };

export interface RegistryEntry {
  instance: string;
  keys: string[];
  operators: string[];
  aprsCall?: string;
  endpoints?: string[];
}

export interface RegistryDocument {
  type: "registry";
  name?: string;
  /** unix seconds */
  at: number;
  entries: RegistryEntry[];
  signerKey: string;
  sig: string;
}

/** Signs a registry document (registry authorities; tests). */
export function signRegistry(seed: string, doc: Omit<RegistryDocument, "signerKey" | "sig" | "type">): RegistryDocument {
  const unsigned = { type: "registry" as const, ...doc, signerKey: publicKeyFromSeed(seed) };
  const sig = sign(null, documentBytes(unsigned), privateKeyObject(seed)).toString("base64url");
  return { ...unsigned, sig };
}

const MAX_ENTRIES = 10_000;

/**
 * Checks a registry document's shape and its signature by `key`. Entries
 * that break the layout are left out (and counted); the rest stand.
 */
function checkRegistry(doc: unknown, key: string): { ok: true; doc: RegistryDocument; skipped: number } | { ok: false; message: string } {
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return { ok: false, message: "the registry is a JSON object" };
  const d = doc as Record<string, unknown>;
  if (d.type !== "registry") return { ok: false, message: 'type must be "registry"' };
  if (typeof d.at !== "number" || !Number.isSafeInteger(d.at) || d.at < 0) return { ok: false, message: "at must be unix seconds" };
  if (!Array.isArray(d.entries) || d.entries.length > MAX_ENTRIES) return { ok: false, message: `entries must be a list of at most ${MAX_ENTRIES}` };
  if (d.signerKey !== key) return { ok: false, message: "the registry is signed by another key than the one configured" };
  if (typeof d.sig !== "string" || !/^[A-Za-z0-9_-]{86}$/.test(d.sig)) return { ok: false, message: "sig must be a base64url signature" };
  const verdict = verifyEd25519(Buffer.from(key, "base64url"), documentBytes(d), Buffer.from(d.sig, "base64url"));
  if (verdict !== "ok") return { ok: false, message: `the registry's signature does not verify (${verdict})` };
  const entries: RegistryEntry[] = [];
  let skipped = 0;
  const seen = new Set<string>();
  for (const e of d.entries as unknown[]) {
    const x = e as Record<string, unknown>;
    const ok =
      x &&
      typeof x === "object" &&
      typeof x.instance === "string" &&
      isInstanceId(x.instance) &&
      !seen.has(x.instance) &&
      Array.isArray(x.keys) &&
      x.keys.length >= 1 &&
      x.keys.length <= 8 &&
      x.keys.every((k) => typeof k === "string" && isB64urlKey(k)) &&
      Array.isArray(x.operators) &&
      x.operators.length <= 16 &&
      x.operators.every((c) => typeof c === "string" && isCallsign(c)) &&
      (x.aprsCall === undefined || (typeof x.aprsCall === "string" && isCallsign(x.aprsCall))) &&
      (x.endpoints === undefined || (Array.isArray(x.endpoints) && x.endpoints.length <= 16 && x.endpoints.every((p) => typeof p === "string")));
    if (!ok) {
      skipped++;
      continue;
    }
    seen.add(x.instance as string);
    entries.push({
      instance: x.instance as string,
      keys: x.keys as string[],
      operators: (x.operators as string[]).map(normalizeCall),
      ...(x.aprsCall ? { aprsCall: normalizeCall(x.aprsCall as string) } : {}),
      endpoints: ((x.endpoints as string[] | undefined) ?? []).filter((p) => validateEndpoint(p).ok),
    });
  }
  return { ok: true, doc: { ...(d as unknown as RegistryDocument), entries }, skipped };
}

export function registrySource(gw: Core): RegistrySource | null {
  const r = gw.db
    .query("SELECT source, name, signer_key AS signerKey, signed_at AS signedAt, dnssec, fetched_at AS fetchedAt, error FROM fed_registry_source WHERE id = 1")
    .get() as (Omit<RegistrySource, "dnssec"> & { dnssec: number | null }) | null;
  return r && { ...r, dnssec: r.dnssec === null ? null : r.dnssec === 1 };
}

/** The registry's binding of an instance, or null when no registry binds it. */
export function registryBinding(gw: Core, instance: string): RegistryBinding | null {
  const r = gw.db.query("SELECT instance, keys, operators, aprs_call AS aprsCall FROM fed_registry WHERE instance = ?").get(instance) as {
    instance: string;
    keys: string;
    operators: string;
    aprsCall: string | null;
  } | null;
  if (!r) return null;
  return { instance: r.instance, keys: JSON.parse(r.keys) as string[], operators: JSON.parse(r.operators) as string[], aprsCall: r.aprsCall };
}

/** Why a peer publishing `keys` must not be mirrored under the registry, or null when it may. */
export function registryMismatch(gw: Core, instance: string, keys: string[]): string | null {
  const b = registryBinding(gw, instance);
  if (!b) return null;
  const off = keys.find((k) => !b.keys.includes(k));
  return off ? `${instance} publishes key ${off}, which its registry binding does not name: not mirrored` : null;
}

/** Where the registry comes from: FED_REGISTRY + FED_REGISTRY_KEY, or the DNS anchor. */
async function locate(gw: Core): Promise<{ url: string; key: string; dnssec: boolean | null }> {
  const c = gw.config;
  if (c.fedRegistry && c.fedRegistryKey) return { url: c.fedRegistry, key: c.fedRegistryKey, dnssec: null };
  const txt = await resolveTxt(gw, c.fedRegistryDns!);
  const anchors = txt.records.map((r) => parseTxtFields(r)).filter((f) => f?.get("v")?.[0] === "svcreg1");
  if (anchors.length !== 1) throw new DialError("no_anchor", `${c.fedRegistryDns} has ${anchors.length ? "more than one" : "no"} v=svcreg1 TXT record`);
  const f = anchors[0]!;
  const url = f.get("url")?.[0];
  const key = f.get("key")?.[0];
  if (!url || !/^https?:\/\//.test(url) || !key || !isB64urlKey(key))
    throw new DialError("bad_anchor", `${c.fedRegistryDns}'s TXT record needs url=<http(s) URL> and key=<base64url key>`);
  return { url, key, dnssec: txt.dnssec };
}

/** Fetches, verifies and applies the registry; keeps the entries held when anything fails. */
export async function refreshRegistry(gw: Core): Promise<RegistryRefresh> {
  const c = gw.config;
  const out: RegistryRefresh = { ok: false, error: null, source: null, entries: 0, skipped: 0, added: [], dnssec: null };
  if (!(c.fedRegistry && c.fedRegistryKey) && !c.fedRegistryDns) {
    out.error = "no registry configured";
    return out;
  }
  const now = gw.clock.now();
  try {
    const { url, key, dnssec } = await locate(gw);
    out.source = url;
    out.dnssec = dnssec;
    const r = await fedFetch(gw, url, { headers: { accept: "application/json" }, timeoutMs: 15_000, maxBytes: 8 * 1024 * 1024, rule: "configured" });
    if (r.status !== 200) throw new DialError(`http_${r.status}`, `${url} answered ${r.status}`);
    let doc: unknown;
    try {
      doc = JSON.parse(new TextDecoder().decode(r.bytes));
    } catch {
      throw new DialError("bad_registry", `${url} is not JSON`);
    }
    const checked = checkRegistry(doc, key);
    if (!checked.ok) throw new DialError("bad_registry", checked.message);
    const held = registrySource(gw);
    if (held && held.signerKey === key && checked.doc.at < held.signedAt)
      throw new DialError("stale_registry", `the registry at ${url} is older than the one held (${checked.doc.at} < ${held.signedAt}): refused`);
    out.entries = checked.doc.entries.length;
    out.skipped = checked.skipped;
    gw.db.transaction(() => {
      gw.db.query("DELETE FROM fed_registry").run();
      const ins = gw.db.query("INSERT INTO fed_registry (instance, keys, operators, aprs_call, endpoints, fetched_at) VALUES (?, ?, ?, ?, ?, ?)");
      for (const e of checked.doc.entries)
        ins.run(e.instance, JSON.stringify(e.keys), JSON.stringify(e.operators), e.aprsCall ?? null, JSON.stringify(e.endpoints ?? []), now);
      gw.db
        .query(
          "INSERT OR REPLACE INTO fed_registry_source (id, source, name, signer_key, signed_at, dnssec, fetched_at, error) VALUES (1, ?, ?, ?, ?, ?, ?, NULL)",
        )
        .run(url, typeof checked.doc.name === "string" ? checked.doc.name : null, key, checked.doc.at, dnssec === null ? null : dnssec ? 1 : 0, now);
      // Keys a binding names are accepted for its peer (AUTH rule 5); keys an
      // earlier registry bound and this one does not are dropped.
      gw.db
        .query(
          "DELETE FROM peer_keys WHERE via = 'registry' AND NOT EXISTS (SELECT 1 FROM fed_registry r, json_each(r.keys) k, peers p WHERE p.id = peer_keys.peer_id AND r.instance = p.instance AND k.value = peer_keys.public_key)",
        )
        .run();
      for (const e of checked.doc.entries) {
        if (e.instance === c.instance) continue;
        const peer = getPeer(gw, e.instance);
        if (!peer) {
          upsertPeer(gw, {
            instance: e.instance,
            endpoints: e.endpoints ?? [],
            trust: "unvetted",
            keyPin: e.keys[0],
            foundVia: "registry",
            trustSetBy: "discovery",
          });
          out.added.push(e.instance);
        } else if (e.endpoints?.length && peer.trust !== "blocked") {
          // addressing only: merged into what is known, trust left alone
          upsertPeer(gw, { instance: e.instance, endpoints: e.endpoints });
        }
        const id = getPeer(gw, e.instance)!.id;
        for (const k of e.keys) addPeerKey(gw, id, k, "registry");
      }
    })();
    const self = checked.doc.entries.find((e) => e.instance === c.instance);
    const own = instanceSigner(gw)?.publicKey;
    if (self && own && !self.keys.includes(own))
      gw.log.warn(
        "fed",
        `the registry binds ${c.instance} to other keys than the one this instance signs with: peers that use it will not mirror this instance`,
      );
    out.ok = true;
  } catch (e) {
    const msg = e instanceof DialError ? `${e.code}: ${e.message}` : String((e as Error)?.message ?? e);
    out.error = msg;
    gw.db.query("UPDATE fed_registry_source SET error = ?, fetched_at = ? WHERE id = 1").run(msg, now);
    if (!(e instanceof DialError)) gw.log.error("fed", "registry refresh failed", { error: msg });
  }
  return out;
}

/** Refreshes when configured and the last fetch is older than `maxAgeMs`. */
export async function refreshRegistryIfDue(gw: Core, maxAgeMs = 10 * 60_000): Promise<RegistryRefresh | null> {
  const c = gw.config;
  if (!(c.fedRegistry && c.fedRegistryKey) && !c.fedRegistryDns) return null;
  const held = registrySource(gw);
  if (held && !held.error && gw.clock.now() - held.fetchedAt < maxAgeMs) return null;
  return refreshRegistry(gw);
}
