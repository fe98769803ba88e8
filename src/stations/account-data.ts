/**
 * The stations domain's entry in the GDPR registry (src/accounts/gdpr.ts):
 * own stations (with their weather-key dates, never the key), and the lines
 * the account queued for transmission. What was heard on the air under a
 * callsign (positions, packets, messages) is the public registry, kept for
 * its own short retention, not account data.
 */
import type { AccountData } from "../accounts/data-sections.ts";

export const stationsData: AccountData = {
  name: "stations",
  export(gw, account) {
    const own = gw.db
      .query(`SELECT m.call, m.label, m.lat, m.lon, m.living_cache = 1 AS livingCache, m.cache_name AS cacheName, m.wx_tx = 1 AS wxTx,
          m.wx_tx_last_at AS wxTxLastAt, m.created_at AS createdAt, k.created_at AS wxKeyCreatedAt, k.last_used_at AS wxKeyLastUsedAt
        FROM my_stations m LEFT JOIN wx_keys k ON k.station_id = m.id WHERE m.user_id = ? ORDER BY m.id`)
      .all(account.userId) as Array<Record<string, unknown>>;
    const outbox = gw.db
      .query(`SELECT kind, src, addressee, msg_id AS msgId, line, state, attempts, created_at AS createdAt, sent_at AS sentAt, done_at AS doneAt, error
        FROM aprs_outbox WHERE user_id = ? ORDER BY id`)
      .all(account.userId);
    if (own.length === 0 && outbox.length === 0) return null;
    return { ownStations: own.map((r) => ({ ...r, livingCache: r.livingCache === 1, wxTx: r.wxTx === 1 })), transmitted: outbox };
  },
  erase(gw, account) {
    const ownStations = gw.db.query("DELETE FROM my_stations WHERE user_id = ?").run(account.userId).changes;
    const transmitted = gw.db.query("DELETE FROM aprs_outbox WHERE user_id = ?").run(account.userId).changes;
    return { ownStations, transmitted };
  },
};
