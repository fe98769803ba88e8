/**
 * The signed-in account as its holder sees it (GET /auth/session), and
 * claiming a session with a device key (POST /auth/claim).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { forbidden } from "../lib/errors.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { checkAssertion } from "./assertions.ts";
import { DEVICE_KEY, deviceKeysOf } from "./device-keys.ts";
import { PASSKEY, passkeysOf } from "./passkeys.ts";
import { PROFILE, profileOf } from "./profile.ts";
import { CALLSIGN, callsignsOf, parseCallsign } from "./users.ts";

const ACCOUNT_FIELDS = {
  id: wholeNumber({ description: "the account's id on this instance" }),
  email: nullable(t.String(), "the e-mail sign-in address, if any"),
  createdAt: unixMs(),
  call: nullable(t.String(), "the active callsign, if any"),
  verified: t.Boolean({ description: "the active callsign is verified" }),
  callsigns: t.Array(CALLSIGN),
  passkeys: t.Array(PASSKEY),
  deviceKeys: t.Array(DEVICE_KEY, { description: "the live ones" }),
  profile: PROFILE,
};

/** The signed-in account as its holder sees it (GET /auth/session and every sign-in's answer). */
export const ACCOUNT = closed({
  ...ACCOUNT_FIELDS,
  sysop: t.Boolean({ description: "the account may operate the sysop surface (a verified active call in ADMIN_CALLSIGNS)" }),
});
export type Account = Static<typeof ACCOUNT>;

export function accountView(gw: Core, userId: number): Omit<Account, "sysop"> {
  const u = gw.db.query("SELECT id, email, created_at AS createdAt FROM users WHERE id = ?").get(userId) as {
    id: number;
    email: string | null;
    createdAt: number;
  };
  const callsigns = callsignsOf(gw.db, userId);
  const active = callsigns.find((c) => c.active) ?? null;
  return {
    id: u.id,
    email: u.email,
    createdAt: u.createdAt,
    call: active?.call ?? null,
    verified: active?.verified ?? false,
    callsigns,
    passkeys: passkeysOf(gw, userId),
    deviceKeys: deviceKeysOf(gw, userId),
    profile: profileOf(gw, userId),
  };
}

/**
 * `/auth/claim`: a device key registered to a callsign proves the account
 * that registered it, and so claims a session for it (e.g. on a machine with
 * no passkey, or to reach an account imported from another instance). The
 * body is a signed body for `POST /auth/claim` with `call`.
 */
export function claimWithDeviceKey(gw: Core, body: unknown, path: string): number {
  const call = parseCallsign((body as { call?: unknown } | null)?.call);
  const a = checkAssertion(gw.db, { call, method: "POST", path, body }, gw.clock.now());
  if (a.userId === null) throw forbidden("this key is not tied to an account on this instance", "no_account");
  return a.userId;
}
