/**
 * Account fixtures for gate tests: users, sessions and device keys created
 * through the same store code the sign-in flows use.
 */
import { sign } from "node:crypto";
import { createSession, SESSION_COOKIE } from "../../src/accounts/sessions.ts";
import { assertionBytes } from "../../src/accounts/assertions.ts";
import { generateKeyPair, privateKeyObject, type KeyPair } from "../../src/lib/fed/keys.ts";
import type { Gateway } from "../../src/hosts/gateway.ts";
import { issueWxKey } from "../../src/stations/wx-keys.ts";

export interface TestUser {
  id: number;
  call: string;
  cookie: string;
}

/** A user holding `call` as its active callsign, signed in. */
export function signedInUser(gw: Gateway, call: string, opts: { verified?: boolean } = {}): TestUser {
  const now = gw.clock.now();
  const id = Number(gw.db.query("INSERT INTO users (created_at) VALUES (?)").run(now).lastInsertRowid);
  gw.db.query("INSERT INTO callsigns (user_id, call, active, verified_at, created_at) VALUES (?, ?, 1, ?, ?)").run(id, call, opts.verified ? now : null, now);
  const token = createSession(gw.db, id, now);
  return { id, call, cookie: `${SESSION_COOKIE}=${token}` };
}

/** Registers a fresh device key to a base callsign. */
export function deviceKey(gw: Gateway, call: string, userId: number | null = null): KeyPair {
  const kp = generateKeyPair();
  gw.db.query("INSERT INTO device_keys (user_id, call, public_key, created_at) VALUES (?, ?, ?, ?)").run(userId, call, kp.publicKey, gw.clock.now());
  return kp;
}

/** A body signed for the signed-body gate. */
export function signedBody(kp: KeyPair, method: string, path: string, body: Record<string, unknown>, at = Math.floor(Date.now() / 1000)) {
  const withKey = { ...body, key: kp.publicKey, at };
  const sig = sign(null, assertionBytes(method, path, withKey), privateKeyObject(kp.privateKey)).toString("base64url");
  return { ...withKey, sig };
}

/** An own station of the user with a fresh weather key; returns the key. */
export function weatherKey(gw: Gateway, userId: number, call: string): string {
  const id = Number(gw.db.query("INSERT INTO my_stations (user_id, call, created_at) VALUES (?, ?, ?)").run(userId, call, gw.clock.now()).lastInsertRowid);
  return issueWxKey(gw, id);
}
