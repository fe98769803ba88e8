/**
 * The account audit log: who came to hold a callsign, and whose claim went
 * because of it. The sysop reads it (GET /api/admin/audit); an account that
 * lost a verified call sees the loss (GET /auth/callsigns) and is told by
 * e-mail when it has an address, in its chosen language.
 */
import type { Core } from "../core/core.ts";
import type { Database } from "../core/store/db.ts";
import { sendMail } from "../notify/mail.ts";
import { getPrefs } from "./prefs.ts";
import { accountLanguage, translator } from "../i18n/server.ts";

export type AuditKind = "verified" | "taken_over";

export interface AuditEntry {
  id: number;
  at: number;
  kind: AuditKind;
  call: string;
  userId: number | null;
  subjectUserId: number | null;
  detail: string;
}

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
export function lostCallsigns(db: Database, userId: number): Array<{ call: string; at: number; detail: string }> {
  return db.query("SELECT call, at, detail FROM audit_log WHERE subject_user_id = ? AND kind = 'taken_over' ORDER BY id DESC LIMIT 20").all(userId) as Array<{
    call: string;
    at: number;
    detail: string;
  }>;
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
