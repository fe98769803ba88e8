/**
 * The instance registry: a signed document binding instance names to keys
 * and operators, from FED_REGISTRY (verified with FED_REGISTRY_KEY) or a DNS
 * TXT anchor (FED_REGISTRY_DNS). When it binds a peer, only the keys it
 * binds are accepted for that peer, and sync refuses a peer that publishes
 * another key: such a peer is not mirrored.
 */
import type { Gateway } from "../gateway.ts";

export interface RegistryBinding {
  instance: string;
  keys: string[];
  operators: string[];
  aprsCall: string | null;
}

/** The registry's binding of an instance, or null when no registry binds it. */
export function registryBinding(gw: Gateway, instance: string): RegistryBinding | null {
  const r = gw.db.query("SELECT instance, keys, operators, aprs_call AS aprsCall FROM fed_registry WHERE instance = ?").get(instance) as
    | { instance: string; keys: string; operators: string; aprsCall: string | null }
    | null;
  if (!r) return null;
  return { instance: r.instance, keys: JSON.parse(r.keys) as string[], operators: JSON.parse(r.operators) as string[], aprsCall: r.aprsCall };
}

/** Why a peer publishing `keys` must not be mirrored under the registry, or null when it may. */
export function registryMismatch(gw: Gateway, instance: string, keys: string[]): string | null {
  const b = registryBinding(gw, instance);
  if (!b) return null;
  const off = keys.find((k) => !b.keys.includes(k));
  return off ? `${instance} publishes key ${off}, which its registry binding does not name: not mirrored` : null;
}
