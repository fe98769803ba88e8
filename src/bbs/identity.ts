/** Who this BBS is on the forwarding network. */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Config } from "../core/config.ts";
import { baseCall } from "../lib/callsign.ts";
import { closed } from "../lib/schema.ts";

export const BBS_IDENTITY = closed({
  call: t.String({ description: "the BBS callsign, e.g. N0GW" }),
  ha: t.String({ description: "its hierarchical address, e.g. N0GW.#NCA.CA.USA.NOAM" }),
});
export type BbsIdentity = Static<typeof BBS_IDENTITY>;

/** BBS_HA, else the base of FED_APRS_CALL or FED_OPERATOR; null when none is set (local mail only). */
export function bbsIdentity(config: Config): BbsIdentity | null {
  if (config.bbsAddress) return { call: config.bbsAddress.split(".")[0]!, ha: config.bbsAddress };
  const c = config.fedAprsCall ?? config.fedOperator;
  if (!c) return null;
  const call = baseCall(c);
  return { call, ha: call };
}
