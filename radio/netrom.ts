/**
 * NET/ROM NODES broadcasts: UI frames to `NODES` with PID 0xCF whose info is
 * 0xFF, the sending node's 6-character alias, then up to 11 routing entries of
 * 21 bytes (destination call, destination alias, best neighbour call, quality).
 * Calls are in AX.25 address form, aliases are space-padded ASCII.
 */
import { readAddress, writeAddress, type Ax25Address } from "./address.ts";
import { fail, ok, RadioError, type Result } from "./errors.ts";
import { PID_NETROM, uiFrame, type Ax25Frame } from "./frame.ts";

export interface NodesEntry {
  /** The node this route leads to. */
  dest: Ax25Address;
  /** Its alias (may be empty). */
  alias: string;
  /** The neighbour the route goes through. */
  neighbour: Ax25Address;
  /** Route quality, 0 (unusable) to 255. */
  quality: number;
}

export interface NodesBroadcast {
  /** Alias of the sending node. */
  alias: string;
  entries: NodesEntry[];
}

export const NODES_SIGNATURE = 0xff;
export const NODES_DEST: Ax25Address = { call: "NODES", ssid: 0 };
/** Entries per frame that keep the info field within 256 bytes. */
export const NODES_PER_FRAME = 11;
const ENTRY = 21;
/** Aliases this library emits (what operators configure). */
const EMIT_ALIAS = /^[A-Z0-9#_-]{1,6}$/;

function readAlias(buf: Uint8Array, at: number, what: string): Result<string> {
  let s = "";
  let padding = false;
  for (let i = 0; i < 6; i++) {
    const c = buf[at + i]!;
    if (c === 0x20) {
      padding = true;
      continue;
    }
    if (c < 0x21 || c > 0x7e || padding) return fail("netrom-bad-alias", `${what} alias has ${padding ? "a space inside" : `byte 0x${c.toString(16)}`}`);
    s += String.fromCharCode(c);
  }
  return ok(s);
}

/** Decodes the info field of a NODES broadcast. */
export function decodeNodes(info: Uint8Array): Result<NodesBroadcast> {
  if (info.length < 7 || info[0] !== NODES_SIGNATURE) return fail("netrom-not-nodes", "a NODES broadcast starts with 0xFF and a 6-byte alias");
  if ((info.length - 7) % ENTRY !== 0) return fail("netrom-bad-length", `${info.length} bytes is not 7 + 21 per entry`);
  const alias = readAlias(info, 1, "sender");
  if (!alias.ok) return alias;
  const entries: NodesEntry[] = [];
  for (let at = 7; at < info.length; at += ENTRY) {
    const n = entries.length + 1;
    const dest = readAddress(info, at);
    if (!dest.ok) return fail("netrom-bad-entry", `entry ${n}: destination: ${dest.error.message}`);
    const a = readAlias(info, at + 7, `entry ${n}`);
    if (!a.ok) return a;
    const nb = readAddress(info, at + 13);
    if (!nb.ok) return fail("netrom-bad-entry", `entry ${n}: neighbour: ${nb.error.message}`);
    entries.push({ dest: dest.value.address, alias: a.value, neighbour: nb.value.address, quality: info[at + 20]! });
  }
  return ok({ alias: alias.value, entries });
}

function writeAlias(out: Uint8Array, at: number, alias: string, allowEmpty: boolean) {
  if (!(EMIT_ALIAS.test(alias) || (allowEmpty && alias === ""))) throw new RadioError("netrom-bad-alias", `alias "${alias}" is not 1-6 of A-Z 0-9 # _ -`);
  for (let i = 0; i < 6; i++) out[at + i] = i < alias.length ? alias.charCodeAt(i) : 0x20;
}

/** Encodes a broadcast as info fields of at most 11 entries each (always at least one). */
export function encodeNodes(b: NodesBroadcast): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i === 0 || i < b.entries.length; i += NODES_PER_FRAME) {
    const chunk = b.entries.slice(i, i + NODES_PER_FRAME);
    const info = new Uint8Array(7 + chunk.length * ENTRY);
    info[0] = NODES_SIGNATURE;
    writeAlias(info, 1, b.alias, false);
    chunk.forEach((e, j) => {
      const at = 7 + j * ENTRY;
      if (!Number.isInteger(e.quality) || e.quality < 0 || e.quality > 255) throw new RadioError("netrom-bad-entry", `quality ${e.quality} is not 0-255`);
      writeAddress(info, at, { call: e.dest.call, ssid: e.dest.ssid }, false, false);
      writeAlias(info, at + 7, e.alias, true);
      writeAddress(info, at + 13, { call: e.neighbour.call, ssid: e.neighbour.ssid }, false, false);
      info[at + 20] = e.quality;
    });
    out.push(info);
  }
  return out;
}

/** True for a frame that claims to be a NODES broadcast (UI, PID 0xCF, to NODES). */
export const isNodesFrame = (f: Ax25Frame) => f.type === "UI" && f.pid === PID_NETROM && f.dest.call === NODES_DEST.call && f.dest.ssid === 0;

/** The UI frames that broadcast `b` from `src`. */
export function nodesFrames(src: Ax25Address, b: NodesBroadcast): Ax25Frame[] {
  return encodeNodes(b).map((info) => uiFrame({ dest: NODES_DEST, src, info, pid: PID_NETROM }));
}
