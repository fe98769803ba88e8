/**
 * GDPR export, erase and portability across domains. Each domain that stores
 * something about an account adds ONE entry to ACCOUNT_DATA (at the bottom)
 * describing how to export it and how to erase it; the accounts domain runs
 * them all, in one transaction for erase.
 *
 * The contract for an `AccountData` entry:
 *
 * - `name`: the section name in the export (`"game"`, `"bbs"`, `"stations"`).
 * - `export(gw, account)`: everything the domain stores about the account, as
 *   JSON-serialisable data: rows keyed by `account.userId`, and rows keyed by
 *   callsign for `account.verifiedCalls` only (an unverified claim must never
 *   reveal someone else's data). Full rows, not summaries: the export is "a
 *   complete machine-readable copy". Return null when there is nothing.
 * - `exportSchema` (required): the closed schema of what `export` answers; the
 *   export's declared answer is built from them (sectionsOf). Annotate
 *   `export`'s return type `Static<typeof SCHEMA> | null`, so the two agree.
 * - `erase(gw, account)`: runs inside the erase transaction, before the
 *   accounts domain deletes the account's own rows (so the user row still
 *   exists). Delete personal rows; anonymise what must stay for others (a
 *   logbook, a message thread); publish federated changes through the publish
 *   API in src/fed/feed.ts in the same transaction (e.g. `publishRecord(gw,
 *   "find", id, body)` with `state: "withdrawn"` and no `call`/`account`). Do
 *   NOT tombstone the account itself: accounts does that, once. Return a
 *   summary of what was done (counts), shown to the user. Throw AppError to
 *   refuse (the whole erase is rolled back).
 *
 *   What the spec requires of erase: finds anonymised and marked WITHDRAWN,
 *   owned caches archived (the game); personal rows deleted (everyone);
 *   one PII-free tombstone (accounts).
 *
 * - `bundle(gw, account)` (optional): the part of the account that moves to
 *   another instance (preferences, watches, ...). JSON; it travels inside a
 *   bundle signed by this instance. Leave out what is not the user's to take
 *   (others' logs) and anything federated (peers re-point it on the
 *   account-move record instead). With it, `bundleSchema` (required then):
 *   the closed schema of what `bundle` answers, for the bundle's declared answer.
 * - `import(gw, account, data)` (optional): loads a `bundle` section on the
 *   new instance into the freshly imported account. Validate it: a bundle is
 *   signed by the old instance but its content is still input.
 *
 * Entries run in list order for export, bundle and import, and in reverse
 * order for erase (accounts, first in the list, erases last).
 *
 * After a move (move.ts) the user row stays as a stub with its public id and
 * no way to sign in: rows other domains keep about it (finds, caches) stay
 * attributed to it, and peers re-point them to the new account through the
 * account-move record. Nothing for a domain to do.
 */
import { t } from "elysia";
import type { Static, TSchema } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { badRequest, forbidden } from "../lib/errors.ts";
import { closed, unixMs, wholeNumber } from "../lib/schema.ts";
import { accountGid } from "../fed/feed.ts";
import { callsignsOf, publicIdOf } from "./users.ts";
import type { AccountData, AccountRef } from "./data-sections.ts";
import { accountsData } from "./account-data.ts";
import { gameData } from "../game/account-data.ts";
import { stationsData } from "../stations/account-data.ts";
import { bbsData } from "../bbs/account-data.ts";
import { boxData } from "../box/account-data.ts";
import { messagesData } from "../messages/account-data.ts";

/** Every domain's account data. A domain adds one line here. */
export const ACCOUNT_DATA: AccountData[] = [accountsData, stationsData, gameData, bbsData, boxData, messagesData];

export function accountRef(gw: Core, userId: number): AccountRef {
  const publicId = publicIdOf(gw.db, userId);
  const calls = callsignsOf(gw.db, userId);
  const verified = new Set(calls.filter((c) => c.verified).map((c) => c.call.split("-")[0]!));
  return { userId, publicId, gid: accountGid(gw, publicId), calls: calls.map((c) => c.call), verifiedCalls: [...verified].sort() };
}

