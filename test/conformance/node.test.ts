/** The conformance suite against the gateway on Node (`npm run start:node`: node:sqlite, node:http), a real process. */
import { spawnGateway } from "../helpers/gateway.ts";
import { conformance } from "./suite.ts";

conformance("node", async (env) => {
  const g = await spawnGateway({ env, runtime: "node", timeoutMs: 120_000 });
  return { url: g.url, stop: async () => void (await g.kill()) };
});
