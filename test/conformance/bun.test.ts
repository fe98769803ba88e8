/** The conformance suite against the gateway as operators run it: `bun src/main.ts serve`, a real process. */
import { startOn } from "../helpers/hosts.ts";
import { conformance } from "./suite.ts";

conformance("bun", (env) => startOn("bun", env));
