/**
 * Smaller holes an outside test found: a line break in a set-up value that
 * would add a line to the env file, ADMIN_CALLSIGNS read from that file, and
 * the Host header reflected into cached public answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { ENV_FILE_NAME, loadConfig } from "../../src/core/config.ts";
import { setupToken } from "../../src/system/setup.ts";

const json = (r: Response) => r.json() as Promise<any>;

describe("set-up writes one line per setting", () => {
  test("a tileUrl carrying a line break (and a setting after it) is refused whole; the env file is not written", async () => {
    const g = await startInProcess({});
    try {
      const token = setupToken(g.gw)!;
      const evil = await g.post("/api/setup", { token, instance: "n0call-gw", tileUrl: "https://t.example/{z}/{x}/{y}.png\nADMIN_CALLSIGNS=N0EVIL" });
      expect(evil.status).toBe(400);
      expect((await json(evil)).message).toContain("line break");
      expect((await g.post("/api/setup", { token, instance: "n0call-gw\r\nINGEST_SECRET=x" })).status).toBe(400);
      expect(existsSync(join(g.dataDir, ENV_FILE_NAME))).toBe(false);
      // The same values without the break are written (the control).
      const ok = await g.post("/api/setup", { token, instance: "n0call-gw", tileUrl: "https://t.example/{z}/{x}/{y}.png" });
      expect(ok.status).toBe(200);
      const env = readFileSync(join(g.dataDir, ENV_FILE_NAME), "utf8");
      expect(env).toContain("TILE_URL=https://t.example/{z}/{x}/{y}.png");
      expect(loadConfig({ dataDir: g.dataDir, env: {} }).errors).toEqual([]);
    } finally {
      await g.stop();
    }
  });
});

describe("ADMIN_CALLSIGNS comes from the environment only", () => {
  test("in the env file it is ignored with a warning, and the sysop surface stays locked; from the environment it works", async () => {
    const dataDir = tmpDir();
    writeFileSync(join(dataDir, ENV_FILE_NAME), "ADMIN_CALLSIGNS=N0SYS\n");
    const loaded = loadConfig({ dataDir, env: {} });
    expect(loaded.config.adminCallsigns).toEqual([]);
    expect(loaded.warnings.find((w) => w.setting === "ADMIN_CALLSIGNS")?.message).toContain("read from the environment only");

    const fromFile = await startInProcess({}, { dataDir });
    try {
      const sysop = signedInUser(fromFile.gw, "N0SYS", { verified: true });
      const r = await fromFile.get("/api/bbs/forward", { headers: { cookie: sysop.cookie } });
      expect(r.status).toBe(403);
      expect((await json(r)).error).toBe("locked");
    } finally {
      await fromFile.stop();
    }
    const fromEnv = await startInProcess({ ADMIN_CALLSIGNS: "N0SYS" }, { dataDir });
    try {
      const sysop = signedInUser(fromEnv.gw, "N0SYS", { verified: true });
      expect((await fromEnv.get("/api/bbs/forward", { headers: { cookie: sysop.cookie } })).status).toBe(200);
    } finally {
      await fromEnv.stop();
    }
  });
});

describe("absolute URLs never come from a stranger's Host header", () => {
  let g: Running;
  let port: number;
  beforeAll(async () => {
    g = await startInProcess({});
    port = Number(new URL(g.url).port);
  });
  afterAll(() => g.stop());
  const withHost = async (path: string, host: string) => (await g.get(path, { headers: { host } })).text();

  test("robots.txt, sitemap.xml and the QR code: a foreign Host gives the gateway's own address", async () => {
    for (const path of ["/robots.txt", "/sitemap.xml", "/feeds/activity.xml"]) {
      const evil = await withHost(path, "evil.example");
      expect(evil).not.toContain("evil.example");
      expect(evil).toContain(`http://127.0.0.1:${port}/`);
      expect(await withHost(path, `evil.example:${port}`)).not.toContain("evil.example");
      // A name of this machine on our port is kept (the control): a LAN visitor's own links.
      expect(await withHost(path, `localhost:${port}`)).toContain(`http://localhost:${port}/`);
    }
    const qr = (host: string) => withHost("/embed/qr.svg", host);
    const own = await qr(`127.0.0.1:${port}`);
    expect(await qr("evil.example")).toBe(own);
    expect(await qr(`localhost:${port}`)).not.toBe(own);
  });

  test("with PUBLIC_URL every absolute URL uses it, whatever the Host", async () => {
    const pub = await startInProcess({ PUBLIC_URL: "https://gw.example.org" });
    try {
      for (const host of ["evil.example", "localhost"]) {
        const robots = await (await pub.get("/robots.txt", { headers: { host } })).text();
        expect(robots).toContain("Sitemap: https://gw.example.org/sitemap.xml");
      }
    } finally {
      await pub.stop();
    }
  });
});
