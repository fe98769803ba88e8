/**
 * The system's JSON answers, defined once: health, the running source, the
 * web app's configuration, first-run set-up, the sitemap, the privacy
 * statement and the operator's views of the process. The services in this
 * folder build to the types below; the routes declare the schemas.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";
import { TLS_STATE } from "../tls/index.ts";

/** GET /health: ready (the database answers), or with ?live, alive. */
export const HEALTH = t.Union([
  closed({
    status: t.Literal("ok"),
    version: t.String(),
    uptimeS: wholeNumber({ description: "seconds since the gateway started" }),
  }),
  closed({ status: t.Literal("live") }, { description: "?live: alive, without asking the database" }),
]);

/** GET /.well-known/source: where the running source is, as the AGPL asks. */
export const SOURCE_INFO = closed({
  repository: t.String(),
  commit: nullable(t.String(), "the running commit, when known"),
  tag: nullable(t.String(), "the release tag at that commit, if any"),
  licence: t.String(),
  version: t.String(),
  tree: t.String({ description: "the commit's source tree (the repository without a commit)" }),
});
export type SourceInfo = Static<typeof SOURCE_INFO>;

/** GET /api/config: what the web app needs to know of this instance. */
export const CLIENT_CONFIG = closed({
  instance: t.String(),
  version: t.String(),
  tileUrl: t.String({ description: "the tile server's URL template" }),
  tileAttribution: t.String(),
  spotsEnabled: t.Boolean({ description: "/api/spots is served" }),
  region: nullable(
    closed({
      lat: t.Number(),
      lon: t.Number(),
      zoom: wholeNumber(),
      from: t.Union([t.Literal("station"), t.Literal("caches"), t.Literal("stations")], {
        description: "the station's own beacon, the middle of its caches, or of the stations heard lately",
      }),
    }),
    "where this instance plays, for a map with nothing better to start from; null when it knows none",
  ),
});
export type ClientConfig = Static<typeof CLIENT_CONFIG>;

/** GET /api/setup: whether set-up is still needed, and the current values. */
export const SETUP_STATE = closed({
  needed: t.Boolean({ description: "first-run set-up is still to be done" }),
  clock: closed({ sane: t.Boolean(), message: nullable(t.String(), "why signing and transmitting are paused while the clock is not set") }),
  restartNeeded: t.Boolean({ description: "settings were saved: they apply at the next start" }),
  values: closed({
    instance: t.String(),
    operator: t.String(),
    aprsCall: t.String(),
    tileUrl: t.String(),
    radioCall: t.String(),
    kissPorts: t.String({ description: "empty: the default; off: none" }),
    tls: t.String(),
  }),
  tls: TLS_STATE,
});
export type SetupState = Static<typeof SETUP_STATE>;

/** POST /api/setup: what was written. */
export const SETUP_DONE = closed({
  saved: t.Array(t.String(), { description: "the settings written" }),
  envFile: t.String({ description: "the env file they were written to" }),
  restartRequired: t.Literal(true, { description: "they apply at the next start" }),
});
export type SetupDone = Static<typeof SETUP_DONE>;

/** One public page of the sitemap. */
export const SITEMAP_ENTRY = closed({
  path: t.String(),
  lastmod: t.Optional(t.String({ description: "YYYY-MM-DD" })),
});
export type SitemapEntry = Static<typeof SITEMAP_ENTRY>;

/** GET /api/sitemap */
export const SITEMAP = closed({ urls: t.Array(closed({ ...SITEMAP_ENTRY.properties, url: t.String({ description: "the page's full URL" }) })) });

/** GET /privacy: what this instance keeps about whom, and for how long. */
export const PRIVACY_STATEMENT = closed({
  instance: t.String(),
  visitor: t.Array(closed({ what: t.String(), when: t.String(), kept: t.String() })),
  analytics: t.Literal("none"),
  advertising: t.Literal("none"),
  trackers: t.Literal("none"),
  thirdPartyRequests: t.Array(closed({ host: t.String(), why: t.String() })),
  retention: t.Array(closed({ what: t.String(), kept: t.String(), setting: t.Optional(t.String({ description: "the setting that sets it" })) })),
  never: t.Array(t.String()),
  yourRights: t.Array(closed({ what: t.String(), how: t.String() })),
});
export type PrivacyStatement = Static<typeof PRIVACY_STATEMENT>;

/** GET /api/admin/whoami */
export const WHOAMI = closed({
  operator: t.Boolean({ description: "the caller may operate this instance" }),
  via: nullable(t.Union([t.Literal("session"), t.Literal("ingest-secret")]), "what made the caller an operator"),
  callsign: nullable(t.String(), "the session's active callsign, if signed in"),
  verified: t.Boolean(),
  locked: t.Boolean({ description: "ADMIN_CALLSIGNS is unset: no session can be an operator here" }),
  reason: nullable(
    t.Union([t.Literal("signed_out"), t.Literal("no_callsign"), t.Literal("callsign_not_verified"), t.Literal("not_an_operator"), t.Literal("locked")]),
    "why the caller is not an operator",
  ),
});
export type WhoAmI = Static<typeof WHOAMI>;

const mib = (description: string) => nullable(t.Number({ description: `${description}, MiB (one decimal)` }));

/** GET /api/admin/runtime: the running process's figures (null: one the runtime cannot give). */
export const RUNTIME_FIGURES = closed({
  pid: nullable(wholeNumber()),
  uptimeS: wholeNumber({ description: "seconds since the gateway started" }),
  rssMb: mib("resident set size"),
  rssFileMb: mib("of the resident set, pages of files (the executable's code and data, libraries), which the kernel may drop and read again; Linux"),
  rssAnonMb: mib("of the resident set, the process's own memory (heaps, stacks, compiled code); Linux"),
  heapUsedMb: mib("JS heap used"),
  heapTotalMb: mib("JS heap total (on Bun: its blocks, not the storage of large arrays nor the characters of strings)"),
  heapCapacityMb: mib("what the JS heap spans, live objects and free space between collections (JavaScriptCore: Bun)"),
  heapCollections: wholeNumber({ description: "full garbage collections the serving gateway asked for itself, to keep the resident set's peaks down" }),
  openFds: nullable(wholeNumber(), "open file descriptors"),
  walBytes: nullable(wholeNumber(), "the database's WAL file size"),
  eventLoop: nullable(
    closed({
      p50Ms: t.Number(),
      p99Ms: t.Number(),
      maxMs: t.Number(),
      overS: wholeNumber({ description: "the seconds these cover" }),
    }),
    "the event loop's delay since the previous read (null at the first read, which starts the monitor)",
  ),
  collected: t.Boolean({ description: "a full garbage collection ran just before" }),
  bytecodeLayout: nullable(
    closed({
      hot: wholeNumber({ description: "functions loaded from the part the start-up profile laid out first" }),
      cold: wholeNumber({ description: "functions loaded from the rest" }),
      unknown: wholeNumber({ description: "functions loaded that the profiled build did not have" }),
    }),
    "the executable's bytecode, laid out by the start-up profile it was built with (build.ts); null from source and on other runtimes",
  ),
});
export type RuntimeFigures = Static<typeof RUNTIME_FIGURES>;
