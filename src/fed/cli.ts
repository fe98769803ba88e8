/**
 * Operators' federation tools:
 *
 *   svc-gateway frame verify < frame.cbor    one raw CBOR frame on stdin: checks canonical form
 *                                             and the signature under the frame's own signerKey,
 *                                             prints the payload as JSON (exit 0) or the error
 *                                             code (exit 1)
 *   svc-gateway frame decode < page.cbor     the same for every frame of a sync page, one verdict a line
 *   svc-gateway key show [--data DIR]        this instance's signing keys and rotations
 *   svc-gateway key rotate [revoke] [--data DIR]
 *                                             a new signing key, handed over by a rotation record
 *                                             signed with the current one ("revoke": the old key
 *                                             leaked and must no longer be accepted); written to
 *                                             the env file. Stop the gateway first, start it after.
 *   svc-gateway relay token SPOKE [--data DIR]
 *                                             the per-spoke relay token a hub (FED_RELAY_SECRET)
 *                                             hands to a spoke (its FED_RELAY_TOKEN)
 */
import { createGateway } from "../hosts/gateway.ts";
import { createLogger } from "../lib/log.ts";
import { ENV_FILE_NAME, updateEnvFile } from "../core/config.ts";
import { join } from "node:path";
import type { CommandContext } from "../hosts/command.ts";
import { generateKeyPair, publicKeyFromSeed, signRotation } from "../lib/fed/keys.ts";
import { openFrame, payloadJson } from "../lib/fed/record.ts";
import { decodePage } from "../lib/fed/page.ts";
import { RecordError } from "../lib/fed/record.ts";
import { ownKeys } from "./descriptor.ts";
import { DB_FILE_NAME, openStoreReadOnly } from "../core/store/db.ts";
import { relayToken } from "./relay.ts";
import { isInstanceId } from "../lib/fed/record.ts";

type Out = (line: string) => void;

async function readStdin(): Promise<Uint8Array> {
  // process.stdin rather than Bun.stdin: the same command runs on Node
  const chunks: Uint8Array[] = [];
  for await (const c of process.stdin) chunks.push(c as Uint8Array);
  return new Uint8Array(Buffer.concat(chunks));
}

const FRAME_USAGE = "usage: svc-gateway frame verify < frame.cbor\n       svc-gateway frame decode < page.cbor";

export async function frameCommand(args: string[], out: Out, err: Out): Promise<number> {
  const sub = args[0];
  if ((sub !== "verify" && sub !== "decode") || args.length > 1) {
    err(FRAME_USAGE);
    return 2;
  }
  const bytes = await readStdin();
  if (sub === "verify") {
    const o = await openFrame(bytes);
    if (!o.ok) {
      out(`${o.code}: ${o.message}`);
      return 1;
    }
    out(JSON.stringify({ ...payloadJson(o.payload), signerKey: o.frame.signerKey }, null, 2));
    return 0;
  }
  let frames: Uint8Array[];
  try {
    const page = decodePage(bytes);
    frames = page.frames;
    out(
      `page: ${frames.length} frames, next ${page.next}, more ${page.more}${page.type !== undefined ? `, type ${page.type}` : ""}${page.instance !== undefined ? `, from ${page.instance} (claimed)` : ""}`,
    );
  } catch (e) {
    if (e instanceof RecordError) {
      out(`${e.code}: ${e.message}`);
      return 1;
    }
    throw e;
  }
  let bad = 0;
  for (const [i, f] of frames.entries()) {
    const o = await openFrame(f);
    if (o.ok) out(`#${i} ok ${payloadJson(o.payload).kind} ${o.payload.gid} v${o.payload.v} at ${o.payload.at} key ${o.frame.signerKey}`);
    else {
      bad++;
      out(`#${i} ${o.code}${o.payload ? ` ${o.payload.gid}` : ""}: ${o.message}`);
    }
  }
  out(`${frames.length - bad} good, ${bad} bad`);
  return bad ? 1 : 0;
}

const KEY_USAGE = "usage: svc-gateway key show [--data DIR]\n       svc-gateway key rotate [revoke] [--data DIR]";

