/**
 * Per-station weather keys: a random secret a personal weather station
 * presents when it pushes readings. Only a SHA-256 of the key is stored.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Gateway } from "../gateway.ts";

export interface WxKeyStation {
  stationId: number;
  userId: number;
  call: string;
}

const hash = (k: string) => createHash("sha256").update(k).digest("base64url");

/** Issues (or replaces) the key of an own station; returns the key, shown once. */
export function issueWxKey(gw: Gateway, stationId: number): string {
  const key = randomBytes(18).toString("base64url");
  gw.db.transaction(() => {
    gw.db.query("DELETE FROM wx_keys WHERE station_id = ?").run(stationId);
    gw.db.query("INSERT INTO wx_keys (key_hash, station_id, created_at) VALUES (?, ?, ?)").run(hash(key), stationId, gw.clock.now());
  })();
  return key;
}

export function findWxKey(gw: Gateway, key: string): WxKeyStation | null {
  if (key.length < 8 || key.length > 200) return null;
  const row = gw.db
    .query("SELECT m.id AS stationId, m.user_id AS userId, m.call FROM wx_keys k JOIN my_stations m ON m.id = k.station_id WHERE k.key_hash = ?")
    .get(hash(key)) as WxKeyStation | null;
  if (row) gw.db.query("UPDATE wx_keys SET last_used_at = ? WHERE key_hash = ?").run(gw.clock.now(), hash(key));
  return row;
}

/** The key a request carries: WU's PASSWORD, ?key=, x-wx-key, or a wxkey/PASSWORD body field. */
export function wxKeyFrom(request: Request, body: unknown): string | null {
  const url = new URL(request.url);
  const fromQuery = url.searchParams.get("PASSWORD") ?? url.searchParams.get("key");
  if (fromQuery) return fromQuery;
  const header = request.headers.get("x-wx-key");
  if (header) return header;
  if (body && typeof body === "object" && !(body instanceof Uint8Array) && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    const v = b.wxkey ?? b.PASSWORD ?? b.key;
    if (typeof v === "string") return v;
  }
  return null;
}
