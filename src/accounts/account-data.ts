/**
 * The accounts domain's own entry in the GDPR registry (gdpr.ts): the user
 * row and everything hanging off it.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import type { AccountData, AccountRef } from "./data-sections.ts";
import { emitAccountRecord } from "./records.ts";
import { PROFILE, PROFILE_BODY, profileOf, updateProfile } from "./profile.ts";
import { getNotifyPrefs, getPrefs, NOTIFY_PREFS, NOTIFY_PREFS_BODY, PREFS, putNotifyPrefs, putPrefs } from "./prefs.ts";
import { createView, viewsOf, MAX_VIEWS, VIEW_BODY, VIEW_STATE } from "./views.ts";
import { check, closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { badRequest } from "../lib/errors.ts";

const rows = (gw: Core, sql: string, ...params: Array<string | number>) => gw.db.query(sql).all(...params) as Array<Record<string, unknown>>;

/** Tables keyed by user_id that go with the account (ON DELETE CASCADE), with their export queries. */
const USER_TABLES: Array<{ name: string; sql: string }> = [
  {
    name: "callsigns",
    sql: "SELECT call, active = 1 AS active, verified_at AS verifiedAt, created_at AS createdAt FROM callsigns WHERE user_id = ? ORDER BY id",
  },
  {
    name: "passkeys",
    sql: "SELECT id, public_key AS publicKey, counter, transports, label, created_at AS createdAt, last_used_at AS lastUsedAt FROM passkeys WHERE user_id = ? ORDER BY created_at",
  },
  {
    name: "deviceKeys",
    sql: "SELECT public_key AS key, call, label, created_at AS createdAt, revoked_at AS revokedAt FROM device_keys WHERE user_id = ? ORDER BY id",
  },
  { name: "sessions", sql: "SELECT created_at AS createdAt, expires_at AS expiresAt FROM sessions WHERE user_id = ? ORDER BY created_at" },
  {
    name: "callsignChallenges",
    sql: "SELECT call, code, created_at AS createdAt, expires_at AS expiresAt, heard_at AS heardAt, heard_src AS heardFrom, heard_via AS heardVia FROM callsign_challenges WHERE user_id = ? ORDER BY id",
  },
  { name: "passkeyChallenges", sql: "SELECT kind, expires_at AS expiresAt FROM webauthn_challenges WHERE user_id = ?" },
  { name: "prefs", sql: "SELECT data, updated_at AS updatedAt FROM prefs WHERE user_id = ?" },
  { name: "watches", sql: "SELECT cache_id AS cacheId, created_at AS createdAt FROM watches WHERE user_id = ? ORDER BY created_at" },
  { name: "notifyPrefs", sql: "SELECT email = 1 AS email, push = 1 AS push, digest, updated_at AS updatedAt FROM notify_prefs WHERE user_id = ?" },
  {
    name: "pushSubscriptions",
    sql: "SELECT endpoint, p256dh, auth, created_at AS createdAt, last_ok_at AS lastOkAt, failures FROM push_subscriptions WHERE user_id = ? ORDER BY id",
  },
  { name: "views", sql: "SELECT id, name, state, created_at AS createdAt, updated_at AS updatedAt FROM views WHERE user_id = ? ORDER BY created_at" },
  {
    name: "watchDigests",
    sql: "SELECT channel, log_ids AS logIds, state AS status, attempts, error, created_at AS createdAt, sent_at AS sentAt FROM watch_digests WHERE user_id = ? ORDER BY id",
  },
  { name: "watchDigestCursor", sql: "SELECT last_log_id AS lastLogId, last_at AS lastAt FROM watch_digest_state WHERE user_id = ?" },
];

const rowsOf = <P extends Parameters<typeof closed>[0]>(description: string, fields: P) => t.Array(closed(fields), { description });
const at = (description?: string) => (description ? unixMs(`${description}, unix ms`) : unixMs());
const maybeAt = (description: string) => nullable(unixMs(), `${description}, unix ms`);

