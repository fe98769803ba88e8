/**
 * The remote box's entry in the GDPR registry (src/accounts/gdpr.ts): the
 * commands the account enqueued (by session), and the transmit commands that
 * acted as a callsign it has verified (an ingest box names the call), with
 * their arguments and what the box answered. Erase deletes them.
 */
import type { AccountData } from "../accounts/data-sections.ts";

const MINE = `user_id = ?1 OR (call IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(?2) c WHERE call = c.value OR call LIKE c.value || '-%'))`;

export const boxData: AccountData = {
  name: "box",
  export(gw, account) {
    const rows = gw.db
      .query(
        `SELECT id, box, kind, args, transmit = 1 AS transmit, call, state, attempts, ok, result, via, created_at AS createdAt, leased_at AS leasedAt, done_at AS doneAt
         FROM box_commands WHERE ${MINE} ORDER BY id`,
      )
      .all(account.userId, JSON.stringify(account.verifiedCalls)) as Array<Record<string, unknown>>;
    if (!rows.length) return null;
    return {
      commands: rows.map((r) => ({
        ...r,
        transmit: r.transmit === 1,
        ok: r.ok === null ? null : r.ok === 1,
        args: JSON.parse(r.args as string),
        result: r.result === null ? null : JSON.parse(r.result as string),
      })),
    };
  },
  erase(gw, account) {
    return { commands: gw.db.query(`DELETE FROM box_commands WHERE ${MINE}`).run(account.userId, JSON.stringify(account.verifiedCalls)).changes };
  },
};
