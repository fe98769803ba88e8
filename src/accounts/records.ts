/**
 * The federated records accounts publish, all through emitAccountRecord (one
 * call site into the publish API, src/fed/feed.ts):
 *
 *   key       a device key registered to a callsign (type 3), again with
 *             revokedAt when it is revoked; gid `origin:key:<the public key>`
 *             (random, never reused, and not personal data)
 *   erased    GDPR erase: each of the account's key records is tombstoned
 *             (its callsign leaves the feed), then the account itself: one
 *             PII-free tombstone `origin:account:<public id>`, on which peers
 *             purge every row attributed to the account
 *   moved     the account moved to another instance (type 6): peers re-point
 *             attribution from `origin:account:<public id>` to `to`
 *
 * Calls nest in the caller's transaction, so a record goes out exactly when
 * the change it describes commits.
 */
import type { Core } from "../core/core.ts";
import { accountGid, localGid, publishAccountMove, publishRecord, publishTombstone, type Published } from "../fed/feed.ts";

export type AccountRecord =
  | {
      kind: "key";
      call: string;
      key: string;
      /** public id of the account the key belongs to, if any */
      account: string | null;
      /** unix ms */
      createdAt: number;
      revokedAt?: number | null;
    }
  | { kind: "erased"; publicId: string; keys: string[] }
  | { kind: "moved"; publicId: string; toAccountGid: string };

const seconds = (ms: number) => Math.floor(ms / 1000);

export function emitAccountRecord(gw: Core, rec: AccountRecord): Published[] {
  switch (rec.kind) {
    case "key":
      return [
        publishRecord(gw, "key", rec.key, {
          call: rec.call,
          key: rec.key,
          ...(rec.account ? { account: accountGid(gw, rec.account) } : {}),
          createdAt: seconds(rec.createdAt),
          ...(rec.revokedAt ? { revokedAt: seconds(rec.revokedAt) } : {}),
        }),
      ];
    case "erased":
      return [...rec.keys.map((k) => publishTombstone(gw, localGid(gw, "key", k))), publishTombstone(gw, accountGid(gw, rec.publicId))];
    case "moved":
      return [publishAccountMove(gw, rec.publicId, rec.toAccountGid)];
  }
}
