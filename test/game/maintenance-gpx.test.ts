/**
 * The maintenance log kinds in GPX (issue 29 item 6): a cache's GPX writes
 * each log with Groundspeak's type name (valid against the pocket-query
 * schema); another gateway's import of it reads the open maintenance need
 * back from the logs, and a later Owner Maintenance closes it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { tmpDir } from "../helpers/tmp.ts";

const XSD = join(import.meta.dir, "../fixtures/xsd/pocket-query.xsd");
let g: Running;
let g2: Running;
let owner: TestUser;
let finder: TestUser;
let importer: TestUser;
const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const run = (cmd: string[]) => {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? -1, out: p.stdout.toString(), err: p.stderr.toString() };
};

beforeAll(async () => {
  [g, g2] = await Promise.all([startInProcess({ INSTANCE: "gw1", ADMIN_CALLSIGNS: "N0SYS" }), startInProcess({ INSTANCE: "gw2" })]);
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  importer = signedInUser(g2.gw, "N0IMP", { verified: true });
});
afterAll(async () => {
  await Promise.all([g.stop(), g2.stop()]);
});

test("export names every kind as Groundspeak does, validates, and an import reads the open maintenance need back", async () => {
  const day = 86_400_000;
  const at = Date.now() - 10 * day;
  const c = await json(
    await g.post(
      "/api/caches",
      { name: "Mill race", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 47.7, lon: 9.1, placedAt: at - day },
      as(owner),
    ),
  );
  const logs: Array<[TestUser, string, number]> = [
    [owner, "temp-disable", at],
    [owner, "enable", at + day],
    [owner, "owner-maintenance", at + 2 * day],
    [finder, "needs-maintenance", at + 3 * day],
  ];
  for (const [u, kind, foundAt] of logs) expect((await g.post(`/api/caches/${c.id}/logs`, { kind, text: `${kind} text`, foundAt }, as(u))).status).toBe(201);
  const gpx = await (await g.get(`/api/caches/${c.id}/gpx`)).text();
  for (const name of ["Temporarily Disable Listing", "Enable Listing", "Owner Maintenance", "Needs Maintenance"])
    expect(gpx).toContain(`<groundspeak:type>${name}</groundspeak:type>`);
  const file = join(tmpDir(), "nm.gpx");
  await Bun.write(file, gpx);
  const v = run(["xmllint", "--noout", "--schema", XSD, file]);
  expect({ code: v.code, err: v.err.trim() }).toEqual({ code: 0, err: `${file} validates` });

  const post = (body: string) =>
    g2.get("/api/import/gpx", { method: "POST", body, headers: { cookie: importer.cookie, "content-type": "application/gpx+xml" } });
  expect(await json(await post(gpx))).toMatchObject({ caches: 1, created: 1 });
  const imported = () => g2.gw.db.query("SELECT id, needs_maintenance AS nm FROM caches WHERE source_ref = ?").get(c.code) as { id: number; nm: number };
  expect(imported().nm).toBe(1);
  expect(await json(await g2.get(`/api/caches/${imported().id}`))).toMatchObject({ needsMaintenance: true });
  // the same file again changes nothing; one where the owner's maintenance is newest closes it
  expect(await json(await post(gpx))).toMatchObject({ unchanged: 1 });
  const fixed = gpx.replace(
    "</groundspeak:logs>",
    `  <groundspeak:log id="0">
          <groundspeak:date>${new Date(Date.now() - day).toISOString()}</groundspeak:date>
          <groundspeak:type>Owner Maintenance</groundspeak:type>
          <groundspeak:finder id="0">N0OWN</groundspeak:finder>
          <groundspeak:text encoded="false">fixed</groundspeak:text>
        </groundspeak:log>
      </groundspeak:logs>`,
  );
  expect(await json(await post(fixed))).toMatchObject({ updated: 1 });
  expect(imported().nm).toBe(0);
});
