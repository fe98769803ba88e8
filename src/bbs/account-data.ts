/**
 * The BBS's entry in the GDPR registry (src/accounts/gdpr.ts). BBS mail is
 * keyed by callsign: what was sent from or to a callsign the account has
 * verified (base call or any of its SSIDs) is the account's, and so is its
 * White Pages entry (home BBS, name, QTH, zip).
 *
 * Erase deletes those messages outright: a message from or to the erased
 * callsign holds it in its header and, as often as not, in its body, so
 * nothing useful is left to anonymise. Their BIDs stay known (bbs_bids, as
 * a hash: a BID often holds a callsign) so a partner cannot forward the same
 * message in again; a bulletin the account
 * posted that went out as a federation record is tombstoned, so peers purge
 * their copy. The callsign is also taken off messages it killed.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { AccountData, AccountRef } from "../accounts/data-sections.ts";
import { localGid, publishTombstone } from "../fed/feed.ts";
import { closed, nullable, unixMs } from "../lib/schema.ts";
import { erasedBid, MESSAGE } from "./messages.ts";
import { WP_ENTRY } from "./wp.ts";

/** SQL true when `col` is one of the calls in ?1 (a JSON list of base calls), with or without an SSID. */
const ofCalls = (col: string) => `EXISTS (SELECT 1 FROM json_each(?1) c WHERE ${col} = c.value OR ${col} LIKE c.value || '-%')`;

const MESSAGE_COLS = `id, type, bid, from_call AS "from", to_call AS "to", at_bbs AS at, subject, body, route, size, origin, received_from AS receivedFrom,
  delivery, thread_id AS threadId, reply_to AS replyTo, created_at AS createdAt, read_at AS readAt, killed_at AS killedAt, killed_by AS killedBy`;

const M = MESSAGE.properties;

/** A message from or to one of the account's calls, as its row holds it (MESSAGE_COLS). */
const MESSAGE_ROW = closed({
  id: M.id,
  type: M.type,
  bid: M.bid,
  from: t.String({ description: "the sender's callsign" }),
  to: M.to,
  at: M.at,
  subject: t.String({ description: "empty once killed" }),
  body: t.String({ description: "the text; empty once killed" }),
  route: t.Array(t.String(), { description: "its R: lines, newest first; empty once killed" }),
  size: M.size,
  origin: M.origin,
  receivedFrom: M.receivedFrom,
  delivery: M.delivery,
  threadId: nullable(M.threadId, "the id of its thread's first message; null: it starts one"),
  replyTo: M.replyTo,
  createdAt: unixMs(),
  readAt: M.readAt,
  killedAt: nullable(unixMs()),
  killedBy: nullable(t.String(), 'the callsign that killed it ("box": the ingest box, for a partner)'),
});

/** The BBS section of a GDPR export (bbsData.export). */
export const BBS_EXPORT = closed({
  messages: t.Array(MESSAGE_ROW, { description: "mail and bulletins from or to a callsign the account verified (SSIDs too)" }),
  killed: t.Array(closed({ id: M.id, type: M.type, bid: M.bid, killedAt: unixMs() }), {
    description: "the messages a callsign of the account killed: others', and its own too (which are in messages as well)",
  }),
  whitePages: t.Array(WP_ENTRY, { description: "the White Pages entries of its callsigns" }),
});
type BbsExport = Static<typeof BBS_EXPORT>;

function calls(account: AccountRef): string {
  return JSON.stringify(account.verifiedCalls);
}

export const bbsData: AccountData = {
  name: "bbs",
  exportSchema: BBS_EXPORT,
  export(gw, account): BbsExport | null {
    if (!account.verifiedCalls.length) return null;
    const c = calls(account);
    const messages = gw.db.query(`SELECT ${MESSAGE_COLS} FROM bbs_messages WHERE ${ofCalls("from_call")} OR ${ofCalls("to_call")} ORDER BY id`).all(c) as Array<
      Omit<BbsExport["messages"][number], "route"> & { route: string }
    >;
    const killed = gw.db
      .query(`SELECT id, type, bid, killed_at AS killedAt FROM bbs_messages WHERE ${ofCalls("killed_by")} ORDER BY id`)
      .all(c) as BbsExport["killed"];
    const whitePages = gw.db
      .query(
        `SELECT call, home_bbs AS homeBbs, zip, name, qth, source, info_at AS infoAt, updated_at AS updatedAt FROM bbs_wp WHERE ${ofCalls("call")} ORDER BY call`,
      )
      .all(c) as BbsExport["whitePages"];
    if (!messages.length && !killed.length && !whitePages.length) return null;
    return {
      messages: messages.map((m) => ({ ...m, route: m.route ? m.route.split("\n") : [] })),
      /** messages of others this account killed */
      killed,
      whitePages,
    };
  },
  erase(gw, account) {
    if (!account.verifiedCalls.length) return { messages: 0, bulletinsTombstoned: 0, whitePages: 0 };
    const c = calls(account);
    const now = gw.clock.now();
    const rows = gw.db.query(`SELECT id, type, bid FROM bbs_messages WHERE ${ofCalls("from_call")} OR ${ofCalls("to_call")}`).all(c) as Array<{
      id: number;
      type: string;
      bid: string;
    }>;
    let bulletinsTombstoned = 0;
    const forget = gw.db.query("DELETE FROM bbs_bids WHERE bid = ?");
    const bid = gw.db.query("INSERT INTO bbs_bids (bid, seen_at) VALUES (?, ?) ON CONFLICT(bid) DO UPDATE SET seen_at = excluded.seen_at");
    const published = gw.db.query("SELECT type FROM fed_feed WHERE gid = ?");
    for (const r of rows) {
      forget.run(r.bid);
      bid.run(erasedBid(r.bid), now);
      if (r.type !== "B") continue;
      const gid = localGid(gw, "bulletin", r.id);
      const held = published.get(gid) as { type: number } | null;
      if (held && held.type !== 5) {
        publishTombstone(gw, gid);
        bulletinsTombstoned++;
      }
    }
    const messages = gw.db.query(`DELETE FROM bbs_messages WHERE ${ofCalls("from_call")} OR ${ofCalls("to_call")}`).run(c).changes;
    gw.db.query(`UPDATE bbs_messages SET killed_by = NULL WHERE ${ofCalls("killed_by")}`).run(c);
    const whitePages = gw.db.query(`DELETE FROM bbs_wp WHERE ${ofCalls("call")}`).run(c).changes;
    return { messages, bulletinsTombstoned, whitePages };
  },
};
