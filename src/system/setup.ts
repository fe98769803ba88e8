/**
 * First-run setup, PocketBase-style: on first start the gateway prints a link
 * carrying a one-time token; the setup page sends it back with the instance
 * name, operator callsign and map tiles, which are written to the env file in
 * the data directory and take effect at the next start. Only the settings in
 * SETUP_SETTINGS can be written this way: never ADMIN_CALLSIGNS, never a secret.
 */
import { randomBytes } from "node:crypto";
import { sameSecret } from "../lib/secret.ts";
import { join } from "node:path";
import { ENV_FILE_NAME, updateEnvFile, validateSetting } from "../core/config.ts";
import { badRequest, conflict, forbidden } from "../lib/errors.ts";
import type { Core } from "../core/core.ts";
import type { TlsState } from "../tls/index.ts";
import { getMeta, setMeta } from "../core/store/db.ts";
import { clockSummary } from "./clock-sanity.ts";
import { DEFAULT_KISS_PORTS, kissPortId } from "../../radio/port/config.ts";
import type { SetupDone, SetupState } from "./shapes.ts";

/** JSON field -> environment setting the setup page may write. */
export const SETUP_SETTINGS = {
  instance: "INSTANCE",
  operator: "FED_OPERATOR",
  aprsCall: "FED_APRS_CALL",
  tileUrl: "TILE_URL",
  radioCall: "RADIO_CALL",
  kissPorts: "KISS_PORTS",
  tls: "TLS",
} as const;

export type SetupValues = Partial<Record<keyof typeof SETUP_SETTINGS, string>>;

/** The token for the setup link, created on first start; null once setup is done. */
export function setupToken(gw: Core): string | null {
  if (getMeta(gw.db, "setup_done")) return null;
  let token = getMeta(gw.db, "setup_token");
  if (!token) {
    token = randomBytes(18).toString("base64url");
    setMeta(gw.db, "setup_token", token);
  }
  return token;
}

/** The Setup page's state; `tls`: HTTPS as it runs now (the gateway's TLS service, src/tls/). */
export function setupState(gw: Core, tls: TlsState): SetupState {
  const c = gw.config;
  const done = getMeta(gw.db, "setup_done");
  return {
    needed: !done,
    // why signing and transmitting are paused, checked now (system/clock-sanity.ts)
    clock: clockSummary(gw),
    // Saved settings apply at the next start: until then this process runs on the old ones.
    restartNeeded: !!done && Number(done) >= gw.startedAt,
    values: {
      instance: c.instance,
      operator: c.fedOperator ?? "",
      aprsCall: c.fedAprsCall ?? "",
      tileUrl: c.tileUrl,
      radioCall: c.radioCall ?? "",
      // the default (Direwolf on this machine, if running) shows as empty
      kissPorts: c.kissPorts === DEFAULT_KISS_PORTS ? "" : c.kissPorts.length ? c.kissPorts.map(kissPortId).join(",") : "off",
      tls: c.tls,
    },
    // HTTPS as it runs now: the certificate's expiry and the last error (each source's own members, TLS_STATE)
    tls,
  };
}

/** Writes the set-up values (text, as the route's schema checks) after the token; every value is checked as its setting. */
export function completeSetup(gw: Core, token: string, values: SetupValues): SetupDone {
  const expected = getMeta(gw.db, "setup_token");
  if (getMeta(gw.db, "setup_done")) throw conflict("setup_done", "this gateway is already set up; edit the env file to change settings");
  if (!expected || !sameSecret(token, expected)) {
    throw forbidden("the setup token is missing or wrong; use the link the gateway printed when it started", "bad_token");
  }
  const updates: Record<string, string> = {};
  const problems: string[] = [];
  for (const [field, env] of Object.entries(SETUP_SETTINGS)) {
    const raw = values[field as keyof SetupValues];
    if (raw === undefined || raw === "") continue;
    const v = validateSetting(env, raw);
    if (v.ok) updates[env] = raw.trim();
    else problems.push(v.message);
  }
  if (problems.length) throw badRequest("invalid_setting", problems.join("; "));
  const file = join(gw.config.dataDir, ENV_FILE_NAME);
  updateEnvFile(file, updates);
  gw.db.transaction(() => {
    setMeta(gw.db, "setup_done", String(gw.clock.now()));
    gw.db.query("DELETE FROM meta WHERE key = 'setup_token'").run();
  })();
  gw.log.info("setup", `settings written to ${file}; they apply at the next start`, { settings: Object.keys(updates) });
  return { saved: Object.keys(updates), envFile: file, restartRequired: true };
}
