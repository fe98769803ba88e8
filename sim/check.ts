/**
 * The invariants, read from each gateway's own database:
 *   missing      an honest origin's live record not held, or held at an older
 *                version; a mirrored find still attributed to an account that moved
 *   resurrected  a tombstoned record still held (or shown on the map)
 *   forgedApplied a record forged in another origin's name held anywhere, or a
 *                forged tombstone that deleted a live record
 * Every honest gateway is checked against every honest origin it mirrors: its
 * peers that are not blocked (the ones it trusts, and the unvetted ones it
 * learnt from them by transitive discovery).
 */
import type { Ledger } from "./ledger.ts";
import type { World } from "./world.ts";

export interface Verdict {
  missing: number;
  resurrected: number;
  forgedApplied: number;
}

export function check(world: World, ledger: Ledger): Verdict {
  const out: Verdict = { missing: 0, resurrected: 0, forgedApplied: 0 };
  const honest = new Set(world.honest.map((x) => x.instance));
  for (const node of world.honest) {
    const peers = new Set(
      (node.gw.db.query("SELECT instance FROM peers WHERE trust <> 'blocked'").all() as Array<{ instance: string }>).map((r) => r.instance),
    );
    const held = new Map<string, number>();
    for (const r of node.gw.db.query("SELECT gid, v FROM mirror_records").all() as Array<{ gid: string; v: number }>) held.set(r.gid, r.v);
    const shown = new Set((node.gw.db.query("SELECT gid FROM mirror_caches").all() as Array<{ gid: string }>).map((r) => r.gid));
    const tombs = new Set((node.gw.db.query("SELECT gid FROM tombstones").all() as Array<{ gid: string }>).map((r) => r.gid));
    for (const e of ledger.entries.values()) {
      if (e.origin === node.instance || !honest.has(e.origin) || !peers.has(e.origin)) continue;
      if (e.live) {
        if (held.get(e.gid) !== e.v) {
          out.missing++;
          if (process.env.SIM_DEBUG === "2") console.error("missing", node.instance, e.gid, e.v, held.get(e.gid), tombs.has(e.gid));
        }
        if (tombs.has(e.gid)) out.forgedApplied++;
      } else if (held.has(e.gid) || shown.has(e.gid)) out.resurrected++;
    }
    // an account that moved: nothing still attributed to it (a find that arrives after the move is re-pointed too)
    for (const m of ledger.moved) {
      if (m.origin === node.instance || !peers.has(m.origin)) continue;
      out.missing += (node.gw.db.query("SELECT count(*) AS n FROM mirror_finds WHERE account = ?").get(m.from) as { n: number }).n;
    }
    for (const gid of ledger.forged) if (held.has(gid) || shown.has(gid)) out.forgedApplied++;
  }
  return out;
}
