/**
 * The messages domain's entry in the GDPR registry (src/accounts/gdpr.ts):
 * the account's watch list (the messages it sent are the stations domain's
 * outbox rows; messages heard are the public registry). The watch list moves
 * with the account.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { AccountData } from "../accounts/data-sections.ts";
import { closed, nullable, unixMs } from "../lib/schema.ts";
import { setWatchList, WATCH_LIST, watchList } from "./alerts.ts";

/** The messages section of a GDPR export (messagesData.export). */
export const MESSAGES_EXPORT = closed({
  watches: t.Array(
    closed({
      call: t.String({ description: "upper-case, with its SSID if one was given (without: any SSID)" }),
      createdAt: unixMs(),
      lastAlertAt: nullable(unixMs(), "when it last raised an alert; null: never"),
    }),
    { description: "the callsigns the account watches, by call" },
  ),
});

/** The messages section of a move bundle (messagesData.bundle): the watch list. */
export const MESSAGES_BUNDLE = closed({ watches: WATCH_LIST.properties.calls });

export const messagesData: AccountData = {
  name: "messages",
  exportSchema: MESSAGES_EXPORT,
  bundleSchema: MESSAGES_BUNDLE,
  export(gw, account): Static<typeof MESSAGES_EXPORT> | null {
    const watches = gw.db
      .query("SELECT call, created_at AS createdAt, last_alert_at AS lastAlertAt FROM callsign_watches WHERE user_id = ? ORDER BY call")
      .all(account.userId) as Static<typeof MESSAGES_EXPORT>["watches"];
    return watches.length ? { watches } : null;
  },
  erase(gw, account) {
    return { watches: gw.db.query("DELETE FROM callsign_watches WHERE user_id = ?").run(account.userId).changes };
  },
  bundle(gw, account): Static<typeof MESSAGES_BUNDLE> {
    return { watches: watchList(gw, account.userId) };
  },
  import(gw, account, data) {
    const calls = (data as { watches?: unknown } | null)?.watches;
    if (Array.isArray(calls) && calls.every((c) => typeof c === "string")) setWatchList(gw, account.userId, calls as string[]);
  },
};
