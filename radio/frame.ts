/**
 * AX.25 v2.2 frames as KISS carries them (no flags, no FCS): destination,
 * source, up to 8 digipeaters, control, PID (I and UI frames) and info.
 */
import { checkAddress, readAddress, writeAddress, type Ax25Address } from "./address.ts";
import { fail, ok, RadioError, type Result } from "./errors.ts";

export interface Digipeater extends Ax25Address {
  /** The H bit: this digipeater has already repeated the frame. */
  repeated: boolean;
}

export type SFrameType = "RR" | "RNR" | "REJ" | "SREJ";
export type UFrameType = "SABM" | "SABME" | "UA" | "DM" | "DISC" | "FRMR" | "UI" | "XID" | "TEST";
export type FrameType = "I" | SFrameType | UFrameType;

/**
 * Command/response, from the C bits of destination and source: v2 frames are
 * commands (1,0) or responses (0,1); v1 frames have both bits equal.
 */
export type CommandResponse = "command" | "response" | "v1-00" | "v1-11";

export interface Ax25Frame {
  dest: Ax25Address;
  src: Ax25Address;
  path: Digipeater[];
  cr: CommandResponse;
  type: FrameType;
  /** The poll (commands) or final (responses) bit. */
  pf: boolean;
  /** N(S), I frames only. */
  ns?: number;
  /** N(R), I and S frames. */
  nr?: number;
  /** Layer-3 protocol id, I and UI frames: 0xF0 none (APRS), 0xCF NET/ROM. */
  pid?: number;
  /** Information field; empty for frames that carry none. */
  info: Uint8Array;
  /** 128 when the control field is the two-byte extended form (I and S frames). */
  modulo?: 8 | 128;
}

export const PID_NONE = 0xf0;
export const PID_NETROM = 0xcf;
export const MAX_DIGIS = 8;

const S_CODES: Record<SFrameType, number> = { RR: 0x01, RNR: 0x05, REJ: 0x09, SREJ: 0x0d };
const U_CODES: Record<UFrameType, number> = {
  SABME: 0x6f,
  SABM: 0x2f,
  DISC: 0x43,
  DM: 0x0f,
  UA: 0x63,
  FRMR: 0x87,
  UI: 0x03,
  XID: 0xaf,
  TEST: 0xe3,
};
const S_BY_CODE = new Map(Object.entries(S_CODES).map(([k, v]) => [v, k as SFrameType]));
const U_BY_CODE = new Map(Object.entries(U_CODES).map(([k, v]) => [v, k as UFrameType]));
/** U frames that may carry an information field. */
const U_WITH_INFO = new Set<FrameType>(["UI", "XID", "TEST", "FRMR"]);
const EMPTY = new Uint8Array(0);

export const isSFrame = (t: FrameType): t is SFrameType => t in S_CODES;
export const isUFrame = (t: FrameType): t is UFrameType => t in U_CODES;
export const hasPid = (t: FrameType) => t === "I" || t === "UI";

const CR_BITS: Record<CommandResponse, [boolean, boolean]> = {
  command: [true, false],
  response: [false, true],
  "v1-00": [false, false],
  "v1-11": [true, true],
};

/** Encodes a frame; throws RadioError if the frame cannot exist on the air. */
export function encodeFrame(f: Ax25Frame): Uint8Array {
  const path = f.path ?? [];
  if (path.length > MAX_DIGIS) throw new RadioError("ax25-too-many-digis", `${path.length} digipeaters; AX.25 allows ${MAX_DIGIS}`);
  const bits = CR_BITS[f.cr];
  if (!bits) throw new RadioError("ax25-bad-frame", `command/response "${f.cr}" is not one of ${Object.keys(CR_BITS).join(", ")}`);
  const control = encodeControl(f);
  const info = f.info ?? EMPTY;
  if (info.length && !(f.type === "I" || U_WITH_INFO.has(f.type)))
    throw new RadioError("ax25-unexpected-info", `a ${f.type} frame carries no information field`);
  const pid = hasPid(f.type) ? (f.pid ?? PID_NONE) : null;
  if (pid !== null && (!Number.isInteger(pid) || pid < 0 || pid > 255)) throw new RadioError("ax25-bad-frame", `PID ${pid} is not a byte`);
  checkAddress(f.dest);
  checkAddress(f.src);
  const n = 14 + path.length * 7;
  const out = new Uint8Array(n + control.length + (pid === null ? 0 : 1) + info.length);
  writeAddress(out, 0, f.dest, bits[0], false);
  writeAddress(out, 7, f.src, bits[1], path.length === 0);
  path.forEach((d, i) => writeAddress(out, 14 + i * 7, d, d.repeated === true, i === path.length - 1));
  out.set(control, n);
  let at = n + control.length;
  if (pid !== null) out[at++] = pid;
  out.set(info, at);
  return out;
}

