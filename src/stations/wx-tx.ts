/**
 * An own weather station's readings, transmitted as APRS weather packets
 * (/api/wx/tx). The owner's account must have verified the station's base
 * callsign: the packet goes out under that callsign. A packet is built by the
 * APRS encoder from the reading just pushed and queued in the outbox (the
 * ingest box, APRS-IS and the local TNC drain it), at most once per
 * WX_TX_INTERVAL_MINUTES per station: a station pushing every minute goes on
 * the air every 10 minutes by default. Nothing is sent when the station stops
 * pushing, and a report still waiting for a transmitter is replaced by the
 * next one rather than queued behind it, so a transmitter that was away never
 * sends a burst of stale weather.
 *
 * Position: the own station's fixed position, else where its beacons put it,
 * else a positionless report (`_MMDDHHMM...`).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { closed } from "../lib/schema.ts";
import { encodeWeather, EncodeError, type Weather } from "../lib/aprs/index.ts";
import { badRequest, notFound } from "../lib/errors.ts";
import { enqueue, rememberOwnWeather, type OutboxItem } from "./outbox.ts";
import { clockPaused } from "../system/clock-sanity.ts";
import { findOwnByCall, holdsBaseCall, OWN_STATION, ownRow, usableRow, viewOwn, type OwnRow, type OwnStation } from "./own.ts";

/** The weather line for a station's reading; throws EncodeError for a callsign or value APRS cannot carry. */
function weatherLine(gw: Core, row: OwnRow, wx: Weather, at: number): string {
  let lat = row.lat;
  let lon = row.lon;
  if (lat === null || lon === null) {
    const s = gw.db.query("SELECT lat, lon FROM stations WHERE call = ?").get(row.call) as { lat: number | null; lon: number | null } | null;
    lat = s?.lat ?? null;
    lon = s?.lon ?? null;
  }
  return encodeWeather({ src: row.call, wx, at, ...(lat !== null && lon !== null ? { lat, lon } : {}) });
}

/** POST /api/wx/tx: the station (by id, or by callsign) and whether to send its weather. */
/** Which of the user's weather stations are sent on APRS, and how often. */
export const WX_TX_STATE = closed({
  stations: t.Array(OWN_STATION),
  intervalMinutes: t.Number({ description: "at most one weather packet per station this often (WX_TX_INTERVAL_MINUTES)" }),
});
/** A station's sending turned on or off. */
export const WX_TX_SET = closed({ station: OWN_STATION, intervalMinutes: WX_TX_STATE.properties.intervalMinutes });

export const WX_TX_BODY = closed({
  stationId: t.Optional(t.Number({ multipleOf: 1, description: "the station's id" })),
  call: t.Optional(t.String({ description: "or its callsign" })),
  on: t.Boolean({ description: "send its weather on APRS, or stop" }),
});

/** Turns transmitting on or off: `{"on": true}`. */
export function setWxTx(gw: Core, userId: number, stationId: number, on: boolean): OwnStation {
  const row = ownRow(gw, userId, stationId);
  if (on) {
    usableRow(gw, row, { verified: true });
    try {
      weatherLine(gw, row, {}, gw.clock.now());
    } catch (e) {
      if (e instanceof EncodeError) throw badRequest(e.code, `${row.call} cannot transmit: ${e.message}`);
      throw e;
    }
  }
  gw.db.query("UPDATE my_stations SET wx_tx = ? WHERE id = ?").run(on ? 1 : 0, row.id);
  return viewOwn(gw, ownRow(gw, userId, stationId));
}

/** POST /api/wx/tx: the station named by stationId, or by call (one of the user's own stations). */
export function setWxTxOf(gw: Core, userId: number, b: Static<typeof WX_TX_BODY>): OwnStation {
  let id: number;
  if (b.stationId !== undefined) id = b.stationId;
  else if (b.call !== undefined) {
    const row = findOwnByCall(gw, userId, b.call);
    if (!row) throw notFound(`own station ${b.call}`);
    id = row.id;
  } else throw badRequest("invalid", "name the station: stationId, or call");
  return setWxTx(gw, userId, id, b.on);
}

/** Queues the reading as an APRS weather packet when the station transmits and its interval has passed. */
export function transmitWeatherIfDue(gw: Core, station: OwnRow, wx: Weather, at: number): OutboxItem | null {
  const now = gw.clock.now();
  const row = ownRow(gw, station.user_id, station.id);
  if (row.wx_tx !== 1) return null;
  // a weather report carries its time: none goes on the air while the clock is not set (system/clock-sanity.ts)
  if (clockPaused(gw)) return null;
  // (a clock stepped back past the last one does not hold the next back until it catches up)
  if (row.wx_tx_last_at !== null && now >= row.wx_tx_last_at && now - row.wx_tx_last_at < gw.config.wxTxIntervalMinutes * 60_000) return null;
  // The owner lost the verified callsign since turning it on: stay quiet (the station view says why).
  if (!holdsBaseCall(gw, row.user_id, row.call).verified) return null;
  let line: string;
  try {
    line = weatherLine(gw, row, wx, at);
  } catch (e) {
    if (!(e instanceof EncodeError)) throw e;
    gw.log.warn("wx", `${row.call}: weather not transmitted: ${e.message}`);
    return null;
  }
  const item = gw.db.transaction(() => {
    gw.db
      .query(
        "UPDATE aprs_outbox SET state = 'failed', done_at = ?, error = 'replaced by a newer weather report' WHERE kind = 'weather' AND src = ? AND state = 'queued'",
      )
      .run(now, row.call);
    gw.db.query("UPDATE my_stations SET wx_tx_last_at = ? WHERE id = ?").run(now, row.id);
    return enqueue(gw, { kind: "weather", src: row.call, line, userId: row.user_id });
  })();
  rememberOwnWeather(gw, line, now);
  return item;
}
