// The gateway on Node (22.5 or newer): node:sqlite and node:http, from the bundle
// scripts/node.ts builds (`npm run start:node`). Same commands and flags as src/main.ts.
import "../production.ts";
import { runCli } from "../cli.ts";
import { useSqliteDriver } from "../store/sqlite.ts";
import { nodeSqlite } from "../store/sqlite-node.ts";
import { nodeHost } from "./node.ts";

useSqliteDriver(nodeSqlite);
void runCli(process.argv.slice(2), undefined, undefined, nodeHost).then((code) => {
  process.exitCode = code;
});