function encodeControl(f: Ax25Frame): number[] {
  const mod = f.modulo ?? 8;
  if (mod !== 8 && mod !== 128) throw new RadioError("ax25-bad-frame", `modulo ${mod} is not 8 or 128`);
  const seq = (name: string, v: number | undefined) => {
    if (!Number.isInteger(v) || v! < 0 || v! >= mod) throw new RadioError("ax25-bad-frame", `${name} ${v} is not 0-${mod - 1}`);
    return v!;
  };
  const p = f.pf ? 1 : 0;
  if (f.type === "I") {
    const ns = seq("N(S)", f.ns);
    const nr = seq("N(R)", f.nr);
    return mod === 8 ? [(nr << 5) | (p << 4) | (ns << 1)] : [ns << 1, (nr << 1) | p];
  }
  if (isSFrame(f.type)) {
    const nr = seq("N(R)", f.nr);
    return mod === 8 ? [(nr << 5) | (p << 4) | S_CODES[f.type]] : [S_CODES[f.type], (nr << 1) | p];
  }
  if (isUFrame(f.type)) {
    if (f.modulo === 128) throw new RadioError("ax25-bad-frame", `a ${f.type} frame has a one-byte control field`);
    return [U_CODES[f.type] | (p << 4)];
  }
  throw new RadioError("ax25-bad-frame", `frame type "${f.type}" is not an AX.25 frame type`);
}

export interface DecodeOptions {
  /** Sequence-number modulo of the link the frame belongs to: 128 reads two-byte I and S control fields. */
  modulo?: 8 | 128;
}

/** Decodes an AX.25 frame (KISS payload). Never throws; malformed input gives a typed error. */
export function decodeFrame(buf: Uint8Array, opts: DecodeOptions = {}): Result<Ax25Frame> {
  if (!(buf instanceof Uint8Array)) return fail("ax25-too-short", "not a byte array");
  if (buf.length < 15) return fail("ax25-too-short", `${buf.length} bytes; a frame has at least 15`);
  const addrs: { address: Ax25Address; bit7: boolean }[] = [];
  let at = 0;
  for (;;) {
    if (at + 7 > buf.length) return fail("ax25-address-unterminated", "the address field has no last address");
    const r = readAddress(buf, at);
    if (!r.ok) return r;
    addrs.push(r.value);
    at += 7;
    if (r.value.last) break;
    if (addrs.length === 2 + MAX_DIGIS) return fail("ax25-too-many-digis", `more than ${MAX_DIGIS} digipeaters`);
  }
  if (addrs.length < 2) return fail("ax25-bad-address", "the address field has only one address");
  if (at >= buf.length) return fail("ax25-too-short", "no control field");
  const dc = addrs[0]!.bit7;
  const sc = addrs[1]!.bit7;
  const cr: CommandResponse = dc === sc ? (dc ? "v1-11" : "v1-00") : dc ? "command" : "response";
  const frame: Ax25Frame = {
    dest: addrs[0]!.address,
    src: addrs[1]!.address,
    path: addrs.slice(2).map((a) => ({ ...a.address, repeated: a.bit7 })),
    cr,
    type: "UI",
    pf: false,
    info: EMPTY,
  };
  const c = buf[at]!;
  const ext = opts.modulo === 128 && (c & 3) !== 3;
  if (ext && at + 1 >= buf.length) return fail("ax25-too-short", "the extended control field is one byte");
  const c2 = ext ? buf[at + 1]! : 0;
  at += ext ? 2 : 1;
  if ((c & 1) === 0) {
    frame.type = "I";
    if (ext) {
      frame.ns = c >> 1;
      frame.nr = c2 >> 1;
      frame.pf = (c2 & 1) === 1;
      frame.modulo = 128;
    } else {
      frame.ns = (c >> 1) & 7;
      frame.nr = c >> 5;
      frame.pf = (c & 0x10) !== 0;
    }
  } else if ((c & 3) === 1) {
    const t = S_BY_CODE.get(c & 0x0f);
    if (!t) return fail("ax25-bad-control", `control 0x${c.toString(16)} is no S frame`);
    frame.type = t;
    if (ext) {
      if (c & 0xf0) return fail("ax25-bad-control", `extended S control 0x${c.toString(16)} has bits set in its upper half`);
      frame.nr = c2 >> 1;
      frame.pf = (c2 & 1) === 1;
      frame.modulo = 128;
    } else {
      frame.nr = c >> 5;
      frame.pf = (c & 0x10) !== 0;
    }
  } else {
    const t = U_BY_CODE.get(c & ~0x10);
    if (!t) return fail("ax25-bad-control", `control 0x${c.toString(16)} is no U frame`);
    frame.type = t;
    frame.pf = (c & 0x10) !== 0;
  }
  if (hasPid(frame.type)) {
    if (at >= buf.length) return fail("ax25-missing-pid", `a ${frame.type} frame has no PID`);
    frame.pid = buf[at++]!;
  }
  if (at < buf.length) {
    if (!(frame.type === "I" || U_WITH_INFO.has(frame.type)))
      return fail("ax25-unexpected-info", `a ${frame.type} frame with ${buf.length - at} bytes of information`);
    frame.info = buf.slice(at);
  }
  return ok(frame);
}

/** An APRS-style UI frame: a command with PID 0xF0 unless given. */
export function uiFrame(opts: { dest: Ax25Address; src: Ax25Address; path?: Digipeater[]; info: Uint8Array; pid?: number }): Ax25Frame {
  return {
    dest: opts.dest,
    src: opts.src,
    path: opts.path ?? [],
    cr: "command",
    type: "UI",
    pf: false,
    pid: opts.pid ?? PID_NONE,
    info: opts.info,
  };
}

/** The path a reply takes: the received path reversed, none of it repeated yet. */
export function replyPath(path: Digipeater[]): Digipeater[] {
  return path
    .slice()
    .reverse()
    .map((d) => ({ call: d.call, ssid: d.ssid, repeated: false }));
}

/** True once every digipeater in the path has repeated the frame (or there are none). */
export const fullyRepeated = (f: Ax25Frame) => f.path.every((d) => d.repeated);
