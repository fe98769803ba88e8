/**
 * The remote box's entry in the GDPR registry (src/accounts/gdpr.ts): the
 * commands the account enqueued (by session), and the transmit commands that
 * acted as a callsign it has verified (an ingest box names the call), with
 * their arguments and what the box answered. Erase deletes them.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { AccountData } from "../accounts/data-sections.ts";
import { closed } from "../lib/schema.ts";
import { BOX_COMMAND } from "./service.ts";

/** A command as the box's log shows it (BOX_COMMAND), less its lease's end. */
const { leaseUntil: _leaseUntil, ...COMMAND_FIELDS } = BOX_COMMAND.properties;

/** The box section of a GDPR export (boxData.export). */
export const BOX_EXPORT = closed({
  commands: t.Array(closed(COMMAND_FIELDS), {
    description: "the commands the account enqueued, and the transmit commands that acted as a callsign it verified",
  }),
});
type BoxExport = Static<typeof BOX_EXPORT>;
type CommandRow = Omit<BoxExport["commands"][number], "transmit" | "ok" | "args" | "result"> & {
  transmit: number;
  ok: number | null;
  args: string;
  result: string | null;
};

const MINE = `user_id = ?1 OR (call IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(?2) c WHERE call = c.value OR call LIKE c.value || '-%'))`;

export const boxData: AccountData = {
  name: "box",
  exportSchema: BOX_EXPORT,
  export(gw, account): BoxExport | null {
    const rows = gw.db
      .query(
        `SELECT id, box, kind, args, transmit = 1 AS transmit, call, state, attempts, ok, result, via, created_at AS createdAt, leased_at AS leasedAt, done_at AS doneAt
         FROM box_commands WHERE ${MINE} ORDER BY id`,
      )
      .all(account.userId, JSON.stringify(account.verifiedCalls)) as CommandRow[];
    if (!rows.length) return null;
    return {
      commands: rows.map((r) => ({
        ...r,
        transmit: r.transmit === 1,
        ok: r.ok === null ? null : r.ok === 1,
        args: JSON.parse(r.args),
        result: r.result === null ? null : JSON.parse(r.result),
      })),
    };
  },
  erase(gw, account) {
    return { commands: gw.db.query(`DELETE FROM box_commands WHERE ${MINE}`).run(account.userId, JSON.stringify(account.verifiedCalls)).changes };
  },
};
