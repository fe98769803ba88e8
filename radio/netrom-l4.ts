/**
 * NET/ROM network (layer 3) and transport (layer 4) packets, as NET/ROM
 * nodes exchange them in AX.25 I frames with PID 0xCF between neighbours:
 *
 *   origin node (7, AX.25 address form)  dest node (7)  TTL (1)
 *   circuit index (1)  circuit id (1)  b3 (1)  b4 (1)  opcode + flags (1)  data...
 *
 * | opcode | packet              | index, id        | b3, b4                 | data                                  |
 * |---|---|---|---|---|
 * | 1 | connect request    | the caller's     | 0, 0                   | window, user call (7), caller node (7), [timeout s (2, LE)] |
 * | 2 | connect ack        | the caller's     | the acceptor's index, id | window                               |
 * | 3 | disconnect request | the receiver's   | 0, 0                   |                                       |
 * | 4 | disconnect ack     | the receiver's   | 0, 0                   |                                       |
 * | 5 | info               | the receiver's   | tx seq, rx seq         | the bytes                             |
 * | 6 | info ack           | the receiver's   | 0, rx seq              |                                       |
 *
 * Flags in the opcode byte: 0x80 choke (busy; on a connect ack: refused),
 * 0x40 NAK (resend from rx seq), 0x20 more follows. Decoders never throw:
 * malformed input gives a typed error.
 */
import { readAddress, writeAddress, type Ax25Address } from "./address.ts";
import { fail, ok, type Result } from "./errors.ts";

export const NR_CHOKE = 0x80;
export const NR_NAK = 0x40;
export const NR_MORE = 0x20;
/** Header bytes: network 15 + transport 5. */
export const NR_HEADER = 20;
/** Info bytes per packet so a packet fits one 256-byte I frame. */
export const NR_MAX_INFO = 236;

export type NrTransport =
  | { op: "connect-request"; index: number; id: number; window: number; user: Ax25Address; node: Ax25Address; timeoutS?: number }
  | { op: "connect-ack"; index: number; id: number; myIndex: number; myId: number; window: number; refused: boolean }
  | { op: "disconnect-request"; index: number; id: number }
  | { op: "disconnect-ack"; index: number; id: number }
  | { op: "info"; index: number; id: number; txSeq: number; rxSeq: number; choke: boolean; nak: boolean; more: boolean; data: Uint8Array }
  | { op: "info-ack"; index: number; id: number; rxSeq: number; choke: boolean; nak: boolean };

export interface NetRomPacket {
  origin: Ax25Address;
  dest: Ax25Address;
  ttl: number;
  l4: NrTransport;
}

const OPS = { "connect-request": 1, "connect-ack": 2, "disconnect-request": 3, "disconnect-ack": 4, info: 5, "info-ack": 6 } as const;

const byte = (n: number, what: string) => {
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new RangeError(`${what} ${n} is not a byte`);
  return n;
};

