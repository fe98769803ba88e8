// The gateway on Node (22.16 or newer): node:sqlite and node:http, from the bundle
// scripts/node.ts builds (`npm run start:node`). Same commands and flags as src/main.ts.
import "../lib/production.ts";
import { fileURLToPath } from "node:url";
import { runCli } from "./cli.ts";
import { useSqliteDriver } from "../core/store/sqlite.ts";
import { nodeSqlite } from "../core/store/sqlite-node.ts";
import { usePrebuiltUi } from "../http/ui.ts";
import { usePrebuiltWorld } from "../tiles/archives.ts";
import { nodeHost, prebuiltUi } from "./node.ts";
import { useTcpConnect } from "../lib/net/tcp.ts";
import { nodeTcpConnect } from "./node-tcp.ts";

useSqliteDriver(nodeSqlite);
useTcpConnect(nodeTcpConnect);
// the web app scripts/node.ts built beside this bundle
usePrebuiltUi(() => prebuiltUi(fileURLToPath(new URL("./ui/", import.meta.url))));
usePrebuiltWorld(fileURLToPath(new URL("./world.pmtiles", import.meta.url)));
void runCli(process.argv.slice(2), undefined, undefined, nodeHost).then((code) => {
  process.exitCode = code;
});
