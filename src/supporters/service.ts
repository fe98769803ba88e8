/**
 * Supporter recognition. The operator's backend confirms a supporter (the
 * ingest secret: payments never touch this instance); the supporter chooses
 * whether to be listed and under which name. Nothing is listed by default.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { badRequest, conflict, notFound } from "../lib/errors.ts";
import { closed, nullable, unixMs } from "../lib/schema.ts";
import { isCallsign } from "../lib/callsign.ts";
import { verifiedHolder } from "../accounts/users.ts";

/** The signed-in account's supporter state and listing choices (GET and POST /api/support/prefs). */
export const SUPPORTER_PREFS = closed({
  supporter: t.Boolean({ description: "a confirmed supporter whose support has not ended" }),
  public: t.Boolean({ description: "listed on /support" }),
  name: nullable(t.String(), "the name to list instead of the callsign"),
  since: nullable(unixMs(), "when the support was first confirmed, unix ms"),
  until: nullable(unixMs(), "when the support ends, unix ms (null: no end, or not a supporter)"),
  level: nullable(t.String(), "the level shown, e.g. club"),
});
export type SupporterPrefs = Static<typeof SUPPORTER_PREFS>;

/** POST /api/support/confirm's answer. */
export const SUPPORTER_CONFIRMED = closed({
  confirmed: t.Literal(true),
  until: nullable(unixMs(), "when the support ends, unix ms; null: no end"),
});
export type SupporterConfirmed = Static<typeof SUPPORTER_CONFIRMED>;

/** GET /api/support: the current supporters who chose to be listed, longest first. */
export const SUPPORTERS = closed({
  supporters: t.Array(
    closed({
      name: t.String({ description: 'the name they chose, else their active callsign, else "a supporter"' }),
      call: nullable(t.String(), "their active callsign, if any"),
      level: nullable(t.String()),
      since: unixMs("when the support was confirmed, unix ms"),
    }),
  ),
});
export type Supporters = Static<typeof SUPPORTERS>;

interface Row {
  confirmed_at: number;
  until: number | null;
  level: string | null;
  public: number;
  name: string | null;
}

const row = (gw: Core, userId: number) => gw.db.query("SELECT * FROM supporters WHERE user_id = ?").get(userId) as Row | null;

export function supporterPrefs(gw: Core, userId: number): SupporterPrefs {
  const r = row(gw, userId);
  const live = !!r && (r.until === null || r.until > gw.clock.now());
  return {
    supporter: live,
    public: !!r && r.public === 1,
    name: r?.name ?? null,
    since: r?.confirmed_at ?? null,
    until: r?.until ?? null,
    level: r?.level ?? null,
  };
}

/** POST /api/support/prefs: whether and under which name a supporter is listed. */
export const SUPPORTER_PREFS_BODY = closed({
  public: t.Optional(t.Boolean({ description: "list this account on /support" })),
  name: t.Optional(
    t.Nullable(t.String({ minLength: 1, maxLength: 60, pattern: "\\S", description: "the name to list (default: the callsign); null clears it" })),
  ),
});

/** POST /api/support/confirm: the operator's backend names the supporter. */
export const SUPPORTER_CONFIRM_BODY = closed({
  call: t.Optional(t.String({ description: "the supporter's verified callsign (or give email)" })),
  email: t.Optional(t.String({ description: "the supporter's account e-mail (when there is no call)" })),
  until: t.Optional(t.Nullable(t.Integer({ description: "when the support ends, unix milliseconds; null: no end" }))),
  level: t.Optional(t.Nullable(t.String({ maxLength: 40, description: "a level to show, e.g. club" }))),
});

/** `{public?, name?}`: be listed (or not), under a name of your choice (default: your callsign). */
export function setSupporterPrefs(gw: Core, userId: number, b: Static<typeof SUPPORTER_PREFS_BODY>): SupporterPrefs {
  if (!row(gw, userId)) throw conflict("not_a_supporter", "this account is not a confirmed supporter");
  if (b.public !== undefined) gw.db.query("UPDATE supporters SET public = ?, updated_at = ? WHERE user_id = ?").run(b.public ? 1 : 0, gw.clock.now(), userId);
  if (b.name !== undefined)
    gw.db.query("UPDATE supporters SET name = ?, updated_at = ? WHERE user_id = ?").run(b.name === null ? null : b.name.trim(), gw.clock.now(), userId);
  return supporterPrefs(gw, userId);
}

/** The operator's backend confirms support: `{call | email, until?, level?}`. */
export function confirmSupporter(gw: Core, b: Static<typeof SUPPORTER_CONFIRM_BODY>): SupporterConfirmed {
  let userId: number | null = null;
  if (typeof b.call === "string") {
    if (!isCallsign(b.call)) throw badRequest("invalid", "call is not a callsign");
    userId = verifiedHolder(gw.db, b.call);
  } else if (typeof b.email === "string") {
    userId = (gw.db.query("SELECT id FROM users WHERE email = ?").get(b.email.trim().toLowerCase()) as { id: number } | null)?.id ?? null;
  } else throw badRequest("invalid", "name the supporter by call (a verified callsign) or email");
  if (userId === null) throw notFound("an account with that verified callsign or e-mail");
  const now = gw.clock.now();
  gw.db
    .query(
      `INSERT INTO supporters (user_id, confirmed_at, until, level, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(user_id) DO UPDATE SET until = excluded.until, level = excluded.level, updated_at = excluded.updated_at`,
    )
    .run(userId, now, b.until ?? null, b.level ?? null, now);
  return { confirmed: true, until: b.until ?? null };
}

/** Supporters who chose to be listed, current ones only. */
export function listSupporters(gw: Core): Supporters {
  const rows = gw.db
    .query(
      `SELECT s.name, s.level, s.confirmed_at AS since, (SELECT call FROM callsigns c WHERE c.user_id = s.user_id AND c.active = 1) AS call
       FROM supporters s WHERE s.public = 1 AND (s.until IS NULL OR s.until > ?) ORDER BY s.confirmed_at`,
    )
    .all(gw.clock.now()) as Array<{ name: string | null; level: string | null; since: number; call: string | null }>;
  return { supporters: rows.map((r) => ({ name: r.name ?? r.call ?? "a supporter", call: r.call, level: r.level, since: r.since })) };
}
