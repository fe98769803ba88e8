/**
 * The conformance suite against the gateway on workerd (`npm run start:worker`:
 * the worker bundle in miniflare, a Durable Object's SQLite storage), a real
 * server on a port with the settings as the worker's variables.
 */
import { Miniflare } from "miniflare";
import { buildWorkerBundle, workerOptions } from "../../scripts/worker.ts";
import { conformance } from "./suite.ts";

conformance("workerd", async (env) => {
  const mf = new Miniflare(workerOptions(await buildWorkerBundle(), { port: 0, env: { LOG_LEVEL: "warn", ...env } }));
  const url = (await mf.ready).origin;
  return { url, stop: () => mf.dispose() };
});