/** The accounts section of a GDPR export: the user row and each USER_TABLES table's rows, as the queries above select them. */
export const ACCOUNTS_EXPORT = closed({
  account: closed({
    publicId: t.String({ description: "the account's opaque public id" }),
    email: nullable(t.String()),
    createdAt: at(),
    profile: t.Partial(PROFILE, { description: "the stored profile settings (empty when never set)" }),
  }),
  callsigns: rowsOf("the callsigns held", { call: t.String(), active: t.Boolean(), verifiedAt: maybeAt("when verified"), createdAt: at() }),
  passkeys: rowsOf("the passkeys", {
    id: t.String({ description: "the credential id, base64url" }),
    publicKey: t.String({ description: "the COSE public key, base64url" }),
    counter: wholeNumber({ description: "the authenticator's signature counter" }),
    transports: nullable(t.String(), "the transports the browser reported, as JSON text"),
    label: nullable(t.String()),
    createdAt: at(),
    lastUsedAt: maybeAt("when it last signed in"),
  }),
  deviceKeys: rowsOf("the device keys, revoked ones too", {
    key: t.String({ description: "the Ed25519 public key, base64url" }),
    call: t.String({ description: "the base call it signs for" }),
    label: nullable(t.String()),
    createdAt: at(),
    revokedAt: maybeAt("when revoked"),
  }),
  sessions: rowsOf("the open sessions (never their tokens)", { createdAt: at(), expiresAt: at("when it ends") }),
  callsignChallenges: rowsOf("the APRS challenges", {
    call: t.String(),
    code: t.String({ description: "empty for an operator's verification" }),
    createdAt: at(),
    expiresAt: at("when it ends"),
    heardAt: maybeAt("when its message was heard"),
    heardFrom: nullable(t.String()),
    heardVia: nullable(t.String()),
  }),
  passkeyChallenges: rowsOf("open passkey ceremonies (never their challenges)", {
    kind: t.Union([t.Literal("register"), t.Literal("login")]),
    expiresAt: at("when it ends"),
  }),
  prefs: rowsOf("the web app's preferences (one row at most)", { data: PREFS, updatedAt: at() }),
  watches: rowsOf("the watched caches", { cacheId: wholeNumber(), createdAt: at() }),
  notifyPrefs: rowsOf("the notification settings (one row at most)", { ...NOTIFY_PREFS.properties, updatedAt: at() }),
  pushSubscriptions: rowsOf("the Web Push subscriptions", {
    endpoint: t.String(),
    p256dh: t.String({ description: "the browser's P-256 public key, base64url" }),
    auth: t.String({ description: "the browser's secret, base64url" }),
    createdAt: at(),
    lastOkAt: maybeAt("when a push last went through"),
    failures: wholeNumber({ description: "failed pushes in a row" }),
  }),
  views: rowsOf("the saved map views", { id: t.String(), name: t.String(), state: VIEW_STATE, createdAt: at(), updatedAt: at() }),
  watchDigests: rowsOf("the watch digests sent or due", {
    channel: t.Union([t.Literal("email"), t.Literal("push")]),
    logIds: t.Array(wholeNumber(), { description: "the logs it reports" }),
    status: t.Union([t.Literal("pending"), t.Literal("sending"), t.Literal("sent"), t.Literal("failed"), t.Literal("unknown")]),
    attempts: wholeNumber(),
    error: nullable(t.String()),
    createdAt: at(),
    sentAt: maybeAt("when sent"),
  }),
  watchDigestCursor: rowsOf("how far the digests have reported (one row at most)", {
    lastLogId: wholeNumber(),
    lastAt: at("the last reported log's time"),
  }),
  emailSignIns: rowsOf("open e-mail sign-ins to the account's address (never their tokens or codes)", {
    email: t.String(),
    attempts: wholeNumber({ description: "wrong codes tried" }),
    createdAt: at(),
    expiresAt: at("when it ends"),
  }),
});

/** The accounts section of a move bundle: what moves to the new instance (bundle below). */
export const ACCOUNTS_BUNDLE = closed({
  profile: PROFILE,
  prefs: PREFS,
  notify: NOTIFY_PREFS,
  views: t.Array(VIEW_BODY, { description: "the saved map views, without their ids and times" }),
});

const BOOLEAN_COLUMNS = new Set(["active", "email", "push"]);
const JSON_COLUMNS = new Set(["data", "state", "logIds"]);

function jsonSafe(v: unknown): unknown {
  if (v instanceof Uint8Array) return Buffer.from(v).toString("base64url");
  return v;
}

