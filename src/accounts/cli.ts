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
 * It works while the gateway runs: `list` reads the database read-only, and
 * `verify` sends its change through the serving gateway (store/control.ts).
 */
import { join } from "node:path";
import { createGateway } from "../hosts/gateway.ts";
import type { Config } from "../core/config.ts";
import type { Database } from "../core/store/db.ts";
import { DB_FILE_NAME, openStoreReadOnly } from "../core/store/db.ts";
import { gatewayRunning } from "../core/store/run-lock.ts";
import { CONTROL_HEADER, readControl } from "../core/store/control.ts";
import { createLogger } from "../lib/log.ts";
import { baseCall, isCallsign, normalizeCall } from "../lib/callsign.ts";
import type { CommandContext } from "../hosts/command.ts";
import { operatorVerify } from "./verify-aprs.ts";

type Out = (line: string) => void;

const USAGE = `usage: svc-gateway callsign list [CALL] [--data DIR]
       svc-gateway callsign verify CALL [ACCOUNT] [--data DIR]`;

interface Holder {
  id: number;
  email: string | null;
  calls: string;
}

function holders(db: Database, base: string | null): Holder[] {
  const where = base ? "WHERE u.id IN (SELECT user_id FROM callsigns WHERE call = ?1 OR call LIKE ?1 || '-%')" : "";
  const sql = `SELECT u.id, u.email, group_concat(c.call || CASE WHEN c.verified_at IS NULL THEN ' (unverified)' ELSE ' (verified)' END || CASE WHEN c.active = 1 THEN '*' ELSE '' END, ', ') AS calls
    FROM users u LEFT JOIN callsigns c ON c.user_id = u.id ${where} GROUP BY u.id ORDER BY u.id`;
  return (base ? db.query(sql).all(base) : db.query(sql).all()) as Holder[];
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
  const dataDir = loaded.config.dataDir;
  const db = openStoreReadOnly(join(dataDir, DB_FILE_NAME));
  let chosen: Holder | undefined;
  const base = rawCall ? baseCall(normalizeCall(rawCall)) : null;
  try {
    const found = db ? holders(db, base) : [];
    if (sub === "list") {
      if (found.length === 0) out(base ? `no account claims ${base}` : "no accounts yet");
      for (const h of found) out(line(h));
      return 0;
    }
    if (account) {
      chosen = (db ? holders(db, null) : []).find((h) => String(h.id) === account || h.email === account.toLowerCase());
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
  } finally {
    db?.close();
  }
  const holder = chosen!;
  try {
    await verifyCall(dataDir, loaded.config, holder.id, rawCall!);
  } catch (e) {
    err(`svc-gateway callsign verify: ${(e as Error).message}`);
    return 1;
  }
  out(`${base} is verified for account ${holder.id}${holder.email ? ` (${holder.email})` : ""}; other accounts' claims on it were removed`);
  return 0;
}

/** Through the gateway that serves the directory, or (none serving) on the database under the run lock. */
async function verifyCall(dataDir: string, config: Config, account: number, call: string): Promise<void> {
  if (gatewayRunning(dataDir)) {
    const control = readControl(dataDir);
    if (!control) throw new Error(`a gateway is serving ${dataDir} but has not written its control file yet; try again in a moment`);
    const r = await fetch(`${control.url}/api/local/callsign-verify`, {
      method: "POST",
      headers: { "content-type": "application/json", [CONTROL_HEADER]: control.token },
      body: JSON.stringify({ account, call }),
    }).catch((e: Error) => {
      throw new Error(`the gateway serving ${dataDir} (pid ${control.pid}) did not answer at ${control.url}: ${e.message}`);
    });
    if (!r.ok) throw new Error(`the gateway serving ${dataDir} refused: ${((await r.json().catch(() => ({}))) as { message?: string }).message ?? r.status}`);
    return;
  }
  const gw = createGateway({ config, log: createLogger("warn") });
  try {
    operatorVerify(gw, account, call);
  } finally {
    await gw.stop();
  }
}
