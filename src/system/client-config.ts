/** GET /api/config: what the web app needs to know of this instance (also inlined in the map's page, http/ui.ts). */
import type { Core } from "../gateway.ts";
import { buildInfo } from "../version.ts";

export function clientConfig(gw: Core) {
  return {
    instance: gw.config.instance,
    version: buildInfo().version,
    tileUrl: gw.config.tileUrl,
    tileAttribution: gw.config.tileAttribution,
    spotsEnabled: gw.config.spotsEnabled,
  };
}
