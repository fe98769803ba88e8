/**
 * One message in FBB compressed forwarding (B and B1), YAPP-derived framing:
 *
 *   SOH len title NUL offset NUL       header (len counts title, offset and both NULs)
 *   STX n data[n]  ...                 blocks of 1-256 bytes (n = 0 means 256)
 *   EOT checksum                       two's complement of the sum of all data bytes
 *
 * The data is the LZHUF stream (4-byte length + code); B1 puts the CRC-16
 * (XMODEM) of that stream, little-endian, in front of it.
 */
import { lzhufDecode, lzhufEncode, LzhufError } from "./lzhuf.ts";
import { fromLatin1, latin1, type LinkReader, ProtocolError } from "./link.ts";

const SOH = 1;
const STX = 2;
const EOT = 4;

export type CompressionVersion = "b0" | "b1";

const CRC_TABLE = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let c = i << 8;
  for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
  CRC_TABLE[i] = c;
}

/** CRC-16/XMODEM (polynomial 0x1021, initial 0). */
export function crc16(data: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < data.length; i++) crc = (CRC_TABLE[((crc >>> 8) ^ data[i]!) & 0xff]! ^ (crc << 8)) & 0xffff;
  return crc;
}

/** The framed bytes of one compressed message. */
export function encodeCompressed(title: string, text: Uint8Array, version: CompressionVersion, blockSize = 250): Uint8Array {
  const stream = lzhufEncode(text);
  let data = stream;
  if (version === "b1") {
    const crc = crc16(stream);
    data = new Uint8Array(stream.length + 2);
    data[0] = crc & 0xff;
    data[1] = crc >>> 8;
    data.set(stream, 2);
  }
  const t = fromLatin1(title.slice(0, 80));
  const offset = fromLatin1("0");
  const out: number[] = [SOH, t.length + offset.length + 2, ...t, 0, ...offset, 0];
  let sum = 0;
  for (let i = 0; i < data.length; i += blockSize) {
    const chunk = data.subarray(i, i + blockSize);
    out.push(STX, chunk.length & 0xff);
    for (const b of chunk) {
      out.push(b);
      sum += b;
    }
  }
  out.push(EOT, -sum & 0xff);
  return Uint8Array.from(out);
}

export interface CompressedMessage {
  title: string;
  /** the uncompressed message text */
  text: Uint8Array;
}

/**
 * Reads one compressed message from the link and decompresses it. Anything
 * malformed (framing, checksum, CRC, a stream that decodes wrong or to more
 * than `maxBytes`) is a ProtocolError; nothing of it is kept.
 */
export async function readCompressed(reader: LinkReader, version: CompressionVersion, maxBytes: number): Promise<CompressedMessage> {
  const first = await reader.readByte();
  if (first !== SOH) {
    throw new ProtocolError(`expected the start of a compressed message (SOH), got byte ${first}`);
  }
  const headerLen = await reader.readByte();
  const header = await reader.readExact(headerLen);
  const nul1 = header.indexOf(0);
  const nul2 = nul1 < 0 ? -1 : header.indexOf(0, nul1 + 1);
  if (nul1 < 1 || nul2 !== header.length - 1) throw new ProtocolError("the compressed message header is malformed");
  const title = latin1(header.subarray(0, nul1));
  const offset = latin1(header.subarray(nul1 + 1, nul2)).trim();
  if (!/^\d{1,6}$/.test(offset)) throw new ProtocolError(`the compressed message offset "${offset}" is not a number`);
  if (Number(offset) !== 0) throw new ProtocolError("a resumed (offset) transfer was not asked for");
  // LZHUF never grows text by more than 1/8 plus its header; allow slack.
  const maxData = Math.ceil(maxBytes * 1.2) + 64;
  const chunks: Uint8Array[] = [];
  let total = 0;
  let sum = 0;
  for (;;) {
    const kind = await reader.readByte();
    if (kind === STX) {
      const n = (await reader.readByte()) || 256;
      const chunk = await reader.readExact(n);
      total += n;
      if (total > maxData) throw new ProtocolError(`the compressed message is larger than ${maxData} bytes`);
      for (const b of chunk) sum += b;
      chunks.push(chunk);
    } else if (kind === EOT) {
      const check = await reader.readByte();
      if (((sum + check) & 0xff) !== 0) throw new ProtocolError("checksum error in the compressed message");
      break;
    } else {
      throw new ProtocolError(`expected a data block (STX) or the end (EOT), got byte ${kind}`);
    }
  }
  const data = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    data.set(c, off);
    off += c.length;
  }
  return { title, text: decompress(data, version, maxBytes) };
}

/** The data of a compressed message back to text; throws ProtocolError. */
export function decompress(data: Uint8Array, version: CompressionVersion, maxBytes: number): Uint8Array {
  let stream = data;
  if (version === "b1") {
    if (data.length < 6) throw new ProtocolError("the compressed message is too short");
    const crc = data[0]! | (data[1]! << 8);
    stream = data.subarray(2);
    if (crc16(stream) !== crc) throw new ProtocolError("CRC error in the compressed message");
  }
  try {
    return lzhufDecode(stream, maxBytes);
  } catch (e) {
    if (e instanceof LzhufError) throw new ProtocolError(e.code === "too_large" ? e.message : `the compressed message is broken: ${e.message}`);
    throw e;
  }
}
