/**
 * E-mail sign-in: a message with a one-time link and a six-digit code, valid
 * for EMAIL_TOKEN_MS. The link opens /signin/email#<token> on this instance;
 * the code is typed into the page that asked for it. Both are stored hashed,
 * each works once, and a code allows MAX_CODE_ATTEMPTS tries.
 *
 * The answer to "send me a link" is the same whether or not the address has
 * an account (no account directory by probing); the account is created when
 * the link or code is used.
 *
 * Links are built from PUBLIC_URL, else from the address this instance listens
 * on, never from the request's Host header (which a stranger could set to
 * their own site and so receive someone else's link).
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { AppError, badRequest } from "../lib/errors.ts";
import { sendMail } from "../notify/mail.ts";
import { createUser } from "./users.ts";
import { translator } from "../i18n/server.ts";
import { closed, wholeNumber } from "../lib/schema.ts";

const EMAIL_TOKEN_MS = 15 * 60_000;
const MAX_CODE_ATTEMPTS = 5;
/** Outstanding requests kept per address; older ones are dropped. */
const MAX_PENDING = 3;

const sha = (s: string) => createHash("sha256").update(s).digest("base64url");

export function parseEmail(raw: unknown): string {
  if (typeof raw !== "string") throw badRequest("bad_email", "email must be an e-mail address");
  const e = raw.trim().toLowerCase();
  if (e.length > 254 || !/^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/.test(e)) {
    throw badRequest("bad_email", "email must be an e-mail address such as op@example.org");
  }
  return e;
}

/** Where links in e-mail point. */
function linkBase(gw: Core): string {
  return gw.config.publicUrl ?? gw.url ?? `http://localhost:${gw.config.port}`;
}

/** POST /auth/email/start's answer: the same for known and unknown addresses. */
export const EMAIL_SENT = closed({
  sent: t.Literal(true),
  via: t.Union([t.Literal("smtp"), t.Literal("log")], {
    description: "smtp: handed to the mail server; log: no mail server set, written to the gateway's log",
  }),
  expiresInS: wholeNumber({ description: "how long the link and the code work, seconds" }),
});
export type EmailSent = Static<typeof EMAIL_SENT>;

/** Sends the sign-in message, in the asker's language (src/i18n); returns how it went out. */
export async function startEmailSignIn(gw: Core, rawEmail: unknown, lang = "en"): Promise<EmailSent> {
  const email = parseEmail(rawEmail);
  const now = gw.clock.now();
  const token = randomBytes(32).toString("base64url");
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const id = gw.db.transaction(() => {
    gw.db.query("DELETE FROM email_tokens WHERE expires_at <= ?").run(now);
    const rowId = Number(
      gw.db
        .query("INSERT INTO email_tokens (email, token_hash, code_hash, created_at, expires_at) VALUES (?, ?, '', ?, ?)")
        .run(email, sha(token), now, now + EMAIL_TOKEN_MS).lastInsertRowid,
    );
    gw.db.query("UPDATE email_tokens SET code_hash = ? WHERE id = ?").run(sha(`${rowId}:${code}`), rowId);
    gw.db
      .query("DELETE FROM email_tokens WHERE email = ? AND id NOT IN (SELECT id FROM email_tokens WHERE email = ? ORDER BY id DESC LIMIT ?)")
      .run(email, email, MAX_PENDING);
    return rowId;
  })();
  const link = `${linkBase(gw)}/signin/email#${token}`;
  const minutes = EMAIL_TOKEN_MS / 60_000;
  const t = translator(lang);
  const words = { instance: gw.config.instance, code, link, minutes };
  try {
    const sent = await sendMail(gw, { to: email, subject: t("email.signInSubject", words), text: t("email.signInBody", words) });
    return { sent: true, via: sent.via, expiresInS: EMAIL_TOKEN_MS / 1000 };
  } catch (e) {
    gw.db.query("DELETE FROM email_tokens WHERE id = ?").run(id);
    gw.log.warn("mail", "sign-in mail was refused by the mail server", { error: String((e as Error).message ?? e) });
    throw new AppError(502, "mail_failed", "the mail server did not accept the sign-in message; try again later or ask the operator");
  }
}

/**
 * Uses a link token (`{token}`) or a code (`{email, code}`); returns the
 * account, creating it for a new address, or attaching the address to the
 * signed-in account when it has none and no other account uses the address.
 */
export function finishEmailSignIn(
  gw: Core,
  body: { token?: string; email?: string; code?: string },
  sessionUserId: number | null,
): { userId: number; created: boolean } {
  const now = gw.clock.now();
  let email: string;
  // The shapes of token and code are the route's schema; which of the two was sent is decided here.
  if (body.token !== undefined) {
    const row = gw.db.query("DELETE FROM email_tokens WHERE token_hash = ? RETURNING email, expires_at AS expiresAt").get(sha(body.token)) as {
      email: string;
      expiresAt: number;
    } | null;
    if (!row || row.expiresAt <= now) throw new AppError(401, "link_expired", "this sign-in link was already used or has expired; ask for a new one");
    email = row.email;
  } else if (body.code !== undefined) {
    email = parseEmail(body.email);
    const code = body.code.trim();
    const found = gw.db.transaction(() => {
      const rows = gw.db
        .query("SELECT id, code_hash AS codeHash, attempts FROM email_tokens WHERE email = ? AND expires_at > ? ORDER BY id DESC")
        .all(email, now) as Array<{ id: number; codeHash: string; attempts: number }>;
      for (const r of rows) {
        const a = Buffer.from(sha(`${r.id}:${code}`));
        const b = Buffer.from(r.codeHash);
        if (a.length === b.length && timingSafeEqual(a, b)) {
          gw.db.query("DELETE FROM email_tokens WHERE id = ?").run(r.id);
          return true;
        }
      }
      // A wrong guess costs every pending code of this address one attempt.
      gw.db.query("UPDATE email_tokens SET attempts = attempts + 1 WHERE email = ?").run(email);
      gw.db.query("DELETE FROM email_tokens WHERE email = ? AND attempts >= ?").run(email, MAX_CODE_ATTEMPTS);
      return false;
    })();
    if (!found) throw new AppError(401, "bad_code", "that code is wrong or has expired; check the latest e-mail or ask for a new one");
  } else {
    throw badRequest("bad_body", 'expected {"token"} from the link, or {"email", "code"}');
  }
  return gw.db.transaction(() => {
    const owner = gw.db.query("SELECT id FROM users WHERE email = ?").get(email) as { id: number } | null;
    if (owner) return { userId: owner.id, created: false };
    if (sessionUserId !== null) {
      const current = gw.db.query("SELECT email FROM users WHERE id = ?").get(sessionUserId) as { email: string | null } | null;
      if (current && current.email === null) {
        gw.db.query("UPDATE users SET email = ? WHERE id = ?").run(email, sessionUserId);
        return { userId: sessionUserId, created: false };
      }
    }
    return { userId: createUser(gw.db, now, { email }), created: true };
  })();
}
