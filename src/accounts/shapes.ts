/**
 * The answers the account routes build around the services' values
 * (routes.ts, prefs-routes.ts): `{ account }`, `{ callsigns }`, ... Each
 * service's own value is defined beside the service (account.ts, users.ts,
 * passkeys.ts, device-keys.ts, verify-aprs.ts, ...); this file only wraps them.

 */
import { t } from "elysia";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";
import { ACCOUNT } from "./account.ts";
import { AUDIT_ENTRY, LOST_CALLSIGN } from "./audit.ts";
import { DEVICE_KEY } from "./device-keys.ts";
import { MOVE_ACCEPTANCE } from "./move.ts";
import { PASSKEY } from "./passkeys.ts";
import { PREFS, WATCH } from "./prefs.ts";
import { PROFILE } from "./profile.ts";
import { CALLSIGN } from "./users.ts";
import { SAVED_VIEW } from "./views.ts";

/** A sign-in, a renewal, GET /auth/session: the signed-in account. */
export const SIGNED_IN = closed({ account: ACCOUNT });

/** GET /auth/account: the signed-in account, or null when signed out. */
export const MAYBE_SIGNED_IN = closed({ account: nullable(ACCOUNT, "null when signed out") });

/** POST /auth/passkey/register/verify. */
export const PASSKEY_ADDED = closed({
  created: t.Boolean({ description: "a new account was made (and signed in) for the passkey" }),
  passkeyId: t.String({ description: "the new passkey's credential id, base64url" }),
  account: ACCOUNT,
});

/** POST /auth/email/verify. */
export const EMAIL_SIGNED_IN = closed({
  created: t.Boolean({ description: "a new account was made for the address" }),
  account: ACCOUNT,
});

export const PASSKEYS = closed({ passkeys: t.Array(PASSKEY, { description: "the account's passkeys left" }) });
export const DEVICE_KEYS = closed({ deviceKeys: t.Array(DEVICE_KEY, { description: "the account's live device keys left" }) });
export const CALLSIGNS = closed({ callsigns: t.Array(CALLSIGN, { description: "every callsign the account now holds" }) });
export const CALLSIGNS_AND_LOST = closed({
  callsigns: t.Array(CALLSIGN),
  lost: t.Array(LOST_CALLSIGN, { description: "verified calls it lost to another account's verification, newest first (20 at most)" }),
});

/** GET /auth/callsign. */
export const ACTIVE_CALLSIGN = closed({
  call: nullable(t.String(), "the active callsign; null when the account holds none it may act as"),
  verified: t.Boolean(),
});

export const PROFILE_SETTINGS = closed({ profile: PROFILE });
export const SIGNED_OUT = closed({ signedOut: t.Literal(true) });
export const AUDIT_PAGE = closed({ entries: t.Array(AUDIT_ENTRY, { description: "newest first" }) });

/** POST /api/local/callsign-verify. */
export const OPERATOR_VERIFIED = closed({
  account: wholeNumber({ description: "the account's id" }),
  call: t.String({ description: "the base call now verified for it" }),
  verified: t.Literal(true),
});

/** POST /api/account/import. */
export const ACCOUNT_IMPORTED = closed({
  created: t.Boolean({ description: "a new account was made (and signed in); false: the bundle was merged into the signed-in one" }),
  from: t.String({ description: "the account's global id on the old instance" }),
  trusted: t.Boolean({ description: "the old instance is a trusted peer that signed with a pinned key: its verified calls and keys were taken" }),
  pendingKeys: t.Array(closed({ call: t.String(), key: t.String() }), {
    description: "device keys not taken: the old instance is not trusted, their call is not verified here, or the key is in use",
  }),
  acceptance: nullable(MOVE_ACCEPTANCE, "for the old instance's /move; null when this instance has no signing key"),
  emailToConfirm: nullable(t.String(), "the bundle's address, to confirm with an e-mail sign-in before the account owns it"),
  account: ACCOUNT,
});

export const PREFS_ANSWER = closed({ prefs: PREFS });
export const WATCHES = closed({ watches: t.Array(WATCH, { description: "oldest first" }) });
export const WATCH_SET = closed({ cacheId: wholeNumber(), watching: t.Boolean({ description: "whether the account now watches it" }) });
export const VIEWS = closed({ views: t.Array(SAVED_VIEW, { description: "oldest first" }) });

export const PUSH_KEY = closed({ publicKey: t.String({ description: "the VAPID public key, base64url (applicationServerKey)" }) });
