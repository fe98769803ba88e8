/** Who a signed-in user is acting as: their active callsign and its verification. */
import type { Database } from "../core/store/db.ts";

export interface ActiveCall {
  call: string;
  verified: boolean;
}

export function activeCallsign(db: Database, userId: number): ActiveCall | null {
  const row = db.query("SELECT call, verified_at AS verifiedAt FROM callsigns WHERE user_id = ? AND active = 1").get(userId) as {
    call: string;
    verifiedAt: number | null;
  } | null;
  return row ? { call: row.call, verified: row.verifiedAt !== null } : null;
}

/** Whether the user holds this callsign (exactly, or its base call). */
export function userHoldsCall(db: Database, userId: number, call: string): boolean {
  const base = call.split("-")[0]!;
  return !!db.query("SELECT 1 FROM callsigns WHERE user_id = ? AND (call = ? OR call = ? OR call LIKE ? || '-%')").get(userId, call, base, base);
}