/** The account a signed-body request speaks for: the session's, or the device key's. */
export function accountOfCaller(caller: { user: { id: number } | null; assertion: { userId: number | null } | null }): number {
  if (caller.assertion) {
    if (caller.assertion.userId === null) throw forbidden("this device key is not tied to an account on this instance", "no_account");
    return caller.assertion.userId;
  }
  return caller.user!.id;
}

const EXPORT_FORMAT = "svc-account-export/1";

/**
 * The export's or the bundle's `data`: one member a domain, there when the
 * domain has something, each the schema the domain declares for it
 * (AccountData requires it, so a domain without one does not compile).
 */
export const sectionsOf = (sections: Array<[name: string, schema: TSchema]>) =>
  closed(Object.fromEntries(sections.map(([name, schema]) => [name, t.Optional(schema)])), {
    description: "one member a domain, there when the domain holds something of the account",
  });

/** POST /api/account/{call}/export: a complete machine-readable copy of everything stored about the account. */
export const ACCOUNT_EXPORT = closed({
  format: t.Literal(EXPORT_FORMAT),
  instance: t.String({ description: "the instance that exported it" }),
  exportedAt: unixMs(),
  account: closed({
    gid: t.String({ description: "the account's global id, origin:account:publicId" }),
    calls: t.Array(t.String(), { description: "every callsign the account holds, SSIDs included" }),
    verifiedCalls: t.Array(t.String(), { description: "the base calls it verified: the only calls whose callsign-keyed data is in the export" }),
  }),
  data: sectionsOf(ACCOUNT_DATA.map((d) => [d.name, d.exportSchema])),
});
export type AccountExport = Static<typeof ACCOUNT_EXPORT>;

/** POST /api/account/{call}/delete: what was erased. */
export const ACCOUNT_ERASED = closed({
  erased: t.Literal(true),
  tombstone: t.String({ description: "the erased account's global id, published as its one tombstone" }),
  summary: t.Record(t.String(), t.Record(t.String(), wholeNumber()), {
    description: "by domain, then by kind of row: how many were erased or anonymised",
  }),
});
export type AccountErased = Static<typeof ACCOUNT_ERASED>;

/** A complete machine-readable copy of everything stored about the account. */
export function exportAccount(gw: Core, userId: number): AccountExport {
  const account = accountRef(gw, userId);
  const data: AccountExport["data"] = {};
  gw.db.transaction(() => {
    for (const d of ACCOUNT_DATA) {
      const v = d.export(gw, account);
      if (v !== null && v !== undefined) data[d.name] = v;
    }
  })();
  return {
    format: EXPORT_FORMAT,
    instance: gw.config.instance,
    exportedAt: gw.clock.now(),
    account: { gid: account.gid, calls: account.calls, verifiedCalls: account.verifiedCalls },
    data,
  };
}

/**
 * Erases the account: every domain erases or anonymises its part, then the
 * account's own rows go and one PII-free tombstone of the account is
 * published. All or nothing.
 */
export function eraseAccount(gw: Core, userId: number, body: Record<string, unknown>): AccountErased {
  if (body.confirm !== true) throw badRequest("confirm_required", 'erasing an account cannot be undone; send {"confirm": true}');
  const account = accountRef(gw, userId);
  const summary: Record<string, Record<string, number>> = {};
  gw.db.transaction(() => {
    for (const d of [...ACCOUNT_DATA].reverse()) {
      const r = d.erase(gw, account);
      if (r) summary[d.name] = r;
    }
    // The caches' full-text index keeps the words of a changed row in its segments until they
    // are merged: merge them now, so no word of the erased account (an owner's call) stays.
    gw.db.run("INSERT INTO caches_text(caches_text) VALUES ('optimize')");
  })();
  gw.log.info("accounts", `account erased; tombstone ${account.gid}`, summary);
  return { erased: true, tombstone: account.gid, summary };
}
