/**
 * What the simulated users wrote, per gid: the truth the invariants are
 * checked against (the latest version each origin published, and whether it
 * tombstoned the record since).
 */
export interface Entry {
  gid: string;
  origin: string;
  kind: "cache" | "find" | "account-move";
  v: number;
  live: boolean;
}

export class Ledger {
  readonly entries = new Map<string, Entry>();
  /** gids of records the malicious gateway forged in others' names */
  readonly forged = new Set<string>();
  /** accounts that moved away: finds must no longer be attributed to `from` where its origin is mirrored */
  readonly moved: Array<{ origin: string; from: string; to: string }> = [];

  note(gid: string, origin: string, kind: Entry["kind"], v: number): void {
    this.entries.set(gid, { gid, origin, kind, v, live: true });
  }

  tombstone(gid: string): void {
    const e = this.entries.get(gid);
    if (e) e.live = false;
  }

  liveCaches(origin?: string): Entry[] {
    return [...this.entries.values()].filter((e) => e.kind === "cache" && e.live && (origin === undefined || e.origin === origin));
  }
}
