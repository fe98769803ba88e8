/**
 * What this instance stores about a visitor and for how long, derived from the
 * live retention settings and the pruning rules themselves (GET /privacy).
 */
import { FIXED, type Config } from "../core/config.ts";
import { RETENTION } from "../jobs/prune.ts";
import type { PrivacyStatement } from "./shapes.ts";

function duration(ms: number): string {
  const h = ms / 3_600_000;
  if (h < 48 && Number.isInteger(h)) return `${h} hour${h === 1 ? "" : "s"}`;
  const d = h / 24;
  return `${Number.isInteger(d) ? d : d.toFixed(1)} day${d === 1 ? "" : "s"}`;
}

export function privacyStatement(config: Config): PrivacyStatement {
  const third: PrivacyStatement["thirdPartyRequests"] = [];
  if (config.tileUrl) {
    const host = new URL(config.tileUrl.replaceAll("{s}", "a").replace(/\{[^}]*\}/g, "0")).host;
    third.push({ host, why: "map tiles: your browser loads them from this tile server, which sees your IP address" });
  }
  return {
    instance: config.instance,
    visitor: [
      {
        what: "one session cookie (HttpOnly, SameSite)",
        when: "only after you sign in",
        kept: `until you sign out, or ${FIXED.sessionDays} days`,
      },
      {
        what: "a request counter per IP address, for rate limiting",
        when: "on API and sign-in requests",
        kept: `in memory only, for ${FIXED.rateCounterSeconds} seconds`,
      },
    ],
    analytics: "none",
    advertising: "none",
    trackers: "none",
    thirdPartyRequests: third,
    retention: RETENTION.map((r) => ({
      what: r.what,
      kept: r.kept ? r.kept(config) : duration(r.ttlMs(config)),
      ...(r.setting ? { setting: r.setting } : {}),
    })),
    never: [
      "no name or address directory: profiles are thin and opt-in",
      "owner contact fields never leave this instance; federated records carry none",
      "no analytics, advertising or third-party tracking scripts",
    ],
    yourRights: [
      { what: "export everything stored about your account", how: "POST /api/account/:call/export" },
      { what: "erase your account", how: "POST /api/account/:call/delete" },
      { what: "move your account to another instance", how: "POST /api/account/:call/bundle, /move" },
    ],
  };
}