export async function keyCommand(args: string[], out: Out, err: Out, ctx: CommandContext): Promise<number> {
  const [sub, flag] = args;
  if (!(sub === "show" && args.length === 1) && !(sub === "rotate" && (flag === undefined || flag === "revoke") && args.length <= 2)) {
    err(KEY_USAGE);
    return 2;
  }
  const loaded = ctx.loadConfig();
  for (const e of loaded.errors) err(`error: ${e.setting} ${e.message}`);
  if (loaded.errors.length) return 1;
  const config = loaded.config;
  if (sub === "show") {
    // only reads: works while the gateway runs
    const db = openStoreReadOnly(join(config.dataDir, DB_FILE_NAME));
    try {
      const { keys, rotations } = db ? ownKeys({ db }) : { keys: [], rotations: [] };
      if (!keys.length) out(`${config.instance} is unsigned (no FED_PRIVATE_KEY)`);
      for (const k of keys)
        out(
          `${k.key}  ${k.status}  since ${new Date(k.since * 1000).toISOString()}${config.fedPrivateKey && publicKeyFromSeed(config.fedPrivateKey) === k.key ? "  (signing)" : ""}`,
        );
      for (const r of rotations) out(`rotation ${r.from} -> ${r.to}${r.revoke ? " (revoked the old key)" : ""} at ${new Date(r.at * 1000).toISOString()}`);
      return 0;
    } finally {
      db?.close();
    }
  }
  // writes: takes the run lock, so it refuses while a gateway serves the directory
  const gw = createGateway({ config, log: createLogger("warn") });
  try {
    if (!config.fedPrivateKey) {
      err("svc-gateway key rotate: this instance has no FED_PRIVATE_KEY to rotate from (svc-gateway keygen makes a first one)");
      return 1;
    }
    const revoke = flag === "revoke";
    const next = generateKeyPair();
    const rotation = signRotation(config.fedPrivateKey, config.instance, next.publicKey, revoke, Math.floor(gw.clock.now() / 1000));
    gw.db.transaction(() => {
      gw.db
        .query("INSERT INTO fed_own_keys (public_key, status, since, rotation) VALUES (?, 'active', ?, ?)")
        .run(next.publicKey, rotation.at, JSON.stringify(rotation));
      if (revoke) gw.db.query("UPDATE fed_own_keys SET status = 'revoked' WHERE public_key = ?").run(rotation.from);
    })();
    out(`rotated ${rotation.from} -> ${next.publicKey}${revoke ? " (the old key is revoked)" : ""}`);
    if (process.env.FED_PRIVATE_KEY) {
      out("FED_PRIVATE_KEY comes from the environment: set it to the new key there, then restart the gateway:");
      out(`FED_PRIVATE_KEY=${next.privateKey}`);
      out(`FED_PUBLIC_KEY=${next.publicKey}`);
    } else {
      const file = join(config.dataDir, ENV_FILE_NAME);
      updateEnvFile(file, { FED_PRIVATE_KEY: next.privateKey, ...(config.fedPublicKey ? { FED_PUBLIC_KEY: next.publicKey } : {}) });
      out(`the new key is in ${file}; restart the gateway to sign with it (it re-signs its feed on start)`);
    }
    return 0;
  } finally {
    await gw.stop();
  }
}

const RELAY_USAGE = "usage: svc-gateway relay token SPOKE [--data DIR]";

/** `svc-gateway relay token SPOKE`: the spoke's FED_RELAY_TOKEN, from this hub's FED_RELAY_SECRET. */
export function relayCommand(args: string[], out: Out, err: Out, ctx: CommandContext): number {
  const [sub, spoke] = args;
  if (sub !== "token" || !spoke || args.length !== 2) {
    err(RELAY_USAGE);
    return 2;
  }
  if (!isInstanceId(spoke)) {
    err(`svc-gateway relay token: "${spoke}" is not an instance id`);
    return 2;
  }
  const loaded = ctx.loadConfig();
  for (const e of loaded.errors) err(`error: ${e.setting} ${e.message}`);
  if (loaded.errors.length) return 1;
  if (!loaded.config.fedRelaySecret) {
    err("svc-gateway relay token: FED_RELAY_SECRET is not set on this hub");
    return 1;
  }
  out(`FED_RELAY_TOKEN=${relayToken(loaded.config.fedRelaySecret, spoke)}`);
  return 0;
}
