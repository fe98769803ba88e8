/** The SQLite probe with node:sqlite, run on Node from its bundle: `node probe.mjs DIR` prints the answer. */
import { nodeSqlite } from "../../src/core/store/sqlite-node.ts";
import { probe } from "./sqlite-probe.ts";

console.log(JSON.stringify(probe(nodeSqlite, process.argv[2]!)));
