/**
 * Shared request schemas of the account routes (routes.ts, prefs-routes.ts).
 * Bodies are closed (src/lib/schema.ts) but for the few built with `open`,
 * which keep the members they do not declare, on purpose: a signed body is
 * verified over every member it has, WebAuthn's and the Push API's JSON are
 * the browser's (and grow), and the web app's own preferences are free-form.
 */
import { t } from "elysia";

type TProperties = Parameters<typeof t.Object>[0];

/** An object schema that keeps undeclared members for the service to see. */
export const open = <P extends TProperties>(properties: P, description?: string) =>
  t.Object(properties, { additionalProperties: true, ...(description ? { description } : {}) });

export const callText = "an amateur callsign such as N0CALL or N0CALL-9";

/** `:call` in a path: checked by the service (400 bad_callsign), so it stays free text here. */
export const callParams = t.Object({ call: t.String({ description: callText }) });

export const deviceKeyText = "a device's Ed25519 public key, base64url (43 characters)";

/** The members a device key adds to a body it signs (checked by the signed-body gate, 401 when wrong). */
const signature = {
  key: t.Optional(t.String({ description: deviceKeyText })),
  at: t.Optional(t.Number({ description: "when it was signed, unix seconds (within the server's window)" })),
  sig: t.Optional(t.String({ description: "the base64url Ed25519 signature over method, path and the body without sig" })),
};

/**
 * A body signed by a device key of :call, or empty under a session that holds :call.
 * Its own members are best declared as `t.Unknown` with their shape checked by the
 * service: a member the validator coerced would no longer match its signature.
 */
export const signedBody = <P extends TProperties>(properties: P, description: string) =>
  open({ ...properties, ...signature }, `${description} Signed by a device key (key, at, sig), or sent under a session holding the callsign.`);

/**
 * What navigator.credentials.create() or .get() returned, as JSON (checked by the WebAuthn library).
 * Optional here so that a body without one still reaches the sign-in rate limit (which runs after
 * the schema) and is refused by the service as 400 bad_credential.
 */
export const credentialBody = open({
  credential: t.Optional(
    open(
      {
        id: t.String({ description: "the credential id, base64url" }),
        response: open({}, "clientDataJSON and the authenticator's answer, base64url"),
      },
      "the PublicKeyCredential as JSON; required (400 bad_credential without it)",
    ),
  ),
});

export const passkeyLabel = t.String({ maxLength: 64, description: "a name for the passkey, at most 64 characters" });
