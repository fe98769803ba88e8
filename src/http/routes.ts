/**
 * Every domain's routes, mounted in this order. A domain adds one line here:
 * this file says what each route file is given.
 */
import type { AnyElysia } from "elysia";
import { routeKit } from "./route-kit.ts";
import type { Gateway } from "./gateway.ts";
import { systemRoutes } from "../system/routes.ts";
import { bbsRoutes } from "../bbs/routes.ts";
import { stationsRoutes } from "../stations/routes.ts";
import { accountRoutes } from "../accounts/routes.ts";
import { fedRoutes } from "../fed/routes.ts";
import { fedNetworkRoutes } from "../fed/network-routes.ts";
import { gameRoutes } from "../game/routes.ts";
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

/**
 * Every domain's routes, each given the Core, the route kit (gates, links)
 * and, by name, the one part of the gateway it needs beyond them.
 */
export function domainRoutes(gw: Gateway): AnyElysia[] {
  const kit = routeKit(gw);
  return [
    systemRoutes(gw, kit, gw.scheduler, gw.tls),
    bbsRoutes(gw, kit),
    stationsRoutes(gw, kit),
    messagesRoutes(gw, kit),
    accountRoutes(gw, kit),
    fedRoutes(gw, kit),
    fedNetworkRoutes(gw, kit),
    gameRoutes(gw, kit),
    supportRoutes(gw, kit),
    v1Routes(gw, kit),
    exportRoutes(gw, kit),
    nodeRoutes(gw, kit),
    boxRoutes(gw, kit),
    beaconRoutes(gw, kit),
    liveRoutes(gw, kit, gw.live),
    svcfedRoutes(gw, kit),
    hubRoutes(gw, kit, () => gw.hub),
    searchRoutes(gw, kit),
    tilesRoutes(gw, kit),
    tlsRoutes(gw, kit, gw.tls, () => (gw.plainServer ?? gw.server)?.port ?? gw.config.port),
  ];
}
