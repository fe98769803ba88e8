/**
 * The conformance suite against the gateway on workerd (`npm run start:worker`:
 * the worker bundle in miniflare, a Durable Object's SQLite storage), a real
 * server on a port with the settings as the worker's variables.
 */
import { startOn } from "../helpers/hosts.ts";
import { conformance } from "./suite.ts";

conformance("workerd", (env) => startOn("workerd", env));
