/**
 * The account audit log: who came to hold a callsign, and whose claim went
 * because of it. The sysop reads it (GET /api/admin/audit); an account that
 * lost a verified call sees the loss (GET /auth/callsigns) and is told by
 * e-mail when it has an address, in its chosen language.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import type { Database } from "../core/store/db.ts";
import { sendMail } from "../notify/mail.ts";
import { getPrefs } from "./prefs.ts";
import { accountLanguage, translator } from "../i18n/server.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";

/** One entry of the audit log (GET /api/admin/audit). */
export const AUDIT_ENTRY = closed({
  id: wholeNumber({ description: "the entry's id; ?before= pages back from it" }),
  at: unixMs(),
  kind: t.Union([t.Literal("verified"), t.Literal("taken_over")], {
    description: "verified: userId came to hold call; taken_over: subjectUserId lost its verified claim on call to userId",
  }),
  call: t.String({ description: "the base call" }),
  userId: nullable(wholeNumber(), "the account that verified call"),
  subjectUserId: nullable(wholeNumber(), "taken_over: the account that lost it"),
  detail: t.String({ description: "what verified it, in words" }),
});
export type AuditEntry = Static<typeof AUDIT_ENTRY>;
export type AuditKind = AuditEntry["kind"];

/** A verified call the account lost to another account's verification (GET /auth/callsigns). */
export const LOST_CALLSIGN = closed({
  call: t.String({ description: "the base call" }),
  at: unixMs("when it was lost, unix ms"),
  detail: t.String({ description: "what verified it for the other account, in words" }),
});
export type LostCallsign = Static<typeof LOST_CALLSIGN>;

const COLUMNS = "id, at, kind, call, user_id AS userId, subject_user_id AS subjectUserId, detail";

export function recordAudit(db: Database, e: Omit<AuditEntry, "id">): void {
  db.query("INSERT INTO audit_log (at, kind, call, user_id, subject_user_id, detail) VALUES (?, ?, ?, ?, ?, ?)").run(
    e.at,
    e.kind,
    e.call,
    e.userId,
    e.subjectUserId,
    e.detail,
  );
}

/** The newest entries first, `before` an id for paging. */
export function auditLog(db: Database, opts: { limit: number; before?: number }): AuditEntry[] {
  return db
    .query(`SELECT ${COLUMNS} FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?`)
    .all(opts.before ?? Number.MAX_SAFE_INTEGER, opts.limit) as AuditEntry[];
}

/** Verified calls this account lost to another account's verification. */
export function lostCallsigns(db: Database, userId: number): LostCallsign[] {
  return db
    .query("SELECT call, at, detail FROM audit_log WHERE subject_user_id = ? AND kind = 'taken_over' ORDER BY id DESC LIMIT 20")
    .all(userId) as LostCallsign[];
}

/**
 * Tells the accounts that lost a call, by e-mail where they have an address, each in its chosen language
 * (`lang` in /api/prefs, else English). `heard` names the verification that took it, for the message in
 * that language (`detail` as it is otherwise). Never throws.
 */
export async function tellPreviousHolders(
  gw: Core,
  call: string,
  userIds: number[],
  detail: string,
  heard?: { src: string; via: string; proof: string },
): Promise<void> {
  for (const id of userIds) {
    const row = gw.db.query("SELECT email FROM users WHERE id = ?").get(id) as { email: string | null } | null;
    if (!row?.email) continue;
    try {
      const t = translator(accountLanguage(getPrefs(gw, id)));
      const words = { call, instance: gw.config.instance, how: heard ? t("security.heard", heard) : detail };
      await sendMail(gw, { to: row.email, subject: t("security.takenOverSubject", words), text: t("security.takenOverBody", words) });
    } catch (e) {
      gw.log.warn("accounts", `could not tell a previous holder of ${call} by e-mail`, { error: String((e as Error).message ?? e) });
    }
  }
}
