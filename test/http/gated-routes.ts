/**
 * Every gated route of the gateway, for the table-driven gate test. A route
 * whose gate is not "public" must appear here (the test fails otherwise).
 * `path` is a concrete path to call; `body` what to send (the gate is checked
 * before the body is acted on, so any body that parses will do).
 */
import type { GateName } from "../../src/http/gates.ts";

export interface GatedRoute {
  method: string;
  /** the route pattern as registered, e.g. /api/account/:call/export */
  route: string;
  /** a concrete path for it; `:call` is filled with the test user's callsign */
  path: string;
  gate: GateName;
  body?: unknown;
}

export const GATED_ROUTES: GatedRoute[] = [
  // a command of the data directory's owner, through the serving gateway
  { method: "POST", route: "/api/local/callsign-verify", path: "/api/local/callsign-verify", gate: "local-control", body: { account: 999999, call: "N0OPS" } },
  { method: "GET", route: "/api/admin/audit", path: "/api/admin/audit", gate: "sysop" },
  { method: "GET", route: "/api/admin/runtime", path: "/api/admin/runtime", gate: "sysop" },
  { method: "GET", route: "/api/admin/jobs", path: "/api/admin/jobs", gate: "sysop" },
  { method: "PUT", route: "/api/caches/:id/personal", path: "/api/caches/1/personal", gate: "session", body: {} },
  { method: "POST", route: "/api/tls/retry", path: "/api/tls/retry", gate: "sysop", body: {} },
  { method: "POST", route: "/api/admin/jobs/:name/run", path: "/api/admin/jobs/no-such-job/run", gate: "sysop", body: {} },
  // the hub's KISS and APRS-IS servers
  { method: "DELETE", route: "/api/hub/clients/:id", path: "/api/hub/clients/kiss-1", gate: "sysop", body: {} },
  // BBS
  { method: "POST", route: "/api/bbs/messages", path: "/api/bbs/messages", gate: "verified", body: {} },
  { method: "GET", route: "/api/bbs/messages", path: "/api/bbs/messages", gate: "session" },
  { method: "POST", route: "/api/bbs/messages/:id/read", path: "/api/bbs/messages/1/read", gate: "session", body: {} },
  { method: "DELETE", route: "/api/bbs/messages/:id", path: "/api/bbs/messages/1", gate: "session", body: {} },
  { method: "GET", route: "/api/bbs/sent", path: "/api/bbs/sent", gate: "session" },
  { method: "GET", route: "/api/bbs/forward", path: "/api/bbs/forward", gate: "sysop" },
  { method: "POST", route: "/api/bbs/forward", path: "/api/bbs/forward", gate: "sysop", body: {} },
  { method: "GET", route: "/api/bbs/forward/:id", path: "/api/bbs/forward/1", gate: "sysop" },
  { method: "POST", route: "/api/bbs/forward/:id", path: "/api/bbs/forward/1", gate: "sysop", body: {} },
  { method: "DELETE", route: "/api/bbs/forward/:id", path: "/api/bbs/forward/1", gate: "sysop", body: {} },
  { method: "GET", route: "/api/bbs/partners", path: "/api/bbs/partners", gate: "sysop" },
  { method: "POST", route: "/api/bbs/partners", path: "/api/bbs/partners", gate: "sysop", body: {} },
  { method: "GET", route: "/api/bbs/partners/:id", path: "/api/bbs/partners/1", gate: "sysop" },
  { method: "POST", route: "/api/bbs/partners/:id", path: "/api/bbs/partners/1", gate: "sysop", body: {} },
  { method: "DELETE", route: "/api/bbs/partners/:id", path: "/api/bbs/partners/1", gate: "sysop", body: {} },
  { method: "POST", route: "/api/bbs/partners/:id/forward", path: "/api/bbs/partners/999/forward", gate: "sysop", body: {} },
  { method: "GET", route: "/api/bbs/forward/pool", path: "/api/bbs/forward/pool", gate: "ingest" },
  { method: "POST", route: "/api/bbs/forward/inbound", path: "/api/bbs/forward/inbound", gate: "ingest", body: {} },
  { method: "POST", route: "/api/bbs/forward/sent", path: "/api/bbs/forward/sent", gate: "ingest", body: {} },
  { method: "GET", route: "/api/bbs/forward/session", path: "/api/bbs/forward/session", gate: "ingest" },
  { method: "POST", route: "/api/bbs/forward/session", path: "/api/bbs/forward/session", gate: "ingest", body: {} },
  { method: "GET", route: "/api/bbs/forward/kill", path: "/api/bbs/forward/kill", gate: "ingest" },
  { method: "POST", route: "/api/bbs/forward/kill", path: "/api/bbs/forward/kill", gate: "ingest", body: {} },
  // accounts
  { method: "POST", route: "/auth/passkey/remove", path: "/auth/passkey/remove", gate: "session", body: { id: "none" } },
  { method: "GET", route: "/auth/session", path: "/auth/session", gate: "session" },
  { method: "POST", route: "/auth/session", path: "/auth/session", gate: "session", body: {} },
  { method: "GET", route: "/auth/callsign", path: "/auth/callsign", gate: "session" },
  { method: "POST", route: "/auth/callsign", path: "/auth/callsign", gate: "session", body: { call: "bad call" } },
  { method: "GET", route: "/auth/callsigns", path: "/auth/callsigns", gate: "session" },
  { method: "POST", route: "/auth/callsigns", path: "/auth/callsigns", gate: "session", body: {} },
  { method: "GET", route: "/auth/profile", path: "/auth/profile", gate: "session" },
  { method: "POST", route: "/auth/profile", path: "/auth/profile", gate: "session", body: { nope: 1 } },
  { method: "POST", route: "/keys/register", path: "/keys/register", gate: "session", body: {} },
  { method: "POST", route: "/keys/revoke", path: "/keys/revoke", gate: "session", body: {} },
  { method: "POST", route: "/verify/aprs/start", path: "/verify/aprs/start", gate: "session", body: { call: "bad call" } },
  { method: "POST", route: "/verify/aprs/confirm", path: "/verify/aprs/confirm", gate: "session", body: { call: "bad call" } },
  { method: "GET", route: "/verify/aprs/status", path: "/verify/aprs/status", gate: "session" },
  { method: "POST", route: "/api/account/:call/export", path: "/api/account/:call/export", gate: "signed-body", body: {} },
  { method: "POST", route: "/api/account/:call/delete", path: "/api/account/:call/delete", gate: "signed-body", body: { confirm: false } },
  { method: "POST", route: "/api/account/:call/bundle", path: "/api/account/:call/bundle", gate: "signed-body", body: {} },
  { method: "POST", route: "/api/account/:call/move", path: "/api/account/:call/move", gate: "signed-body", body: {} },
  { method: "POST", route: "/api/account/import", path: "/api/account/import", gate: "signed-body", body: {} },
  { method: "GET", route: "/api/prefs", path: "/api/prefs", gate: "session" },
  { method: "PUT", route: "/api/prefs", path: "/api/prefs", gate: "session", body: [] },
  { method: "GET", route: "/api/watch", path: "/api/watch", gate: "session" },
  { method: "PUT", route: "/api/watch/:cacheId", path: "/api/watch/0", gate: "session", body: { watch: true } },
  { method: "GET", route: "/api/notify/prefs", path: "/api/notify/prefs", gate: "session" },
  { method: "PUT", route: "/api/notify/prefs", path: "/api/notify/prefs", gate: "session", body: { digest: "never" } },
  { method: "GET", route: "/api/push/key", path: "/api/push/key", gate: "session" },
  { method: "GET", route: "/api/push/subscriptions", path: "/api/push/subscriptions", gate: "session" },
  { method: "PUT", route: "/api/push/subscription", path: "/api/push/subscription", gate: "session", body: {} },
  { method: "DELETE", route: "/api/push/subscription", path: "/api/push/subscription", gate: "session", body: {} },
  { method: "POST", route: "/api/push/test", path: "/api/push/test", gate: "session", body: {} },
  { method: "GET", route: "/api/views", path: "/api/views", gate: "session" },
  { method: "POST", route: "/api/views", path: "/api/views", gate: "session", body: {} },
  { method: "PUT", route: "/api/views/:id", path: "/api/views/none", gate: "session", body: {} },
  { method: "DELETE", route: "/api/views/:id", path: "/api/views/none", gate: "session", body: {} },
  // stations
  { method: "POST", route: "/ingest", path: "/ingest", gate: "ingest-or-device", body: { packets: [] } },
  { method: "GET", route: "/outbox", path: "/outbox", gate: "ingest" },
  { method: "POST", route: "/outbox/ack", path: "/outbox/ack", gate: "ingest", body: { sent: [] } },
  { method: "POST", route: "/api/tx/aprs", path: "/api/tx/aprs", gate: "verified", body: { addressee: "N0CALL", text: "gate test" } },
  { method: "GET", route: "/api/tx/aprs", path: "/api/tx/aprs", gate: "session" },
  { method: "GET", route: "/api/messages/conversations", path: "/api/messages/conversations", gate: "session" },
  { method: "GET", route: "/api/messages/with/:call", path: "/api/messages/with/N0CALL", gate: "session" },
  { method: "POST", route: "/api/messages", path: "/api/messages", gate: "verified", body: { to: "N0CALL", text: "gate test" } },
  { method: "GET", route: "/api/alerts/watch", path: "/api/alerts/watch", gate: "session" },
  { method: "PUT", route: "/api/alerts/watch", path: "/api/alerts/watch", gate: "session", body: { calls: ["N0CALL"] } },
  // own stations, living caches, weather stations
  { method: "GET", route: "/api/my/stations", path: "/api/my/stations", gate: "session" },
  { method: "POST", route: "/api/my/stations", path: "/api/my/stations", gate: "session", body: { call: "bad call" } },
  { method: "GET", route: "/api/my/stations/:sid", path: "/api/my/stations/999999", gate: "session" },
  { method: "POST", route: "/api/my/stations/:sid", path: "/api/my/stations/999999", gate: "session", body: { label: "x" } },
  { method: "GET", route: "/api/my/stations/:sid/wx-key", path: "/api/my/stations/999999/wx-key", gate: "session" },
  { method: "POST", route: "/api/my/stations/:sid/wx-key", path: "/api/my/stations/999999/wx-key", gate: "session", body: {} },
  { method: "GET", route: "/api/my/stations/:sid/cache", path: "/api/my/stations/999999/cache", gate: "session" },
  { method: "POST", route: "/api/my/stations/:sid/cache", path: "/api/my/stations/999999/cache", gate: "session", body: { on: false } },
  { method: "POST", route: "/api/me/cache", path: "/api/me/cache", gate: "session", body: { on: "maybe" } },
  { method: "GET", route: "/api/wx/key", path: "/api/wx/key", gate: "session" },
  { method: "POST", route: "/api/wx/key", path: "/api/wx/key", gate: "session", body: { call: "bad call" } },
  { method: "GET", route: "/api/wx/tx", path: "/api/wx/tx", gate: "session" },
  { method: "POST", route: "/api/wx/tx", path: "/api/wx/tx", gate: "session", body: { stationId: 999999, on: true } },
  { method: "GET", route: "/updateweatherstation", path: "/updateweatherstation?tempf=70&dateutc=now", gate: "wx-key" },
  { method: "POST", route: "/updateweatherstation", path: "/updateweatherstation", gate: "wx-key", body: { tempf: 70 } },
  { method: "GET", route: "/api/wx/submit", path: "/api/wx/submit?humidity=50", gate: "wx-key" },
  { method: "POST", route: "/api/wx/submit", path: "/api/wx/submit", gate: "wx-key", body: { humidity: 50 } },
  // radio: remote box commands
  { method: "POST", route: "/api/box/:id/command", path: "/api/box/gate-test/command", gate: "actor", body: { kind: "ping" } },
  { method: "GET", route: "/api/box/:id/commands", path: "/api/box/gate-test/commands", gate: "ingest" },
  { method: "POST", route: "/api/box/:id/commands/ack", path: "/api/box/gate-test/commands/ack", gate: "ingest", body: { acks: [] } },
  { method: "GET", route: "/api/box/:id/log", path: "/api/box/gate-test/log", gate: "actor" },
  { method: "POST", route: "/api/node/nodes", path: "/api/node/nodes", gate: "sysop", body: { call: "N0GW-7", neighbour: "N0GW-7", quality: 100 } },
  { method: "POST", route: "/federation/beacon", path: "/federation/beacon", gate: "ingest", body: { datagram: "U1ZDQjE=" } },
  // federation
  { method: "POST", route: "/federation/frames", path: "/federation/frames", gate: "ingest", body: {} },
  { method: "POST", route: "/federation/bbs/enqueue", path: "/federation/bbs/enqueue", gate: "sysop", body: { types: [] } },
  // federation network
  { method: "POST", route: "/federation/sync", path: "/federation/sync", gate: "ingest", body: {} },
  { method: "GET", route: "/federation/peers", path: "/federation/peers", gate: "sysop" },
  { method: "POST", route: "/federation/peers/trust", path: "/federation/peers/trust", gate: "sysop", body: { instance: "gw-none", trust: "trusted" } },
  { method: "POST", route: "/federation/peers/44net", path: "/federation/peers/44net", gate: "sysop", body: { callsign: "not a call" } },
  { method: "POST", route: "/federation/corroborate", path: "/federation/corroborate", gate: "fed-secret-if-set", body: {} },
  { method: "POST", route: "/federation/submit", path: "/federation/submit", gate: "fed-secret", body: {} },
  { method: "POST", route: "/federation/relay/:instance/query", path: "/federation/relay/gw-none/query", gate: "relay", body: {} },
  { method: "POST", route: "/federation/relay/:instance/lease", path: "/federation/relay/gw-none/lease", gate: "relay", body: {} },
  { method: "POST", route: "/federation/relay/:instance/answer", path: "/federation/relay/gw-none/answer", gate: "relay", body: {} },
  { method: "GET", route: "/federation/relay/:instance/result/:id", path: "/federation/relay/gw-none/result/1", gate: "relay" },
  { method: "POST", route: "/federation/relay/:instance/dispatch", path: "/federation/relay/gw-none/dispatch", gate: "sysop", body: {} },
  { method: "GET", route: "/federation/peers/:instance/records", path: "/federation/peers/gw-none/records", gate: "sysop" },
  // game
  { method: "POST", route: "/api/caches", path: "/api/caches", gate: "actor", body: { name: "" } },
  // trackables
  { method: "POST", route: "/api/trackables", path: "/api/trackables", gate: "verified", body: { name: "x" } },
  { method: "POST", route: "/api/trackables/:ref/moves", path: "/api/trackables/SVTNOSUCH/moves", gate: "session", body: { kind: "note", text: "x" } },
  { method: "PATCH", route: "/api/caches/:id", path: "/api/caches/999999", gate: "actor", body: { name: "x" } },
  { method: "POST", route: "/api/caches/:id/logs", path: "/api/caches/999999/logs", gate: "actor", body: { kind: "find" } },
  { method: "POST", route: "/api/logs", path: "/api/logs", gate: "actor", body: { cache: "999999" } },
  { method: "POST", route: "/api/logs/find", path: "/api/logs/find", gate: "actor", body: { cache: "999999" } },
  { method: "DELETE", route: "/api/logs/:id", path: "/api/logs/999999", gate: "actor", body: {} },
  { method: "POST", route: "/api/caches/:id/rate", path: "/api/caches/999999/rate", gate: "session", body: { stars: 5 } },
  { method: "POST", route: "/api/caches/:id/favorite", path: "/api/caches/999999/favorite", gate: "session", body: {} },
  { method: "POST", route: "/api/caches/:id/watch", path: "/api/caches/999999/watch", gate: "session", body: {} },
  { method: "POST", route: "/api/caches/:id/media", path: "/api/caches/999999/media", gate: "actor", body: {} },
  { method: "DELETE", route: "/api/media/:id", path: "/api/media/999999", gate: "session", body: {} },
  { method: "POST", route: "/api/caches/:id/stages", path: "/api/caches/999999/stages", gate: "actor", body: { stages: [] } },
  { method: "POST", route: "/api/caches/:id/stages/:n/unlock", path: "/api/caches/999999/stages/1/unlock", gate: "actor", body: { answer: "x" } },
  { method: "POST", route: "/api/import/:source", path: "/api/import/gpx", gate: "actor", body: {} },
  // supporters
  { method: "GET", route: "/api/support/prefs", path: "/api/support/prefs", gate: "session" },
  { method: "POST", route: "/api/support/prefs", path: "/api/support/prefs", gate: "session", body: {} },
  { method: "POST", route: "/api/support/confirm", path: "/api/support/confirm", gate: "ingest", body: {} },
];
