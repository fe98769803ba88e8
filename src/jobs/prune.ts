/**
 * The one place that prunes. Each retention rule names a table, its time
 * column and how long rows live; the pruner deletes in bounded batches and
 * yields to the event loop between batches, so a table of millions of rows
 * never holds the database (or requests) for more than one small batch.
 * The same rules feed GET /privacy, so what we say is what we do.
 */
import { FIXED, type Config } from "../core/config.ts";
import type { Database } from "../core/store/db.ts";
import type { WriteGate } from "../core/store/write-gate.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface RetentionRule {
  name: string;
  table: string;
  /** unix-ms column compared with the cut-off */
  column: string;
  /** extra SQL condition: rows it excludes are never pruned */
  keep?: string;
  ttlMs(c: Config): number;
  /** what the rows are, in words for /privacy */
  what: string;
  /** the setting that controls the ttl, if any */
  setting?: string;
  /** for /privacy, when the ttl alone does not say it (rows that carry their own expiry) */
  kept?: (c: Config) => string;
}

export const RETENTION: RetentionRule[] = [
  {
    name: "positions",
    table: "positions",
    column: "ts",
    keep: "find_id IS NULL",
    ttlMs: () => FIXED.positionRetentionDays * DAY,
    what: "station positions from APRS-IS, RF and browsers (a position that corroborates a find is kept as long as that find)",
  },
  {
    name: "stations",
    table: "stations",
    column: "last_heard",
    ttlMs: () => FIXED.positionRetentionDays * DAY,
    what: "the station registry's latest state of each station (last position, status, weather)",
  },
  { name: "aprs_outbox", table: "aprs_outbox", column: "created_at", ttlMs: () => 7 * DAY, what: "APRS lines queued for transmission and their ack state" },
  { name: "emergencies", table: "emergencies", column: "ts", ttlMs: () => 7 * DAY, what: "emergency positions heard (the map's banner shows a day of them)" },
  {
    name: "box_commands",
    table: "box_commands",
    column: "created_at",
    ttlMs: () => 30 * DAY,
    what: "commands for the operator's box (who asked, what, and the box's answer)",
  },
  {
    name: "netrom_routes",
    table: "netrom_routes",
    column: "updated_at",
    keep: "source = 'heard'",
    ttlMs: () => 6 * HOUR,
    what: "NET/ROM routes learnt from NODES broadcasts heard (node callsigns and aliases)",
  },
  { name: "packets", table: "packets", column: "ts", ttlMs: (c) => c.packetsTtlHours * HOUR, what: "raw APRS packets", setting: "PACKETS_TTL_HOURS" },
  {
    name: "aprs_messages",
    table: "aprs_messages",
    column: "ts",
    ttlMs: (c) => c.messagesTtlDays * DAY,
    what: "the APRS message log",
    setting: "MESSAGES_TTL_DAYS",
  },
  {
    name: "sensor_readings",
    table: "sensor_readings",
    column: "ts",
    ttlMs: (c) => c.sensorTtlDays * DAY,
    what: "telemetry and weather readings",
    setting: "SENSOR_TTL_DAYS",
  },
  {
    name: "port_counters",
    table: "port_counters",
    column: "ts",
    ttlMs: (c) => c.portCountersTtlDays * DAY,
    what: "radio port counters",
    setting: "PORT_COUNTERS_TTL_DAYS",
  },
  {
    name: "mheard",
    table: "mheard",
    column: "last_ts",
    ttlMs: (c) => c.mheardTtlDays * DAY,
    what: "the MHeard list of stations heard on the radio ports",
    setting: "MHEARD_TTL_DAYS",
  },
  {
    name: "tombstones",
    table: "tombstones",
    column: "received_at",
    ttlMs: (c) => c.tombstoneTtlDays * DAY,
    what: "tombstones of deleted federated records (no personal data)",
    setting: "TOMBSTONE_TTL_DAYS",
  },
  {
    name: "published_tombstones",
    table: "fed_feed",
    column: "created_at",
    keep: "type = 5",
    ttlMs: (c) => c.tombstoneTtlDays * DAY,
    what: "tombstones this instance published for its deleted records (no personal data)",
    setting: "TOMBSTONE_TTL_DAYS",
  },
  {
    name: "fed_quarantine",
    table: "fed_quarantine",
    column: "last_at",
    ttlMs: () => 30 * DAY,
    what: "counts of federation frames refused from unknown or blocked instances (instance ids only)",
  },
  {
    name: "sessions",
    table: "sessions",
    column: "expires_at",
    ttlMs: () => 0,
    what: "sign-in sessions",
    kept: () => `until you sign out, or ${FIXED.sessionDays} days`,
  },
  {
    name: "used_assertions",
    table: "used_assertions",
    column: "expires_at",
    ttlMs: () => 0,
    what: "signatures of signed requests already used (replay protection)",
    kept: () => "10 minutes",
  },
  {
    name: "webauthn_challenges",
    table: "webauthn_challenges",
    column: "expires_at",
    ttlMs: () => 0,
    what: "passkey sign-in challenges not yet answered",
    kept: () => "5 minutes",
  },
  {
    name: "email_tokens",
    table: "email_tokens",
    column: "expires_at",
    ttlMs: () => 0,
    what: "e-mail sign-in links and codes not yet used (with the address they were sent to)",
    kept: () => "15 minutes",
  },
  {
    name: "callsign_challenges",
    table: "callsign_challenges",
    column: "expires_at",
    keep: "heard_at IS NULL",
    ttlMs: () => 0,
    what: "APRS callsign verification codes not (yet) heard; a heard one is kept with the account as the record of how the callsign was verified",
    kept: () => "1 hour",
  },
  {
    name: "bbs_bulletins",
    table: "bbs_messages",
    column: "created_at",
    keep: "type = 'B'",
    ttlMs: (c) => c.bbsBulletinTtlDays * DAY,
    what: "BBS bulletins",
    setting: "BBS_BULLETIN_TTL_DAYS",
  },
  {
    name: "bbs_mail",
    table: "bbs_messages",
    column: "created_at",
    keep: "type IN ('P', 'T')",
    ttlMs: (c) => c.bbsMailTtlDays * DAY,
    what: "BBS personal mail and NTS traffic (a killed message loses its text at once)",
    setting: "BBS_MAIL_TTL_DAYS",
  },
  {
    name: "bbs_bids",
    table: "bbs_bids",
    column: "seen_at",
    ttlMs: (c) => c.bbsBidTtlDays * DAY,
    what: "BBS message ids (BIDs) seen, to refuse duplicates",
    setting: "BBS_BID_TTL_DAYS",
  },
  {
    name: "watch_digests",
    table: "watch_digests",
    column: "created_at",
    keep: "state NOT IN ('pending', 'sending')",
    ttlMs: () => 30 * DAY,
    what: "which watch-alert digests were sent to an account, and when (log ids only), so none is sent twice",
  },
  {
    name: "relay_queue",
    table: "relay_queue",
    column: "created_at",
    ttlMs: (c) => c.relayQueueTtlHours * HOUR,
    what: "relay queries for packet-only peers",
    setting: "RELAY_QUEUE_TTL_HOURS",
  },
];

