/**
 * `svc-gateway callsign ...`: the local operator's tools for callsigns, run on
 * the machine that holds the data directory (which is the authority here).
 *
 *   svc-gateway callsign list [CALL] --data DIR
 *   svc-gateway callsign verify N0CALL [ACCOUNT] --data DIR
 *
 * `verify` is for an instance that hears no APRS (no radio, no APRS-IS): the
 * operator vouches for a callsign an account claims. ACCOUNT (an account id
 * or e-mail address) is needed only when several accounts claim the call.
 * It works while the gateway runs (SQLite takes turns).
 */
import { createGateway, type Gateway } from "../gateway.ts";
import { createLogger } from "../log.ts";
import { baseCall, isCallsign, normalizeCall } from "../callsign.ts";
import type { CommandContext } from "../cli-commands.ts";
import { operatorVerify } from "./verify-aprs.ts";

type Out = (line: string) => void;

const USAGE = `usage: svc-gateway callsign list [CALL] [--data DIR]
       svc-gateway callsign verify CALL [ACCOUNT] [--data DIR]`;

interface Holder {
  id: number;
  email: string | null;
  calls: string;
}

function holders(gw: Gateway, base: string | null): Holder[] {
  const where = base ? "WHERE u.id IN (SELECT user_id FROM callsigns WHERE call = ?1 OR call LIKE ?1 || '-%')" : "";
  const sql = `SELECT u.id, u.email, group_concat(c.call || CASE WHEN c.verified_at IS NULL THEN ' (unverified)' ELSE ' (verified)' END || CASE WHEN c.active = 1 THEN '*' ELSE '' END, ', ') AS calls
    FROM users u LEFT JOIN callsigns c ON c.user_id = u.id ${where} GROUP BY u.id ORDER BY u.id`;
  return (base ? gw.db.query(sql).all(base) : gw.db.query(sql).all()) as Holder[];
}

const line = (h: Holder) => `  account ${h.id}  ${h.email ?? "(no e-mail)"}  ${h.calls ?? "(no callsigns)"}`;

export async function callsignCommand(args: string[], out: Out, err: Out, ctx: CommandContext): Promise<number> {
  const [sub, rawCall, account] = args;
  if (sub !== "list" && sub !== "verify") {
    err(USAGE);
    return 2;
  }
  if ((sub === "verify" || rawCall) && (!rawCall || !isCallsign(rawCall))) {
    err(`svc-gateway callsign: "${rawCall ?? ""}" is not a callsign\n${USAGE}`);
    return 2;
  }
  const loaded = ctx.loadConfig();
  for (const e of loaded.errors) err(`error: ${e.setting} ${e.message}`);
  if (loaded.errors.length) return 1;
  const gw = createGateway({ config: loaded.config, log: createLogger("warn") });
  try {
    const base = rawCall ? baseCall(normalizeCall(rawCall)) : null;
    const found = holders(gw, base);
    if (sub === "list") {
      if (found.length === 0) out(base ? `no account claims ${base}` : "no accounts yet");
      for (const h of found) out(line(h));
      return 0;
    }
    let chosen: Holder | undefined;
    if (account) {
      chosen = holders(gw, null).find((h) => String(h.id) === account || h.email === account.toLowerCase());
      if (!chosen) {
        err(`svc-gateway callsign: no account "${account}"`);
        return 1;
      }
    } else if (found.length === 1) {
      chosen = found[0];
    } else if (found.length === 0) {
      err(`svc-gateway callsign: no account claims ${base}. Sign in on the web page, add ${base} under Account, then run this again.`);
      return 1;
    } else {
      err(`svc-gateway callsign: several accounts claim ${base}; name one (id or e-mail):`);
      for (const h of found) err(line(h));
      return 1;
    }
    operatorVerify(gw, chosen!.id, rawCall);
    out(`${base} is verified for account ${chosen!.id}${chosen!.email ? ` (${chosen!.email})` : ""}; other accounts' claims on it were removed`);
    return 0;
  } finally {
    await gw.stop();
  }
}