export const accountsData: AccountData = {
  name: "accounts",
  exportSchema: ACCOUNTS_EXPORT,
  bundleSchema: ACCOUNTS_BUNDLE,
  export(gw, account: AccountRef) {
    const user = gw.db.query("SELECT email, profile, created_at AS createdAt FROM users WHERE id = ?").get(account.userId) as {
      email: string | null;
      profile: string;
      createdAt: number;
    };
    const out: Record<string, unknown> = {
      account: { publicId: account.publicId, email: user.email, createdAt: user.createdAt, profile: JSON.parse(user.profile) },
    };
    for (const t of USER_TABLES) {
      out[t.name] = rows(gw, t.sql, account.userId).map((r) =>
        Object.fromEntries(
          Object.entries(r).map(([k, v]) => [k, BOOLEAN_COLUMNS.has(k) ? v === 1 : JSON_COLUMNS.has(k) ? JSON.parse(v as string) : jsonSafe(v)]),
        ),
      );
    }
    out.emailSignIns = user.email
      ? rows(gw, "SELECT email, attempts, created_at AS createdAt, expires_at AS expiresAt FROM email_tokens WHERE email = ? ORDER BY id", user.email)
      : [];
    return out;
  },
  erase(gw, account: AccountRef) {
    const keys = (gw.db.query("SELECT public_key AS k FROM device_keys WHERE user_id = ?").all(account.userId) as Array<{ k: string }>).map((r) => r.k);
    const email = (gw.db.query("SELECT email FROM users WHERE id = ?").get(account.userId) as { email: string | null }).email;
    const counts: Record<string, number> = {};
    for (const t of USER_TABLES) {
      const table = /FROM (\w+)/.exec(t.sql)![1]!;
      counts[t.name] = (gw.db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE user_id = ?`).get(account.userId) as { n: number }).n;
    }
    if (email) counts.emailSignIns = gw.db.query("DELETE FROM email_tokens WHERE email = ?").run(email).changes;
    // The audit log names the account's calls: its entries go, whichever side it was on.
    counts.audit = gw.db.query("DELETE FROM audit_log WHERE user_id = ? OR subject_user_id = ?").run(account.userId, account.userId).changes;
    // Key records leave the feed, then the account's one tombstone; the rows go with the user row.
    emitAccountRecord(gw, { kind: "erased", publicId: account.publicId, keys });
    gw.db.query("DELETE FROM users WHERE id = ?").run(account.userId);
    return counts;
  },
  // What moves: the profile, preferences, alert settings and saved views. Not
  // the watchlist (cache ids are this instance's), passkeys (bound to this
  // site) or push subscriptions (bound to this instance's VAPID key).
  bundle(gw, account: AccountRef): Static<typeof ACCOUNTS_BUNDLE> {
    const { public: pub, ...profile } = profileOf(gw, account.userId);
    return {
      profile: { public: pub, ...profile },
      prefs: getPrefs(gw, account.userId),
      notify: getNotifyPrefs(gw, account.userId),
      views: viewsOf(gw, account.userId).map(({ id: _i, createdAt: _c, updatedAt: _u, ...v }) => v),
    };
  },
  import(gw, account: AccountRef, data: unknown) {
    if (!data || typeof data !== "object" || Array.isArray(data)) throw badRequest("bad_bundle", "bundle.data.accounts must be an object");
    const d = data as Record<string, unknown>;
    const obj = (v: unknown, what: string) => {
      if (!v || typeof v !== "object" || Array.isArray(v)) throw badRequest("bad_bundle", `bundle.data.accounts.${what} must be an object`);
      return v as Record<string, unknown>;
    };
    if (d.profile !== undefined) updateProfile(gw, account.userId, check(PROFILE_BODY, obj(d.profile, "profile"), "bundle.data.accounts.profile"));
    if (d.prefs !== undefined) putPrefs(gw, account.userId, obj(d.prefs, "prefs"));
    if (d.notify !== undefined) {
      const n = obj(d.notify, "notify");
      const hasEmail = !!(gw.db.query("SELECT email FROM users WHERE id = ?").get(account.userId) as { email: string | null }).email;
      putNotifyPrefs(gw, account.userId, check(NOTIFY_PREFS_BODY, { ...n, email: hasEmail && n.email === true }, "bundle.data.accounts.notify"));
    }
    if (d.views !== undefined) {
      if (!Array.isArray(d.views) || d.views.length > MAX_VIEWS)
        throw badRequest("bad_bundle", `bundle.data.accounts.views must be a list of at most ${MAX_VIEWS}`);
      d.views.forEach((v, i) => createView(gw, account.userId, check(VIEW_BODY, obj(v, "views[]"), `bundle.data.accounts.views.${i}`)));
    }
  },
};
