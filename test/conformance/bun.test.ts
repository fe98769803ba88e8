/** The conformance suite against the gateway as operators run it: `bun src/main.ts serve`, a real process. */
import { spawnGateway } from "../helpers/gateway.ts";
import { conformance } from "./suite.ts";

conformance("bun", async (env) => {
  const g = await spawnGateway({ env });
  return { url: g.url, stop: async () => void (await g.kill()) };
});
