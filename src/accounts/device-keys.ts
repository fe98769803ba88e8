/**
 * Device keys: Ed25519 public keys an account registers for one of its
 * *verified* base callsigns. A device key signs requests for that callsign
 * (the signed-body gate: account export, erase, move; an ingest box's
 * batches) without a browser session. Keys are public by callsign at
 * GET /keys/:call (the key and when it was added; labels stay private) and
 * are published as federated key records, again when revoked.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { badRequest, conflict, forbidden, notFound } from "../lib/errors.ts";
import { baseCall } from "../lib/callsign.ts";
import { parseCallsign, publicIdOf, revokeKeysWhere, verifiedAtFor } from "./users.ts";
import { emitAccountRecord } from "./records.ts";
import { closed, nullable, unixMs } from "../lib/schema.ts";

const MAX_DEVICE_KEYS = 20;

const KEY_TEXT = "the Ed25519 public key, base64url (43 characters)";

/** One of the account's device keys, as its holder sees it (POST /keys/register answers one). */
export const DEVICE_KEY = closed({
  key: t.String({ description: KEY_TEXT }),
  call: t.String({ description: "the base call it signs for" }),
  label: nullable(t.String(), "the device's name, private to the account"),
  createdAt: unixMs(),
});
export type DeviceKeyInfo = Static<typeof DEVICE_KEY>;

/** A callsign's live keys, for anyone (GET /keys/:call): no labels. */
export const PUBLIC_KEYS = closed({
  call: t.String({ description: "the base call" }),
  keys: t.Array(closed({ key: t.String({ description: KEY_TEXT }), createdAt: unixMs() }), { description: "its live keys, oldest first" }),
});
export type PublicKeys = Static<typeof PUBLIC_KEYS>;

export function parsePublicKey(raw: unknown): string {
  if (typeof raw !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(raw) || Buffer.from(raw, "base64url").length !== 32) {
    throw badRequest("bad_key", "key must be a base64url Ed25519 public key (43 characters)");
  }
  return raw;
}

export function deviceKeysOf(gw: Core, userId: number): DeviceKeyInfo[] {
  return gw.db
    .query("SELECT public_key AS key, call, label, created_at AS createdAt FROM device_keys WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at")
    .all(userId) as DeviceKeyInfo[];
}

/** Registers a key for a base call the account has verified. */
export function registerDeviceKey(gw: Core, userId: number, body: Record<string, unknown>): DeviceKeyInfo {
  const call = baseCall(parseCallsign(body.call));
  const key = parsePublicKey(body.key);
  const label = body.label;
  if (label !== undefined && label !== null && (typeof label !== "string" || label.length > 64)) {
    throw badRequest("invalid", "label must be text of at most 64 characters");
  }
  const now = gw.clock.now();
  return gw.db.transaction(() => {
    if (verifiedAtFor(gw.db, userId, call) === null) {
      throw forbidden(`verify ${call} with the APRS challenge before registering keys for it`, "callsign_not_verified");
    }
    const existing = gw.db.query("SELECT user_id AS userId, revoked_at AS revokedAt FROM device_keys WHERE public_key = ?").get(key) as {
      userId: number | null;
      revokedAt: number | null;
    } | null;
    if (existing)
      throw conflict(
        "key_exists",
        existing.revokedAt ? "this key was revoked and cannot be registered again; make a new one" : "this key is already registered",
      );
    const count = (gw.db.query("SELECT COUNT(*) AS n FROM device_keys WHERE user_id = ? AND revoked_at IS NULL").get(userId) as { n: number }).n;
    if (count >= MAX_DEVICE_KEYS) throw conflict("too_many_keys", `an account has at most ${MAX_DEVICE_KEYS} device keys; revoke one first`);
    const cleanLabel = typeof label === "string" && label.trim() ? label.trim() : null;
    gw.db.query("INSERT INTO device_keys (user_id, call, public_key, label, created_at) VALUES (?, ?, ?, ?, ?)").run(userId, call, key, cleanLabel, now);
    emitAccountRecord(gw, { kind: "key", call, key, account: publicIdOf(gw.db, userId), createdAt: now });
    return { key, call, label: cleanLabel, createdAt: now };
  })();
}

/** Revokes one of the account's keys; it never works again. */
export function revokeDeviceKey(gw: Core, userId: number, rawKey: unknown): DeviceKeyInfo[] {
  const key = parsePublicKey(rawKey);
  if (revokeKeysWhere(gw, "public_key = ? AND user_id = ?", key, userId) === 0) throw notFound("device key on this account");
  return deviceKeysOf(gw, userId);
}

/** The live keys of a callsign, for anyone. */
export function publicKeysOf(gw: Core, rawCall: unknown): PublicKeys {
  const call = baseCall(parseCallsign(rawCall));
  const keys = gw.db
    .query("SELECT public_key AS key, created_at AS createdAt FROM device_keys WHERE call = ? AND revoked_at IS NULL ORDER BY created_at")
    .all(call) as Array<{ key: string; createdAt: number }>;
  return { call, keys };
}
