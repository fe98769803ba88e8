/**
 * The command line: serve (default), keygen, check, --help, --version.
 * Thin: it turns flags and the environment into a Config and hands over.
 */
import { parseArgs } from "node:util";
import { dirname, join, resolve } from "node:path";
import { accessSync, constants, mkdirSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { loadConfig, SETTINGS, ENV_FILE_NAME, type LoadedConfig } from "../core/config.ts";
import { generateKeyPair } from "../lib/fed/keys.ts";
import { buildInfo, isCompiled } from "../lib/version.ts";
import { startGateway } from "./gateway.ts";
import { ListenError, TlsSetupError } from "../lib/errors.ts";
import { RunLockHeldError } from "../core/store/run-lock.ts";
import { SchemaError } from "../core/store/migrate.ts";
import { createLogger } from "../lib/log.ts";
import type { HttpHost } from "../http/host.ts";
import { extraCommands } from "./cli-commands.ts";
import { boxCommand } from "../box/cli.ts";
import { setupToken } from "../system/setup.ts";
import { dataArchives, EMBEDDED_NAME, tilesDir } from "../tiles/archives.ts";

type Out = (line: string) => void;

const USAGE = `svc-gateway: a federated geocaching gateway for amateur radio

Usage:
  svc-gateway [serve] [--data DIR] [--port N] [--host ADDR]   start the gateway (default)
  svc-gateway keygen                                          print a new federation signing key
  svc-gateway check [--data DIR]                              validate the configuration
  svc-gateway callsign list|verify CALL [ACCOUNT] [--data DIR] the operator verifies a callsign by hand
  svc-gateway frame verify < frame.cbor                       check one signed frame, print its payload
  svc-gateway frame decode < page.cbor                        check every frame of a sync page
  svc-gateway key show|rotate [revoke] [--data DIR]           signing keys; hand over to a new key
  svc-gateway relay token SPOKE [--data DIR]                  a hub's per-spoke relay token
  svc-gateway backup FILE [--data DIR]                        copy the database, also while the gateway runs
  svc-gateway restore FILE [--data DIR]                       put a copy back (stop the gateway first)
  svc-gateway box --gateway URL [--id ID] [--data DIR]        be the radio box of a gateway hosted elsewhere
  svc-gateway --version | --help

Options:
  --data DIR    data directory (database, ${ENV_FILE_NAME}); also SVC_DATA.
                Default: svc-data/ beside the executable
  --port N      HTTP port (default 8080); also PORT
  --host ADDR   listen address (default 0.0.0.0, the whole LAN); also HOST

Settings come from the environment or from ${ENV_FILE_NAME} in the data directory:
`;

function defaultDataDir(): string {
  if (isCompiled) return join(dirname(process.execPath), "svc-data");
  return resolve(import.meta.dir, "..", "svc-data");
}

/** `host`: the runtime that serves (src/hosts/), picked by the entry point; Bun's by default. */
export async function runCli(argv: string[], out: Out = (l) => console.log(l), err: Out = (l) => console.error(l), host?: HttpHost): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        data: { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        gateway: { type: "string" },
        id: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    });
  } catch (e) {
    err(`svc-gateway: ${(e as Error).message}\nRun svc-gateway --help for usage.`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(USAGE + SETTINGS.map((s) => `  ${s.env.padEnd(24)}${s.doc}`).join("\n"));
    return 0;
  }
  if (values.version) {
    const b = buildInfo();
    out(`svc-gateway ${b.version}${b.commit ? ` (${b.commit.slice(0, 12)})` : ""}`);
    return 0;
  }
  const command = positionals[0] ?? "serve";
  const dataDir = resolve(values.data ?? process.env.SVC_DATA ?? defaultDataDir());
  const load = () => loadConfig({ dataDir, env: process.env, flags: { port: values.port, host: values.host } });

  // Files and folders the gateway makes are its operator's alone, whatever the umask (0600 and 0700).
  process.umask(0o077);
  try {
    return await runCommand(command, positionals, values, dataDir, load, out, err, host);
  } catch (e) {
    // one line for the operator; the stack only when asked for (LOG_LEVEL=debug)
    if (e instanceof RunLockHeldError) {
      err(`svc-gateway ${command}: ${e.message}; stop it first (e.g. systemctl stop svc-gateway), then run this again`);
    } else {
      err(`svc-gateway ${command}: ${(e as Error).message ?? String(e)}`);
      if (process.env.LOG_LEVEL === "debug") err(String((e as Error).stack));
    }
    return 1;
  }
}

async function runCommand(
  command: string,
  positionals: string[],
  values: { gateway?: string; id?: string },
  dataDir: string,
  load: () => LoadedConfig,
  out: Out,
  err: Out,
  host: HttpHost | undefined,
): Promise<number> {
  // start-up is over once a command begins; for serve, once its cron is armed (startGateway)
  if (command !== "serve") host?.startedUp?.();
  switch (command) {
    case "serve":
      return serve(load(), out, err, host);
    case "keygen": {
      const kp = generateKeyPair();
      out(`FED_PRIVATE_KEY=${kp.privateKey}`);
      out(`FED_PUBLIC_KEY=${kp.publicKey}`);
      return 0;
    }
    case "check":
      return check(load(), out, err);
    case "box":
      return boxCommand(load(), { gateway: values.gateway, id: values.id }, out, err);
    default: {
      const extra = extraCommands[command];
      if (extra) return extra(positionals.slice(1), out, err, { dataDir, loadConfig: load });
      err(`svc-gateway: unknown command "${command}". Run svc-gateway --help for usage.`);
      return 2;
    }
  }
}

