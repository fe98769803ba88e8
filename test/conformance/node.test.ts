/** The conformance suite against the gateway on Node (`npm run start:node`: node:sqlite, node:http), a real process. */
import { startOn } from "../helpers/hosts.ts";
import { conformance } from "./suite.ts";

conformance("node", (env) => startOn("node", env));
