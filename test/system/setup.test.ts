import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { spawnGateway } from "../helpers/gateway.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { ENV_FILE_NAME } from "../../src/core/config.ts";

const post = (url: string, body: unknown) =>
  fetch(url + "/api/setup", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

test("first start prints a one-time set-up link; the set-up page writes the env file; the next start uses it", async () => {
  const dataDir = tmpDir();
  const first = await spawnGateway({ dataDir });
  try {
    await Bun.sleep(100);
    const token = /set this gateway up at http:\/\/\S+\/setup#(\S+)/.exec(first.output())?.[1];
    expect(token).toBeDefined();
    expect(((await (await fetch(first.url + "/api/setup")).json()) as { needed: boolean }).needed).toBe(true);

    // Wrong token: refused, nothing written.
    const wrong = await post(first.url, { token: "guess", instance: "evil" });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { error: string }).error).toBe("bad_token");
    // No token, or a value that is not text: the route's schema names the field; nothing written.
    for (const [body, field] of [
      [{ instance: "n0call-gw" }, "body.token"],
      [{ token, instance: 7 }, "body.instance"],
    ] as const) {
      const r = await post(first.url, body);
      expect({ status: r.status, body: await r.json() }).toMatchObject({ status: 400, body: { error: "invalid", field } });
    }
    expect(existsSync(join(dataDir, ENV_FILE_NAME))).toBe(false);
    // Bad value: refused whole, nothing written.
    const invalid = await post(first.url, { token, instance: "Bad Name!", operator: "N0CALL" });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { message: string }).message).toContain("INSTANCE");
    expect(existsSync(join(dataDir, ENV_FILE_NAME))).toBe(false);

    // Sysop callsigns are never settable from the web, even at set-up: a field
    // set-up does not take is refused by name, and nothing is written.
    for (const extra of [{ ADMIN_CALLSIGNS: "EVIL" }, { adminCallsigns: "EVIL" }, { tileurl: "off" }]) {
      const r = await post(first.url, { token, instance: "n0call-gw", ...extra });
      const field = Object.keys(extra)[0]!;
      expect({ field, status: r.status, body: await r.json() }).toMatchObject({
        field,
        status: 400,
        body: { error: "invalid", field: `body.${field}`, message: expect.stringContaining(`unknown field "${field}"`) },
      });
      expect(existsSync(join(dataDir, ENV_FILE_NAME))).toBe(false);
    }
    // Every line separator is refused, not only \n: a U+2028 the env file kept made the next start fail.
    for (const sep of ["\n", "\r", "\u0085", "\u2028", "\u2029"]) {
      for (const body of [{ tileUrl: `https://tiles.example/{z}/{x}/{y}.png?k=a${sep}b` }, { kissPorts: `serial:/dev/tty${sep}USB0@9600` }]) {
        const r = await post(first.url, { token, instance: "n0call-gw", ...body });
        expect({ sep: sep.codePointAt(0), status: r.status, error: ((await r.json()) as { error: string }).error }).toEqual({
          sep: sep.codePointAt(0),
          status: 400,
          error: "invalid_setting",
        });
      }
    }
    expect(existsSync(join(dataDir, ENV_FILE_NAME))).toBe(false);
    // The radio too: bad KISS_PORTS refused whole.
    expect((await post(first.url, { token, instance: "n0call-gw", kissPorts: "com1" })).status).toBe(400);
    const ok = await post(first.url, {
      token,
      instance: "n0call-gw",
      operator: "n0call",
      tileUrl: "off",
      radioCall: "n0call-10",
      kissPorts: "serial:/dev/ttyUSB0@9600",
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { restartRequired: boolean }).restartRequired).toBe(true);
    const env = readFileSync(join(dataDir, ENV_FILE_NAME), "utf8");
    expect(env).toContain("INSTANCE=n0call-gw");
    expect(env).toContain("FED_OPERATOR=n0call");
    expect(env).toContain("RADIO_CALL=n0call-10");
    expect(env).toContain("KISS_PORTS=serial:/dev/ttyUSB0@9600");
    expect(env).not.toContain("EVIL");
    // The token is spent.
    expect((await post(first.url, { token, instance: "again" })).status).toBe(409);
  } finally {
    await first.kill();
  }

  const second = await spawnGateway({ dataDir });
  try {
    await Bun.sleep(100);
    expect(second.output()).not.toContain("/setup#");
    const cfg = (await (await fetch(second.url + "/api/config")).json()) as { instance: string; tileUrl: string };
    expect(cfg).toMatchObject({ instance: "n0call-gw", tileUrl: "" });
  } finally {
    await second.kill();
  }
});