function report(loaded: LoadedConfig, err: Out): boolean {
  for (const w of loaded.warnings) err(`warning: ${w.setting} ${w.message}`);
  for (const e of loaded.errors) err(`error: ${e.setting} ${e.message}`);
  return loaded.errors.length === 0;
}

function check(loaded: LoadedConfig, out: Out, err: Out): number {
  let good = report(loaded, err);
  try {
    mkdirSync(loaded.config.dataDir, { recursive: true });
    accessSync(loaded.config.dataDir, constants.W_OK);
  } catch {
    err(`error: data directory ${loaded.config.dataDir} is not writable`);
    good = false;
  }
  if (!good) {
    err(`configuration has problems (env file: ${loaded.envFile ?? "none"})`);
    return 1;
  }
  const c = loaded.config;
  out(`configuration OK`);
  out(`  data directory   ${c.dataDir}${loaded.envFile ? ` (settings from ${ENV_FILE_NAME} too)` : ""}`);
  out(`  listens on       ${c.host}:${c.port}`);
  out(`  instance         ${c.instance} (${c.fedPrivateKey ? "signed" : "unsigned: no federation sync surface"})`);
  out(`  operator surface ${c.adminCallsigns.length ? c.adminCallsigns.join(", ") : "locked (ADMIN_CALLSIGNS unset)"}`);
  out(`  ingest box       ${c.ingestSecret ? "enabled" : "disabled (INGEST_SECRET unset)"}`);
  out(`  peers            ${c.fedPeers.length}`);
  mapArchives(c.dataDir, out, err);
  return 0;
}

/** The map archives the gateway will serve; files it cannot use are warnings, not errors. */
function mapArchives(dataDir: string, out: Out, err: Out): void {
  const embedded = isCompiled && Bun.embeddedFiles.some((f) => (f as Blob & { name: string }).name === EMBEDDED_NAME);
  const { archives, skipped } = dataArchives(dataDir);
  const world = archives.some((a) => a.name === "world")
    ? "replaced by world.pmtiles below"
    : `built-in world basemap, zoom 0-6${embedded ? "" : " (built from this checkout on first use)"}`;
  out(`  map archives     ${world}`);
  for (const a of archives) {
    out(
      `    ${(a.name + ".pmtiles").padEnd(22)} ${a.type} ${a.format}, zoom ${a.minZoom}-${a.maxZoom}, bounds ${a.bounds.join(",")} (W,S,E,N), ${(a.bytes / 1e6).toFixed(1)} MB`,
    );
  }
  if (archives.length === 0) out(`    (none in ${tilesDir(dataDir)})`);
  for (const s of skipped) err(`warning: ${join(tilesDir(dataDir), s.file)} is not served: ${s.reason}`);
}

async function serve(loaded: LoadedConfig, out: Out, err: Out, host: HttpHost | undefined): Promise<number> {
  if (!report(loaded, err)) {
    err("svc-gateway: not starting until the settings above are fixed (svc-gateway check shows them again)");
    return 1;
  }
  const config = loaded.config;
  const log = createLogger(config.logLevel);
  let gw;
  try {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    gw = await startGateway({ config, log, host });
  } catch (e) {
    if (e instanceof SchemaError || e instanceof ListenError || e instanceof TlsSetupError) {
      err(`svc-gateway: ${e.message}`);
      return 1;
    }
    if (e instanceof RunLockHeldError) {
      err(`svc-gateway: ${e.message}; not starting a second gateway on it (stop that one, or give this one another --data DIR)`);
      return 1;
    }
    throw e;
  }
  // with TLS on, browsers open the HTTPS address; plain http serves machine clients and /tls (src/tls/)
  const web = gw.httpsUrl ? new URL(gw.httpsUrl) : new URL(gw.url!);
  out(`svc-gateway ${buildInfo().version} is running. Open ${web.origin}/ in your browser.`);
  if (config.host === "0.0.0.0" || config.host === "::") {
    for (const addr of lanAddresses()) out(`  on your network: ${web.protocol}//${addr}${web.port ? `:${web.port}` : ""}/`);
  }
  if (gw.httpsUrl) out(`  plain http (machine clients; devices trust the certificate from /tls): ${gw.url}/`);
  out(`  data: ${config.dataDir}`);
  const token = setupToken(gw);
  if (token) out(`First start: set this gateway up at ${web.origin}/setup#${token}`);
  const stop = async (signal: string) => {
    log.info("main", `${signal}: stopping`);
    await gw.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  await new Promise(() => {});
  return 0;
}

function lanAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) out.push(a.address);
  }
  return out;
}
