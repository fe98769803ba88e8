/** The SVCFED carrier over HTTP: pack the local feed into one bulletin for the FBB carrier. */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { enqueueParams, enqueueSvcfed } from "./transports/svcfed.ts";

export function svcfedRoutes(gw: Gateway) {
  return new Elysia({ name: "svcfed" }).use(gatesPlugin(gw)).post(
    "/federation/bbs/enqueue",
    ({ body, set }) => {
      const r = enqueueSvcfed(gw, enqueueParams(body));
      set.status = r.posted ? 201 : 200;
      return r;
    },
    { gate: "sysop" },
  );
}
