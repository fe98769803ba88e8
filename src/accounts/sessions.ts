/**
 * Sign-in sessions. The cookie carries a random token; the database keeps only
 * its SHA-256, so a copy of the database cannot be used to sign in.
 */
import { createHash, randomBytes } from "node:crypto";
import { FIXED } from "../core/config.ts";
import type { Database } from "../core/store/db.ts";

export const SESSION_COOKIE = "svc_session";
const SESSION_MS = FIXED.sessionDays * 24 * 3_600_000;

const hash = (token: string) => createHash("sha256").update(token).digest("base64url");

/** Starts a session for a user; returns the cookie value. */
export function createSession(db: Database, userId: number, now: number): string {
  const token = randomBytes(32).toString("base64url");
  db.query("INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)").run(hash(token), userId, now, now + SESSION_MS);
  return token;
}

export interface SessionRow {
  userId: number;
  expiresAt: number;
}

export function findSession(db: Database, token: string, now: number): SessionRow | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const row = db
    .query("SELECT user_id AS userId, expires_at AS expiresAt FROM sessions WHERE id_hash = ? AND expires_at > ?")
    .get(hash(token), now) as SessionRow | null;
  return row;
}

/** Extends a live session by another full period from now. */
export function renewSession(db: Database, token: string, now: number): void {
  db.query("UPDATE sessions SET expires_at = ? WHERE id_hash = ? AND expires_at > ?").run(now + SESSION_MS, hash(token), now);
}

export function endSession(db: Database, token: string): void {
  db.query("DELETE FROM sessions WHERE id_hash = ?").run(hash(token));
}

/** The Set-Cookie value for a session (or for clearing it with token ""). */
export function sessionCookie(token: string, secure: boolean): string {
  const maxAge = token ? Math.floor(SESSION_MS / 1000) : 0;
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;
}

export function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
