/**
 * What each domain's account-data module gives the accounts domain: its part
 * of a GDPR export, erase and move (AccountData, for an AccountRef;
 * src/accounts/gdpr.ts runs them all) and its section of a public profile
 * (ProfileSection; src/accounts/profile.ts). Apart, so that those modules
 * name these shapes without importing the lists that import them.
 */
import type { TSchema } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";

/** The account a GDPR operation is about. */
export interface AccountRef {
  userId: number;
  /** opaque public id (users.public_id) */
  publicId: string;
  /** `origin:account:publicId` */
  gid: string;
  /** every callsign the account holds, SSIDs included */
  calls: string[];
  /** base calls the account has verified: the only callsigns whose callsign-keyed data is the account's */
  verifiedCalls: string[];
}

export interface AccountData {
  name: string;
  export(gw: Core, account: AccountRef): unknown;
  /** What `export` answers (a closed schema), for the export's declared answer; without it the section is declared free-form. */
  exportSchema?: TSchema;
  erase(gw: Core, account: AccountRef): Record<string, number> | undefined;
  bundle?(gw: Core, account: AccountRef): unknown;
  /** What `bundle` answers (a closed schema), for the bundle's declared answer; without it the section is declared free-form. */
  bundleSchema?: TSchema;
  import?(gw: Core, account: AccountRef, data: unknown): void;
}

export interface ProfileSection {
  name: string;
  /** Public facts about `call` (a base callsign), or null to leave the section out. */
  build(gw: Core, call: string): unknown;
  /** What `build` answers when not null (a closed schema), for GET /api/profile/{call}'s declared answer. */
  schema: TSchema;
}
