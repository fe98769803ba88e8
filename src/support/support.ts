/**
 * Supporter recognition. The operator's backend confirms a supporter (the
 * ingest secret: payments never touch this instance); the supporter chooses
 * whether to be listed and under which name. Nothing is listed by default.
 */
import type { Gateway } from "../gateway.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { isCallsign } from "../callsign.ts";
import { verifiedHolder } from "../accounts/users.ts";

export interface SupporterPrefs {
  supporter: boolean;
  public: boolean;
  name: string | null;
  since: number | null;
  until: number | null;
  level: string | null;
}

interface Row {
  confirmed_at: number;
  until: number | null;
  level: string | null;
  public: number;
  name: string | null;
}

const row = (gw: Gateway, userId: number) => gw.db.query("SELECT * FROM supporters WHERE user_id = ?").get(userId) as Row | null;

export function supporterPrefs(gw: Gateway, userId: number): SupporterPrefs {
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

/** `{public?, name?}`: be listed (or not), under a name of your choice (default: your callsign). */
export function setSupporterPrefs(gw: Gateway, userId: number, b: Record<string, unknown>): SupporterPrefs {
  for (const k of Object.keys(b)) if (k !== "public" && k !== "name") throw badRequest("invalid", `unknown field "${k}" (public, name)`);
  if (!row(gw, userId)) throw conflict("not_a_supporter", "this account is not a confirmed supporter");
  if (b.public !== undefined && typeof b.public !== "boolean") throw badRequest("invalid", "public is true or false");
  if (b.name !== undefined && b.name !== null && (typeof b.name !== "string" || b.name.trim().length === 0 || b.name.length > 60))
    throw badRequest("invalid", "name is 1-60 characters, or null");
  if (b.public !== undefined) gw.db.query("UPDATE supporters SET public = ?, updated_at = ? WHERE user_id = ?").run(b.public ? 1 : 0, gw.clock.now(), userId);
  if (b.name !== undefined)
    gw.db
      .query("UPDATE supporters SET name = ?, updated_at = ? WHERE user_id = ?")
      .run(b.name === null ? null : (b.name as string).trim(), gw.clock.now(), userId);
  return supporterPrefs(gw, userId);
}

/** The operator's backend confirms support: `{call | email, until?, level?}`. */
export function confirmSupporter(gw: Gateway, b: Record<string, unknown>): { confirmed: true; until: number | null } {
  let userId: number | null = null;
  if (typeof b.call === "string") {
    if (!isCallsign(b.call)) throw badRequest("invalid", "call is not a callsign");
    userId = verifiedHolder(gw.db, b.call);
  } else if (typeof b.email === "string") {
    userId = (gw.db.query("SELECT id FROM users WHERE email = ?").get(b.email.trim().toLowerCase()) as { id: number } | null)?.id ?? null;
  } else throw badRequest("invalid", "name the supporter by call (a verified callsign) or email");
  if (userId === null) throw notFound("an account with that verified callsign or e-mail");
  if (b.until !== undefined && b.until !== null && (typeof b.until !== "number" || !Number.isInteger(b.until)))
    throw badRequest("invalid", "until is unix milliseconds");
  if (b.level !== undefined && b.level !== null && (typeof b.level !== "string" || b.level.length > 40))
    throw badRequest("invalid", "level is text of at most 40 characters");
  const now = gw.clock.now();
  gw.db
    .query(
      `INSERT INTO supporters (user_id, confirmed_at, until, level, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(user_id) DO UPDATE SET until = excluded.until, level = excluded.level, updated_at = excluded.updated_at`,
    )
    .run(userId, now, (b.until as number | undefined) ?? null, (b.level as string | undefined) ?? null, now);
  return { confirmed: true, until: (b.until as number | undefined) ?? null };
}

/** Supporters who chose to be listed, current ones only. */
export function listSupporters(gw: Gateway) {
  const rows = gw.db
    .query(
      `SELECT s.name, s.level, s.confirmed_at AS since, (SELECT call FROM callsigns c WHERE c.user_id = s.user_id AND c.active = 1) AS call
       FROM supporters s WHERE s.public = 1 AND (s.until IS NULL OR s.until > ?) ORDER BY s.confirmed_at`,
    )
    .all(gw.clock.now()) as Array<{ name: string | null; level: string | null; since: number; call: string | null }>;
  return { supporters: rows.map((r) => ({ name: r.name ?? r.call ?? "a supporter", call: r.call, level: r.level, since: r.since })) };
}
