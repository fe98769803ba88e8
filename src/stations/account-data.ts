/**
 * The stations domain's entry in the GDPR registry (src/accounts/gdpr.ts):
 * own stations (with their weather-key dates, never the key), and the lines
 * the account queued for transmission. What was heard on the air under a
 * callsign (positions, packets, messages) is the public registry, kept for
 * its own short retention, not account data.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { AccountData } from "../accounts/data-sections.ts";
import { closed, nullable, unixMs } from "../lib/schema.ts";
import { OWN_STATION } from "./own.ts";
import { OUTBOX_ITEM } from "./outbox.ts";

const { id: _id, ...OUTBOX_FIELDS } = OUTBOX_ITEM.properties;
const { id: _sid, callsignHeld: _held, verified: _verified, wxKey: _wxKey, heard: _heard, ...STATION_FIELDS } = OWN_STATION.properties;

/** One of the account's stations, as its row holds it, with its weather key's dates (never the key). */
const OWN_STATION_ROW = closed({
  ...STATION_FIELDS,
  wxKeyCreatedAt: nullable(unixMs(), "when its weather key was issued; null: it has none"),
  wxKeyLastUsedAt: nullable(unixMs()),
});

/** The stations section of a GDPR export (stationsData.export). */
export const STATIONS_EXPORT = closed({
  ownStations: t.Array(OWN_STATION_ROW, { description: "the account's own stations" }),
  transmitted: t.Array(closed(OUTBOX_FIELDS), { description: "the lines it queued for transmission (the outbox), oldest first" }),
});
type StationsExport = Static<typeof STATIONS_EXPORT>;

export const stationsData: AccountData = {
  name: "stations",
  exportSchema: STATIONS_EXPORT,
  export(gw, account): StationsExport | null {
    const own = gw.db
      .query(`SELECT m.call, m.label, m.lat, m.lon, m.living_cache = 1 AS livingCache, m.cache_name AS cacheName, m.wx_tx = 1 AS wxTx,
          m.wx_tx_last_at AS wxTxLastAt, m.created_at AS createdAt, k.created_at AS wxKeyCreatedAt, k.last_used_at AS wxKeyLastUsedAt
        FROM my_stations m LEFT JOIN wx_keys k ON k.station_id = m.id WHERE m.user_id = ? ORDER BY m.id`)
      .all(account.userId) as Array<Omit<StationsExport["ownStations"][number], "livingCache" | "wxTx"> & { livingCache: number; wxTx: number }>;
    const outbox = gw.db
      .query(`SELECT kind, src, addressee, msg_id AS msgId, line, state, attempts, created_at AS createdAt, sent_at AS sentAt, done_at AS doneAt, error
        FROM aprs_outbox WHERE user_id = ? ORDER BY id`)
      .all(account.userId) as StationsExport["transmitted"];
    if (own.length === 0 && outbox.length === 0) return null;
    return { ownStations: own.map((r) => ({ ...r, livingCache: r.livingCache === 1, wxTx: r.wxTx === 1 })), transmitted: outbox };
  },
  erase(gw, account) {
    const ownStations = gw.db.query("DELETE FROM my_stations WHERE user_id = ?").run(account.userId).changes;
    const transmitted = gw.db.query("DELETE FROM aprs_outbox WHERE user_id = ?").run(account.userId).changes;
    return { ownStations, transmitted };
  },
};
