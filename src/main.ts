#!/usr/bin/env bun
import "./production.ts";
import { runCli } from "./cli.ts";

void runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
