/**
 * Every domain's routes, mounted in this order. A domain adds one line here.
 */
import type { Elysia } from "elysia";
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

export const routePlugins: Array<(gw: Gateway) => Elysia<any, any, any, any, any, any, any>> = [
  systemRoutes,
  bbsRoutes,
  stationsRoutes,
  messagesRoutes,
  accountRoutes,
  fedRoutes,
  fedNetworkRoutes,
  gameRoutes,
  supportRoutes,
  v1Routes,
  exportRoutes,
  nodeRoutes,
  boxRoutes,
  beaconRoutes,
  liveRoutes,
  svcfedRoutes,
  hubRoutes,
  searchRoutes,
  tilesRoutes,
  tlsRoutes,
];