export interface PruneReport {
  [rule: string]: { deleted: number; batches: number };
}

const yieldToEventLoop = () => new Promise<void>((r) => setImmediate(r));

/**
 * Deletes expired rows of every rule, `batchSize` rows per statement, each
 * batch through the store's write gate (`gate`, a serving gateway's): a batch
 * of deletes scattered over an index writes hundreds of pages, and without the
 * gate's hold while the WAL is over its cap, the soak's prune that found work
 * (hundreds of thousands of rows) grew the WAL to 2.5 GB before a checkpoint
 * could start it over, and left SQLite's WAL index (the -shm file, mapped into
 * the process) 4 MB larger for good.
 */
export async function pruneAll(
  db: Database,
  config: Config,
  now: number,
  { batchSize = 500, gate }: { batchSize?: number; gate?: Pick<WriteGate, "run"> } = {},
): Promise<PruneReport> {
  const report: PruneReport = {};
  for (const rule of RETENTION) {
    const cutoff = now - rule.ttlMs(config);
    const cond = `${rule.column} < ?1${rule.keep ? ` AND ${rule.keep}` : ""}`;
    const stmt = db.query(`DELETE FROM ${rule.table} WHERE rowid IN (SELECT rowid FROM ${rule.table} WHERE ${cond} LIMIT ?2)`);
    const batch = () => stmt.run(cutoff, batchSize).changes;
    let deleted = 0;
    let batches = 0;
    for (;;) {
      const n = gate ? await gate.run(batch) : batch();
      if (n === 0) break;
      deleted += n;
      batches++;
      if (n < batchSize) break;
      await yieldToEventLoop();
    }
    report[rule.name] = { deleted, batches };
  }
  return report;
}
