/** The signed-in account, as GET /auth/account returns it (null when signed out). */
import { api } from "../api.ts";

export interface CallsignRow {
  call: string;
  active: boolean;
  verified: boolean;
  verifiedAt: number | null;
}

export interface Account {
  id: number;
  email: string | null;
  createdAt: number;
  call: string | null;
  verified: boolean;
  sysop: boolean;
  callsigns: CallsignRow[];
  passkeys: Array<{ id: string; label: string | null; createdAt: number; lastUsedAt: number | null }>;
  deviceKeys: Array<{ key: string; call: string; label: string | null; createdAt: number }>;
  profile: { public: boolean; about?: string; grid?: string; url?: string };
}

/** The account, or null signed out (GET /auth/account: no 401, so a signed-out visitor's console stays clean). */
export async function loadAccount(): Promise<Account | null> {
  return (await api<{ account: Account | null }>("/auth/account")).account;
}

/** A time as plain text where no element fits: relative, like <When> (ui/time.tsx). */
export { ago as formatDate } from "../time.tsx";
