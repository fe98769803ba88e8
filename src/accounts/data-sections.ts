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

/**
 * A domain's part of the account. What `export` and `bundle` answer is
 * declared by a closed schema beside each (`exportSchema`, and `bundleSchema`
 * with a `bundle`): the export's and the bundle's declared answers are built
 * from them (sectionsOf in gdpr.ts), so a domain cannot leave its part
 * undeclared. Each implementation annotates its return type with the
 * schema's `Static<...>`, so its code and its schema say the same.
 */
export type AccountData = AccountDataCore & (Bundled | NotBundled);

interface AccountDataCore {
  name: string;
  /** Everything the domain stores about the account, or null when there is nothing. */
  export(gw: Core, account: AccountRef): unknown;
  /** What `export` answers when not null (a closed schema), for the export's declared answer. */
  exportSchema: TSchema;
  erase(gw: Core, account: AccountRef): Record<string, number> | undefined;
  import?(gw: Core, account: AccountRef, data: unknown): void;
}

/** A domain whose part moves with the account. */
interface Bundled {
  bundle(gw: Core, account: AccountRef): unknown;
  /** What `bundle` answers when not null (a closed schema), for the bundle's declared answer. */
  bundleSchema: TSchema;
}

/** A domain whose part stays behind on a move. */
interface NotBundled {
  bundle?: undefined;
  bundleSchema?: undefined;
}

export interface ProfileSection {
  name: string;
  /** Public facts about `call` (a base callsign), or null to leave the section out. */
  build(gw: Core, call: string): unknown;
  /** What `build` answers when not null (a closed schema), for GET /api/profile/{call}'s declared answer. */
  schema: TSchema;
}
