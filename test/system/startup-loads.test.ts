/**
 * What start-up loads: a gateway serving on its data, asked for /health, has
 * loaded none of the libraries only some requests or settings need. Each of them costs every start its module's evaluation (fflate and the
 * PMTiles reader build DEFLATE's tables as they load) and the memory it keeps.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { spawnGateway, type Spawned } from "../helpers/gateway.ts";
import { BUN, MAIN } from "../helpers/paths.ts";

/** Libraries a plain start must not load, and what each waits for. */
const ON_FIRST_USE: Record<string, string> = {
  "node_modules/fflate/": "a compressed federation page",
  "node_modules/pmtiles/": "the map page's basemap",
  "node_modules/nodemailer/": "the first mail",
  "node_modules/@simplewebauthn/server/": "a passkey",
  "node_modules/@peculiar/x509/": "TLS=local or acme",
  "node_modules/acme-client/": "TLS=acme",
  "node_modules/fast-xml-parser/": "a GPX import",
  "node_modules/qrcode/": "a QR code",
  "node_modules/web-push/": "a push notification",
};

let gw: Spawned;
beforeAll(async () => {
  gw = await spawnGateway({ cmd: [BUN, "--no-env-file", "--preload", join(import.meta.dir, "../helpers/loaded-modules.ts"), MAIN] });
});
afterAll(() => gw?.kill());

test("a start that serves /health has loaded none of the libraries only some requests need", async () => {
  expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  gw.proc.kill("SIGUSR2");
  let line: RegExpExecArray | null = null;
  for (let i = 0; i < 200 && !line; i++) {
    await Bun.sleep(25);
    line = /^LOADED (.*)$/m.exec(gw.output());
  }
  expect(line).not.toBeNull();
  const loaded = JSON.parse(line![1]!) as string[];
  // the gateway's own modules are there: the list is the process's
  expect(loaded.some((f) => f.endsWith("src/main.ts"))).toBe(true);
  const early = Object.entries(ON_FIRST_USE)
    .filter(([lib]) => loaded.some((f) => f.includes(lib)))
    .map(([lib, when]) => `${lib} (needed only for ${when})`);
  expect(early).toEqual([]);
});
