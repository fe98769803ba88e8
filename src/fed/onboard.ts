/**
 * Adding a peer by its amateur-IP (44net) name: `POST /federation/peers/44net`
 * with `{callsign, confirm?, key?}`. The peer's host is `<call>.ampr.org`;
 * its binding is the TXT record at `_svc.<call>.ampr.org`:
 *
 *   v=svc1; id=<instance id>; key=<base64url Ed25519 key>
 *
 * resolved over DoH (doh.ts). The live descriptor at http://<call>.ampr.org
 * is cross-checked when it answers: a descriptor naming another instance, or
 * not publishing the key DNS names, is refused outright. With the resolver's
 * AD flag (DNSSEC) the peer is admitted at once; without, the binding is
 * returned for the operator to confirm, and a repeat with `confirm: true`
 * pins it (trust on first use; with `key`, only if DNS still says that key).
 * An admitted peer is unvetted, pinned to the key, `verified_via: coord-lot`,
 * with its ampr endpoint.
 */
import type { Core } from "../core/core.ts";
import { AppError, badRequest, conflict, unprocessable } from "../lib/errors.ts";
import { isCallsign } from "../lib/callsign.ts";
import { peerView } from "./admin.ts";
import type { Binding, OnboardAnswer } from "./shapes.ts";
import { DialError } from "./dial.ts";
import { parseTxtFields, resolveTxt } from "./doh.ts";
import { isAmprHost } from "../lib/fed/endpoints.ts";
import { getPeer, upsertPeer } from "./peers.ts";
import { isB64urlKey, isInstanceId } from "../lib/fed/record.ts";
import { fetchDescriptor, SyncError } from "./sync.ts";

const VERIFIED_VIA_44NET = "coord-lot";

/** The TXT binding in `records`, or why there is none. */
function parseBinding(records: string[]): { instance: string; key: string } | string {
  const found = records.map((r) => parseTxtFields(r)).filter((f) => f?.get("v")?.[0] === "svc1");
  if (found.length === 0) return "no v=svc1 TXT record";
  if (found.length > 1) return "more than one v=svc1 TXT record";
  const f = found[0]!;
  const id = f.get("id") ?? [];
  const key = f.get("key") ?? [];
  if (id.length !== 1 || !isInstanceId(id[0]!)) return "the record needs exactly one id=<instance id>";
  if (key.length !== 1 || !isB64urlKey(key[0]!)) return "the record needs exactly one key=<base64url Ed25519 key>";
  return { instance: id[0]!, key: key[0]! };
}

/** `key` is a base64url key and `confirm` a boolean (checked at the route). */
export async function onboard44net(gw: Core, b: { callsign: string; confirm?: boolean; key?: string }): Promise<OnboardAnswer> {
  if (!isCallsign(b.callsign)) throw badRequest("invalid", "callsign must be a callsign (its <call>.ampr.org host is the peer)");
  const callsign = b.callsign.toUpperCase();
  const host = `${callsign.toLowerCase()}.ampr.org`;
  if (!isAmprHost(host)) throw badRequest("invalid", `${host} is not a <call>.ampr.org host name`);
  const name = `_svc.${host}`;

  let txt;
  try {
    txt = await resolveTxt(gw, name);
  } catch (e) {
    if (e instanceof DialError) throw new AppError(502, "dns_failed", `resolving ${name} over DoH failed: ${e.message}`);
    throw e;
  }
  const parsed = parseBinding(txt.records);
  if (typeof parsed === "string") throw unprocessable("no_binding", `${name}: ${parsed} (${txt.rcode})`);

  let descriptor: Binding["descriptor"] = "unreachable";
  try {
    const d = await fetchDescriptor(gw, `http://${host}`);
    if (d.instance !== parsed.instance)
      throw conflict("dns_contradiction", `${host} describes itself as ${d.instance}, but DNS binds ${parsed.instance}: refused`);
    if (!d.keys.some((k) => k.key === parsed.key && k.status === "active"))
      throw conflict("dns_contradiction", `${host}'s descriptor does not publish the key DNS names (${parsed.key}): refused`);
    descriptor = "matches";
  } catch (e) {
    if (!(e instanceof DialError || e instanceof SyncError)) throw e;
    // Not reachable (or not answering a descriptor): DNS alone decides.
  }
  const binding: Binding = { callsign, host, name, instance: parsed.instance, key: parsed.key, dnssec: txt.dnssec, descriptor, form: txt.form };

  if (parsed.instance === gw.config.instance) throw conflict("self", `${host} is this instance`);
  const existing = getPeer(gw, parsed.instance);
  if (existing?.trust === "blocked") throw conflict("blocked", `${parsed.instance} is blocked here; unblock it first`);
  if (existing?.keyPin && existing.keyPin !== parsed.key) {
    throw conflict("key_conflict", `${parsed.instance} is pinned to ${existing.keyPin}; a pinned key changes only by a signed rotation`);
  }
  if (!txt.dnssec) {
    if (b.confirm !== true) return { admitted: false, needsConfirm: true, binding };
    if (b.key !== undefined && b.key !== parsed.key)
      throw conflict("binding_changed", `DNS now names key ${parsed.key}, not the ${b.key} you confirmed: look again`);
  }
  upsertPeer(gw, {
    instance: parsed.instance,
    // merged with what is known, and kept when the peer's own record lists no endpoints
    endpoints: [`ampr:${host};0`],
    keyPin: parsed.key,
    verifiedVia: VERIFIED_VIA_44NET,
    ...(existing ? {} : { trust: "unvetted" as const, foundVia: "44net", trustSetBy: "discovery" }),
  });
  return { admitted: true, binding, peer: peerView(gw, parsed.instance) };
}
