import { describe, expect, test } from "bun:test";
import { writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, parseEnvFile, updateEnvFile, ENV_FILE_NAME } from "../src/core/config.ts";
import { generateKeyPair } from "../src/lib/fed/keys.ts";
import { tmpDir } from "./helpers/tmp.ts";

describe("configuration", () => {
  test("no settings at all gives a usable default", () => {
    const { config, errors } = loadConfig({ dataDir: tmpDir(), env: {} });
    expect(errors).toEqual([]);
    expect(config.port).toBe(8080);
    expect(config.host).toBe("0.0.0.0");
    expect(config.packetsTtlHours).toBe(24);
    expect(config.adminCallsigns).toEqual([]);
    expect(config.fedPrivateKey).toBeNull();
    expect(config.spotsEnabled).toBe(false);
  });

  test("every spec setting is read from the environment", () => {
    const kp = generateKeyPair();
    const { config, errors } = loadConfig({
      dataDir: tmpDir(),
      env: {
        INSTANCE: "n0call-gw",
        FED_PRIVATE_KEY: kp.privateKey,
        FED_PUBLIC_KEY: kp.publicKey,
        FED_PEERS: "https://a.example.org, https://b.example.org/",
        FED_ENDPOINTS: "https:https://gw.example.org;10,ampr:n0call.ampr.org;5,ax25:N0CALL-5",
        FED_OPERATOR: "n0call",
        FED_APRS_CALL: "N0CALL-10",
        FED_HUB_URL: "https://hub.example.org",
        FED_REGISTRY: "https://registry.example.org/reg.json",
        FED_REGISTRY_KEY: kp.publicKey,
        FED_REGISTRY_DNS: "_svc.example.org",
        FED_AUTO_PROMOTE: "3",
        FED_REVEAL_IGATE: "yes",
        FED_SUBMIT_SECRET: "s".repeat(20),
        FED_RELAY_SECRET: "r".repeat(20),
        ADMIN_CALLSIGNS: "n0call, W1AW",
        INGEST_SECRET: "i".repeat(32),
        PACKETS_TTL_HOURS: "6",
        TOMBSTONE_TTL_DAYS: "30",
        SPOTS_ENABLED: "true",
        DOH_URL: "https://doh.example.org/dns-query",
      },
    });
    expect(errors).toEqual([]);
    expect(config.instance).toBe("n0call-gw");
    expect(config.fedPeers).toEqual(["https://a.example.org", "https://b.example.org"]);
    expect(config.fedEndpoints).toHaveLength(3);
    expect(config.fedOperator).toBe("N0CALL");
    expect(config.fedAutoPromote).toBe(3);
    expect(config.fedRevealIgate).toBe(true);
    expect(config.adminCallsigns).toEqual(["N0CALL", "W1AW"]);
    expect(config.packetsTtlHours).toBe(6);
    expect(config.tombstoneTtlDays).toBe(30);
    expect(config.spotsEnabled).toBe(true);
    expect(config.dohUrl).toBe("https://doh.example.org/dns-query");
  });

  test("one clear error per bad setting", () => {
    const { errors } = loadConfig({
      dataDir: tmpDir(),
      env: {
        PORT: "eighty",
        PACKETS_TTL_HOURS: "0",
        ADMIN_CALLSIGNS: "N0CALL,not a call",
        INGEST_SECRET: "short",
        FED_PRIVATE_KEY: "abc",
        SPOTS_ENABLED: "maybe",
        FED_PEERS: "ftp://x.example.org",
      },
    });
    const by = Object.fromEntries(errors.map((e) => [e.setting, e.message]));
    expect(Object.keys(by).sort()).toEqual(
      ["ADMIN_CALLSIGNS", "FED_PEERS", "FED_PRIVATE_KEY", "INGEST_SECRET", "PACKETS_TTL_HOURS", "PORT", "SPOTS_ENABLED"].sort(),
    );
    expect(by.PORT).toContain('"eighty" is not a whole number');
    expect(by.ADMIN_CALLSIGNS).toContain('"not a call" is not a valid callsign');
    expect(by.INGEST_SECRET).toContain("too short");
  });

  test("a signing key needs an instance id, and a public key must match", () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    const r = loadConfig({ dataDir: tmpDir(), env: { FED_PRIVATE_KEY: a.privateKey, FED_PUBLIC_KEY: b.publicKey } });
    expect(r.errors.map((e) => e.setting).sort()).toEqual(["FED_PUBLIC_KEY", "INSTANCE"]);
  });

  test("malformed FED_ENDPOINTS entries are dropped with a warning, the rest kept", () => {
    const r = loadConfig({ dataDir: tmpDir(), env: { FED_ENDPOINTS: "https:http://insecure.example.org,ax25:N0CALL-7,bbs:nonsense" } });
    expect(r.errors).toEqual([]);
    expect(r.config.fedEndpoints).toEqual(["ax25:N0CALL-7"]);
    expect(r.warnings.filter((w) => w.setting === "FED_ENDPOINTS")).toHaveLength(2);
  });

  test("radio settings: path, rate limits, and a NET/ROM node call that must differ from the SVCL1 call", () => {
    const good = loadConfig({
      dataDir: tmpDir(),
      env: { RADIO_CALL: "n0gw-10", RADIO_PATH: "wide2-1", RADIO_TX_PER_MINUTE: "4", NODE_ALIAS: "gwnode", NODE_CALL: "N0GW-7" },
    });
    expect(good.errors).toEqual([]);
    expect(good.config).toMatchObject({ radioCall: "N0GW-10", radioPath: ["WIDE2-1"], radioTxPerMinute: 4, nodeAlias: "GWNODE", nodeCall: "N0GW-7" });
    expect(loadConfig({ dataDir: tmpDir(), env: { RADIO_PATH: "none" } }).config.radioPath).toEqual([]);
    const bad = loadConfig({
      dataDir: tmpDir(),
      env: { RADIO_CALL: "N0GW-10", RADIO_PATH: "WIDE1-1,not a digi", RADIO_TX_PER_MINUTE: "0", NODE_ALIAS: "GWNODE" },
    });
    expect(Object.fromEntries(bad.errors.map((e) => [e.setting, e.message]))).toEqual({
      RADIO_PATH: '"NOT A DIGI" is not a digipeater (e.g. WIDE1-1)',
      RADIO_TX_PER_MINUTE: "0 is out of range (1 to 60 frames)",
      NODE_CALL: "must differ from N0GW-10, the call SVCL1 sync is served on (use another SSID, e.g. N0GW-7)",
    });
    // with an ax25 endpoint, SVCL1 is served there and the node may use RADIO_CALL
    expect(loadConfig({ dataDir: tmpDir(), env: { RADIO_CALL: "N0GW-10", NODE_ALIAS: "GWNODE", FED_ENDPOINTS: "ax25:N0GW-5" } }).errors).toEqual([]);
    expect(loadConfig({ dataDir: tmpDir(), env: { NODE_ALIAS: "GWNODE" } }).errors.map((e) => e.setting)).toEqual(["NODE_ALIAS"]);
  });

  test("the env file in the data directory is read; the environment wins over it; flags win over both", () => {
    const dir = tmpDir();
    writeFileSync(
      join(dir, ENV_FILE_NAME),
      [
        "# operator settings",
        "INSTANCE=from-file",
        "export PORT=9000",
        'TILE_ATTRIBUTION="Tiles (c) me" # comment inside quotes stays',
        "HOST=127.0.0.1 # trailing comment",
        "TYPO_SETTING=1",
      ].join("\n"),
    );
    const r = loadConfig({ dataDir: dir, env: { INSTANCE: "from-env" } });
    expect(r.errors).toEqual([]);
    expect(r.config.instance).toBe("from-env");
    expect(r.config.port).toBe(9000);
    expect(r.config.host).toBe("127.0.0.1");
    expect(r.config.tileAttribution).toBe("Tiles (c) me");
    expect(r.warnings.map((w) => w.setting)).toContain("TYPO_SETTING");
    expect(loadConfig({ dataDir: dir, env: { PORT: "9001" }, flags: { port: "9002" } }).config.port).toBe(9002);
  });

  test("the configuration is frozen: ADMIN_CALLSIGNS cannot change at runtime", () => {
    const { config } = loadConfig({ dataDir: tmpDir(), env: { ADMIN_CALLSIGNS: "N0CALL" } });
    expect(() => {
      (config as unknown as { adminCallsigns: string[] }).adminCallsigns = ["EVIL"];
    }).toThrow();
    expect(() => (config.adminCallsigns as string[]).push("EVIL")).toThrow();
    expect(config.adminCallsigns).toEqual(["N0CALL"]);
  });

  test("TILE_URL=off turns tiles off; a template without {z}/{x}/{y} is refused", () => {
    expect(loadConfig({ dataDir: tmpDir(), env: { TILE_URL: "off" } }).config.tileUrl).toBe("");
    expect(loadConfig({ dataDir: tmpDir(), env: { TILE_URL: "https://tiles.example.org/x.png" } }).errors[0]?.setting).toBe("TILE_URL");
  });

  test("env file edits keep other lines and comments", () => {
    const dir = tmpDir();
    const f = join(dir, ENV_FILE_NAME);
    writeFileSync(f, "# keep me\nINSTANCE=old\nINGEST_SECRET=abcdefghijklmnopqrstu\n");
    updateEnvFile(f, { INSTANCE: "new-name", FED_OPERATOR: "N0CALL" });
    const text = readFileSync(f, "utf8");
    expect(text).toBe("# keep me\nINSTANCE=new-name\nINGEST_SECRET=abcdefghijklmnopqrstu\nFED_OPERATOR=N0CALL\n");
    expect(parseEnvFile(text).values.INSTANCE).toBe("new-name");
  });

  test("a line that is not KEY=VALUE is an error naming the line", () => {
    const dir = tmpDir();
    writeFileSync(join(dir, ENV_FILE_NAME), "INSTANCE=ok\nthis is not a setting\n");
    const r = loadConfig({ dataDir: dir, env: {} });
    expect(r.errors).toEqual([{ setting: `${ENV_FILE_NAME}:2`, message: "is not a KEY=VALUE line" }]);
  });
});
