/**
 * The malicious gateway: a real gateway (it publishes caches of its own and is
 * trusted by two honest gateways, so everyone discovers it) whose sync pages
 * the network rewrites on the way out. Its descriptor claims news in every
 * feed (so that pullers always ask). Into each cache page it adds
 *   - a cache in an honest victim's name, signed with its own key (forged);
 *   - a cache of its own origin with a gid in the victim's namespace;
 *   - frames of other origins it mirrored earlier, older versions first (replayed);
 * and into each tombstone page a tombstone of a victim's live cache, signed
 * with its own key. The gids it forges go into the ledger, so that
 * forgedApplied can find them anywhere.
 */
import { cacheToWire } from "../src/lib/fed/bodies.ts";
import { signerFromSeed } from "../src/lib/fed/keys.ts";
import { decodePage, encodePage } from "../src/lib/fed/page.ts";
import { upsertPeer } from "../src/fed/peers.ts";
import { encodePayload, RECORD_TYPES, signFrame } from "../src/lib/fed/record.ts";
import type { Ledger } from "./ledger.ts";
import type { Tamper } from "./net.ts";
import type { World } from "./world.ts";

export function installEvil(world: World, ledger: Ledger): { forged: number; replayed: number } {
  const evil = world.evil;
  const counts = { forged: 0, replayed: 0 };
  if (!evil) return counts;
  const signer = signerFromSeed(world.keys.get(evil.instance)!.seed);
  // two honest gateways trust it: the rest discover it from them
  const honest = world.honest;
  for (const h of [honest[0]!, honest[Math.floor(honest.length / 2)]!])
    upsertPeer(h.gw, { instance: evil.instance, url: `https://${evil.host}`, trust: "trusted", keyPin: world.keys.get(evil.instance)!.publicKey });
  /** the first version of every frame it has mirrored: what it replays */
  const firstSeen = new Map<string, Uint8Array>();
  let n = 0;
  const forge = (origin: string, gid: string, type: number, body: Record<string, unknown>) => {
    const at = Math.floor(world.clock.now() / 1000);
    return signFrame(encodePayload({ type: type as never, gid, origin, v: 1, at, signer: origin, body: body as never }), signer);
  };
  const tamper: Tamper = (path, _from, bytes) => {
    if (path === "/.well-known/svc") {
      // it claims every feed has news, so that pullers always come for its pages
      const d = JSON.parse(new TextDecoder().decode(bytes)) as { heads?: Record<string, number> };
      for (const k of Object.keys(d.heads ?? {})) d.heads![k] = Number.MAX_SAFE_INTEGER;
      return new TextEncoder().encode(JSON.stringify(d));
    }
    if (!path.startsWith("/federation/sync/")) return bytes;
    const kind = path.slice("/federation/sync/".length);
    for (const r of evil.gw.db.query("SELECT gid, frame FROM mirror_records ORDER BY gid").all() as Array<{ gid: string; frame: Uint8Array }>)
      if (!firstSeen.has(r.gid)) firstSeen.set(r.gid, r.frame);
    const page = decodePage(bytes);
    if (page.more) return bytes;
    const victims = honest.filter((h) => h !== evil);
    const victim = victims[n++ % victims.length]!;
    const frames = [...page.frames];
    if (kind === "cache") {
      const body = cacheToWire({
        name: `FORGED ${n}`,
        type: "traditional",
        size: "small",
        difficulty: 1,
        terrain: 1,
        lat: 45,
        lon: 5,
        status: "active",
        ownerCall: "N0EVL",
      });
      const inName = `${victim.instance}:cache:9${String(n).padStart(5, "0")}`;
      const inNamespace = `${victim.instance}:cache:8${String(n).padStart(5, "0")}`;
      ledger.forged.add(inName);
      ledger.forged.add(inNamespace);
      frames.push(forge(victim.instance, inName, RECORD_TYPES.cache, body as never), forge(evil.instance, inNamespace, RECORD_TYPES.cache, body as never));
      counts.forged += 2;
      const replays = [...firstSeen.values()].slice(0, 8);
      frames.push(...replays);
      counts.replayed += replays.length;
    } else if (kind === "tombstone") {
      const live = ledger.liveCaches(victim.instance)[0];
      if (live) {
        frames.push(forge(victim.instance, live.gid, RECORD_TYPES.tombstone, {}));
        counts.forged++;
      }
    } else return bytes;
    return encodePage({ ...page, frames });
  };
  world.net.tamper.set(evil.instance, tamper);
  return counts;
}
