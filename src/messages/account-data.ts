/**
 * The messages domain's entry in the GDPR registry (src/accounts/gdpr.ts):
 * the account's watch list (the messages it sent are the stations domain's
 * outbox rows; messages heard are the public registry). The watch list moves
 * with the account.
 */
import type { AccountData } from "../accounts/data-sections.ts";
import { setWatchList, watchList } from "./alerts.ts";

export const messagesData: AccountData = {
  name: "messages",
  export(gw, account) {
    const watches = gw.db
      .query("SELECT call, created_at AS createdAt, last_alert_at AS lastAlertAt FROM callsign_watches WHERE user_id = ? ORDER BY call")
      .all(account.userId);
    return watches.length ? { watches } : null;
  },
  erase(gw, account) {
    return { watches: gw.db.query("DELETE FROM callsign_watches WHERE user_id = ?").run(account.userId).changes };
  },
  bundle(gw, account) {
    return { watches: watchList(gw, account.userId) };
  },
  import(gw, account, data) {
    const calls = (data as { watches?: unknown } | null)?.watches;
    if (Array.isArray(calls) && calls.every((c) => typeof c === "string")) setWatchList(gw, account.userId, calls as string[]);
  },
};
