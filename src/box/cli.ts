/**
 * `svc-gateway box --gateway URL [--id ID] [--data DIR]`: this executable as
 * the radio box of a gateway hosted elsewhere (remote.ts). It reads the radio
 * settings (KISS_PORTS, RADIO_CALL, RADIO_PATH, RADIO_TX_PER_MINUTE) and
 * INGEST_SECRET (the hosted gateway's) from the environment or the data
 * directory's env file, opens no database and listens on no port.
 */
import { tcpConnect } from "../lib/net/tcp.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { LoadedConfig } from "../core/config.ts";
import { createLogger } from "../lib/log.ts";
import { Radio } from "../../radio/index.ts";
import { RemoteBox } from "./remote.ts";

type Out = (line: string) => void;

const BOX_USAGE = "usage: svc-gateway box --gateway URL [--id ID] [--data DIR]   (INGEST_SECRET and KISS_PORTS in the environment or env file)";

export async function boxCommand(loaded: LoadedConfig, opts: { gateway?: string; id?: string }, out: Out, err: Out): Promise<number> {
  const c = loaded.config;
  const problems: string[] = [];
  let gateway: URL | null = null;
  try {
    gateway = new URL(opts.gateway ?? "");
    if (gateway.protocol !== "https:" && gateway.protocol !== "http:") problems.push("--gateway must be an http(s) URL");
  } catch {
    problems.push("--gateway URL is required: the hosted gateway this box carries the radio for");
  }
  const id = opts.id ?? "box";
  if (!/^[a-z0-9][a-z0-9_-]{0,31}$/.test(id)) problems.push("--id is a box id: lower-case letters, digits, - and _, up to 32");
  if (!c.ingestSecret) problems.push("INGEST_SECRET is not set: it must be the hosted gateway's ingest secret");
  if (!c.kissPorts.length) problems.push("KISS_PORTS is off: a box needs a TNC (tcp://HOST:PORT or serial:PATH)");
  for (const e of loaded.errors) problems.push(`${e.setting} ${e.message}`);
  if (problems.length) {
    for (const p of problems) err(`error: ${p}`);
    err(BOX_USAGE);
    return 2;
  }
  const log = createLogger(c.logLevel);
  mkdirSync(c.dataDir, { recursive: true });
  // a box carries APRS only: it answers no connection (SVCL1, NET/ROM and BBS circuits are the gateway's own radio's)
  const radio = new Radio({
    ports: c.kissPorts,
    call: c.radioCall,
    accept: () => false,
    log: (level, message, data) => log[level]("radio", message, data),
    port: { connect: tcpConnect },
  }).start();
  const box = new RemoteBox({
    gateway: gateway!.href,
    secret: c.ingestSecret!,
    id,
    radio,
    call: c.radioCall,
    path: c.radioPath,
    txPerMinute: c.radioTxPerMinute,
    spoolFile: join(c.dataDir, `box-${id}.spool`),
    log,
  }).start();
  out(`svc-gateway box "${id}" carries the radio (${radio.ports.map((p) => p.id).join(", ")}) for ${gateway!.origin}`);
  // Say when each TNC link comes up or drops (a port keeps retrying by itself; the box runs meanwhile).
  const up = new Map<string, boolean>();
  const watch = setInterval(() => {
    for (const p of radio.status()) {
      if (p.connected === (up.get(p.id) ?? false)) continue;
      up.set(p.id, p.connected);
      out(p.connected ? `TNC ${p.id} connected` : `TNC ${p.id} lost: ${p.lastError ?? "disconnected"}; trying again`);
    }
  }, 250);
  const stop = async (signal: string) => {
    log.info("box", `${signal}: stopping`);
    clearInterval(watch);
    await box.stop();
    await radio.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  await new Promise(() => {});
  return 0;
}
