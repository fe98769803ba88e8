/**
 * A worker for workerd whose Durable Object answers the SQLite probe through
 * its own SQL storage (GET /probe), and opens the gateway's store on it, the
 * whole schema migrated (GET /store), and refuses a bigint it cannot bind
 * exactly (GET /bigint): test/store/sqlite-drivers.test.ts runs
 * it through miniflare. Each path is a Durable Object of its own.
 */
import { MIGRATIONS, openStore, schemaVersion } from "../../src/core/store/db.ts";
import { durableObjectSqlite, type DurableObjectSqlStorage } from "../../src/core/store/sqlite-do.ts";
import { useSqliteDriver } from "../../src/core/store/sqlite.ts";
import { probe } from "./sqlite-probe.ts";
import { schemaObjects } from "./sqlite-schema.ts";

export class Probe {
  constructor(private readonly ctx: { storage: DurableObjectSqlStorage }) {}
  fetch(request: Request): Response {
    const driver = durableObjectSqlite(this.ctx.storage);
    const path = new URL(request.url).pathname;
    if (path === "/probe") return Response.json(probe(driver, "/probe"));
    if (path === "/bigint") {
      // beyond 2^53 a bigint has no exact number: refused, not rounded
      try {
        return Response.json({
          stored: driver
            .open("")
            .query("SELECT ? AS x")
            .get(2n ** 60n),
        });
      } catch (e) {
        return Response.json({ error: (e as Error).name, message: (e as Error).message });
      }
    }
    useSqliteDriver(driver);
    const db = openStore("svc-gateway.db");
    const answer = { version: schemaVersion(db), latest: MIGRATIONS.length, objects: schemaObjects(db) };
    // opened again, nothing is pending
    db.close();
    const again = openStore("svc-gateway.db");
    return Response.json({ ...answer, reopened: schemaVersion(again) });
  }
}

export default {
  fetch(request: Request, env: { PROBE: { idFromName(n: string): unknown; get(id: unknown): { fetch(r: Request): Promise<Response> } } }) {
    return env.PROBE.get(env.PROBE.idFromName(new URL(request.url).pathname)).fetch(request);
  },
};
