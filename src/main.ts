#!/usr/bin/env bun
// The gateway on Bun (and the Bun executable): bun:sqlite and Bun.serve. src/hosts/node-main.ts is the Node entry.
import "./lib/production.ts";
import { runCli } from "./hosts/cli.ts";
import { bunHost } from "./hosts/bun.ts";
import { useSqliteDriver } from "./core/store/sqlite.ts";
import { bunSqlite } from "./core/store/sqlite-bun.ts";

useSqliteDriver(bunSqlite);
void runCli(process.argv.slice(2), undefined, undefined, bunHost).then((code) => {
  process.exitCode = code;
});