/** Encodes a packet; throws RangeError / RadioError for values that cannot be sent. */
export function encodeNetRom(p: NetRomPacket): Uint8Array {
  const l4 = p.l4;
  let b3 = 0;
  let b4 = 0;
  let flags = 0;
  let data: Uint8Array = new Uint8Array(0);
  switch (l4.op) {
    case "connect-request": {
      data = new Uint8Array(l4.timeoutS === undefined ? 15 : 17);
      data[0] = byte(l4.window, "window");
      writeAddress(data, 1, { call: l4.user.call, ssid: l4.user.ssid }, false, false);
      writeAddress(data, 8, { call: l4.node.call, ssid: l4.node.ssid }, false, false);
      if (l4.timeoutS !== undefined) {
        data[15] = l4.timeoutS & 0xff;
        data[16] = (l4.timeoutS >> 8) & 0xff;
      }
      break;
    }
    case "connect-ack":
      b3 = byte(l4.myIndex, "index");
      b4 = byte(l4.myId, "id");
      if (l4.refused) flags |= NR_CHOKE;
      data = Uint8Array.of(byte(l4.window, "window"));
      break;
    case "info":
      b3 = byte(l4.txSeq, "tx seq");
      b4 = byte(l4.rxSeq, "rx seq");
      flags = (l4.choke ? NR_CHOKE : 0) | (l4.nak ? NR_NAK : 0) | (l4.more ? NR_MORE : 0);
      data = l4.data;
      break;
    case "info-ack":
      b4 = byte(l4.rxSeq, "rx seq");
      flags = (l4.choke ? NR_CHOKE : 0) | (l4.nak ? NR_NAK : 0);
      break;
  }
  const out = new Uint8Array(NR_HEADER + data.length);
  writeAddress(out, 0, { call: p.origin.call, ssid: p.origin.ssid }, false, false);
  writeAddress(out, 7, { call: p.dest.call, ssid: p.dest.ssid }, false, true);
  out[14] = byte(p.ttl, "ttl");
  out[15] = byte(l4.index, "index");
  out[16] = byte(l4.id, "id");
  out[17] = b3;
  out[18] = b4;
  out[19] = OPS[l4.op] | flags;
  out.set(data, NR_HEADER);
  return out;
}

/** Decodes a packet carried with PID 0xCF. */
export function decodeNetRom(buf: Uint8Array): Result<NetRomPacket> {
  if (!(buf instanceof Uint8Array) || buf.length < NR_HEADER)
    return fail("netrom-bad-packet", `${buf?.length ?? 0} bytes; a NET/ROM packet has at least ${NR_HEADER}`);
  const origin = readAddress(buf, 0);
  if (!origin.ok) return fail("netrom-bad-packet", `origin: ${origin.error.message}`);
  const dest = readAddress(buf, 7);
  if (!dest.ok) return fail("netrom-bad-packet", `destination: ${dest.error.message}`);
  const ttl = buf[14]!;
  const index = buf[15]!;
  const id = buf[16]!;
  const b3 = buf[17]!;
  const b4 = buf[18]!;
  const opByte = buf[19]!;
  const data = buf.subarray(NR_HEADER);
  const choke = (opByte & NR_CHOKE) !== 0;
  const nak = (opByte & NR_NAK) !== 0;
  const more = (opByte & NR_MORE) !== 0;
  let l4: NrTransport;
  switch (opByte & 0x0f) {
    case 1: {
      if (data.length !== 15 && data.length !== 17) return fail("netrom-bad-packet", `a connect request carries 15 or 17 bytes, not ${data.length}`);
      const user = readAddress(data, 1);
      const node = readAddress(data, 8);
      if (!user.ok || !node.ok) return fail("netrom-bad-packet", "a connect request's user or node call is not an AX.25 address");
      l4 = { op: "connect-request", index, id, window: data[0]!, user: user.value.address, node: node.value.address };
      if (data.length === 17) l4.timeoutS = data[15]! | (data[16]! << 8);
      break;
    }
    case 2:
      if (data.length < 1) return fail("netrom-bad-packet", "a connect ack carries the window");
      l4 = { op: "connect-ack", index, id, myIndex: b3, myId: b4, window: data[0]!, refused: choke };
      break;
    case 3:
      l4 = { op: "disconnect-request", index, id };
      break;
    case 4:
      l4 = { op: "disconnect-ack", index, id };
      break;
    case 5:
      l4 = { op: "info", index, id, txSeq: b3, rxSeq: b4, choke, nak, more, data: data.slice() };
      break;
    case 6:
      l4 = { op: "info-ack", index, id, rxSeq: b4, choke, nak };
      break;
    default:
      return fail("netrom-unknown-op", `transport opcode ${opByte & 0x0f} is not one this node speaks`);
  }
  return ok({ origin: origin.value.address, dest: dest.value.address, ttl, l4 });
}
