/**
 * Every domain's routes, added in this order to the gateway's one app. A route
 * file adds one line here: this file says what each is given.
 */
import { routeKit } from "./route-kit.ts";
import type { GatesPlugin } from "./gates.ts";
import type { Gateway } from "./gateway.ts";
import { systemRoutes } from "../system/routes.ts";
import { bbsRoutes } from "../bbs/routes.ts";
import { stationsRoutes } from "../stations/routes.ts";
import { ownStationRoutes } from "../stations/own-routes.ts";
import { accountRoutes } from "../accounts/routes.ts";
import { prefsRoutes } from "../accounts/prefs-routes.ts";
import { fedRoutes } from "../fed/routes.ts";
import { fedNetworkRoutes } from "../fed/network-routes.ts";
import { gameRoutes } from "../game/routes.ts";
import { trackableRoutes } from "../game/trackables-routes.ts";
import { listRoutes } from "../game/lists-routes.ts";
import { maintenanceRoutes } from "../game/maintenance-routes.ts";
import { eventRoutes } from "../game/events-routes.ts";
import { waypointRoutes } from "../game/waypoints-routes.ts";
import { supportRoutes } from "../supporters/routes.ts";
import { v1Routes } from "../v1/routes.ts";
import { exportRoutes } from "../exports/routes.ts";
import { nodeRoutes } from "../radio-node/routes.ts";
import { boxRoutes } from "../box/routes.ts";
import { beaconRoutes } from "../fed/beacon-routes.ts";
import { liveRoutes } from "../live/routes.ts";
import { svcfedRoutes } from "../fed/svcfed-routes.ts";
import { hubRoutes } from "../hub/routes.ts";
import { searchRoutes } from "../search/routes.ts";
import { tilesRoutes } from "../tiles/routes.ts";
import { tlsRoutes } from "../tls/routes.ts";
import { messagesRoutes } from "../messages/routes.ts";

/** The routes mounted before the port listens (app.ts): the system's, /health among them. */
export function addStartupRoutes(gw: Gateway, app: GatesPlugin): void {
  systemRoutes(gw, routeKit(gw, app), gw.scheduler, gw.tls);
}

/**
 * Adds every other domain's routes to `app` (the gateway's app, the gates already
 * in it), each route file given the Core, the route kit (the app, links) and,
 * by name, the one part of the gateway it needs beyond them. Each adds its
 * routes to that one app rather than to a plugin of its own: Elysia's `use`
 * of a plugin adds each of its routes a second time, about 10 ms of every
 * start for the gateway's 263.
 */
export function addDomainRoutes(gw: Gateway, app: GatesPlugin): void {
  const kit = routeKit(gw, app);
  bbsRoutes(gw, kit);
  ownStationRoutes(gw, kit);
  stationsRoutes(gw, kit);
  messagesRoutes(gw, kit);
  prefsRoutes(gw, kit);
  accountRoutes(gw, kit);
  fedRoutes(gw, kit);
  fedNetworkRoutes(gw, kit);
  trackableRoutes(gw, kit);
  listRoutes(gw, kit);
  maintenanceRoutes(gw, kit);
  eventRoutes(gw, kit);
  waypointRoutes(gw, kit);
  gameRoutes(gw, kit);
  supportRoutes(gw, kit);
  v1Routes(gw, kit);
  exportRoutes(gw, kit);
  nodeRoutes(gw, kit);
  boxRoutes(gw, kit);
  beaconRoutes(gw, kit);
  liveRoutes(gw, kit, gw.live);
  svcfedRoutes(gw, kit);
  hubRoutes(gw, kit, () => gw.hub);
  searchRoutes(gw, kit);
  tilesRoutes(gw, kit);
  tlsRoutes(gw, kit, gw.tls, () => (gw.plainServer ?? gw.server)?.port ?? gw.config.port);
}
