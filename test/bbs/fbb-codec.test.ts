/**
 * The FBB wire codecs on their own: LZHUF, compressed-message framing with
 * its checksum and CRC, telnet byte stuffing, proposal lines and the SID.
 * The oracle is real F6FBB output captured on this machine (fixtures/): a B1
 * message FBB sent and the proposal checksums it computed.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { join } from "node:path";
import { lzhufDecode, lzhufEncode, LzhufError } from "../../src/bbs/fbb/lzhuf.ts";
import { crc16, decompress, encodeCompressed, readCompressed } from "../../src/bbs/fbb/compressed.ts";
import { LinkClosed, LinkReader, MemoryLink, ProtocolError } from "../../src/bbs/fbb/link.ts";
import { TelnetDecoder, telnetEncode } from "../../src/bbs/fbb/tcp.ts";
import { blockEndMatches, checksumAdd, formatAnswers, formatBlockEnd, parseAnswers, parseProposal, parseSid } from "../../src/bbs/fbb/proposal.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder("latin1").decode(b);

/** A reader over fixed bytes, delivered in chunks of `chunk`. */
function readerOver(bytes: Uint8Array, chunk = 7): LinkReader {
  const link = new MemoryLink("test");
  for (let i = 0; i < bytes.length; i += chunk) link.push(bytes.slice(i, i + chunk));
  link.end();
  return new LinkReader(link, 1000);
}

const fixture = async () => new Uint8Array(await Bun.file(join(import.meta.dir, "fixtures/fbb-b1-message.bin")).arrayBuffer());

describe("LZHUF", () => {
  test("round-trips empty, tiny, text, binary, repetitive and large inputs", () => {
    const cases = [
      new Uint8Array(0),
      Uint8Array.of(65),
      enc("Hello gateway, this is a personal message.\r\n"),
      Uint8Array.from({ length: 256 }, (_, i) => i),
      new Uint8Array(5000).fill(0x61),
      enc("abcabcabcabc".repeat(3000)),
      Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7919 + (i >> 5)) & 0xff),
    ];
    for (const c of cases) {
      const z = lzhufEncode(c);
      expect(z.length).toBeLessThanOrEqual(4 + Math.ceil(c.length * 1.2) + 2);
      expect(Buffer.from(lzhufDecode(z, c.length)).equals(Buffer.from(c))).toBe(true);
    }
    // Compression actually compresses text.
    const text = enc("CQ CQ de N0GW. The quick brown fox jumps over the lazy dog. ".repeat(40));
    expect(lzhufEncode(text).length).toBeLessThan(text.length / 5);
  });

  test("round-trips arbitrary bytes (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (data) => {
        const back = lzhufDecode(lzhufEncode(data), data.length);
        return Buffer.from(back).equals(Buffer.from(data));
      }),
      { numRuns: 300 },
    );
  });

  test("round-trips skewed symbol frequencies that make Huffman codes longer than 16 bits", () => {
    // Fibonacci-distributed literals drive the adaptive tree as deep as it goes;
    // the 1988 encoder packs codes into 16 bits and would corrupt these.
    const fib = [1, 1];
    while (fib.length < 22) fib.push(fib[fib.length - 1]! + fib[fib.length - 2]!);
    const symbols: number[] = [];
    fib.forEach((n, s) => {
      for (let i = 0; i < n; i++) symbols.push(s * 11);
    });
    let seed = 12345;
    for (let i = symbols.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const j = seed % (i + 1);
      [symbols[i], symbols[j]] = [symbols[j]!, symbols[i]!];
    }
    const data = Uint8Array.from(symbols);
    expect(Buffer.from(lzhufDecode(lzhufEncode(data), data.length)).equals(Buffer.from(data))).toBe(true);
  });

  test("refuses hostile input with typed errors, never a hang", () => {
    const good = lzhufEncode(enc("some text that compresses, some text that compresses"));
    // Declared size above the cap: refused before any work.
    expect(() => lzhufDecode(good, 10)).toThrow(LzhufError);
    try {
      lzhufDecode(Uint8Array.of(0xff, 0xff, 0xff, 0x7f, 1, 2, 3), 1_000_000);
    } catch (e) {
      expect((e as LzhufError).code).toBe("too_large");
    }
    // Truncated streams.
    for (let cut = 0; cut < good.length - 1; cut++) {
      expect(() => lzhufDecode(good.subarray(0, cut), 1000)).toThrow(LzhufError);
    }
    // Random garbage: either decodes to exactly the declared size or throws LzhufError.
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 4, maxLength: 400 }), (junk) => {
        junk[2] = 0;
        junk[3] = 0;
        try {
          const out = lzhufDecode(junk, 70_000);
          return out.length === (junk[0]! | (junk[1]! << 8));
        } catch (e) {
          return e instanceof LzhufError;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("compressed messages (B and B1)", () => {
  test("decodes a B1 message real FBB sent, and our encoder reproduces FBB's bytes exactly", async () => {
    const raw = new TelnetDecoder().decode(await fixture());
    const m = await readCompressed(readerOver(raw), "b1", 10_000);
    expect(m.title).toBe("Test personal");
    const text = dec(m.text);
    expect(text).toStartWith("R:261121/2342Z @:N0FBB.#TST.USA.NOAM #:101 [Testville] $:101_N0FBB\r\n");
    expect(text).toEndWith("Hello gateway, this is a personal message.\r\n");
    // FBB's data: CRC-16 of the LZHUF stream, then the stream itself.
    const data = raw.subarray(raw.indexOf(2) + 2, raw.length - 2);
    expect(crc16(data.subarray(2))).toBe(data[0]! | (data[1]! << 8));
    expect(Buffer.from(lzhufEncode(m.text)).equals(Buffer.from(data.subarray(2)))).toBe(true);
  });

  test("round-trips our own framing in both versions, across many block boundaries", async () => {
    const text = Uint8Array.from({ length: 9000 }, (_, i) => 32 + ((i * 31) % 90));
    for (const v of ["b0", "b1"] as const) {
      const framed = encodeCompressed("A title with spaces", text, v);
      const m = await readCompressed(readerOver(framed, 13), v, 20_000);
      expect(m.title).toBe("A title with spaces");
      expect(Buffer.from(m.text).equals(Buffer.from(text))).toBe(true);
    }
  });

  test("broken compressed messages are refused whole", async () => {
    const text = enc("R:261122/0101Z @:N0GW.#TST.USA.NOAM #:1 [t] $:1_N0GW\n\nbody line\n".repeat(20));
    const good = encodeCompressed("t", text, "b1");
    const expectProtocol = async (bytes: Uint8Array, v: "b0" | "b1" = "b1", max = 10_000) => {
      let err: unknown = null;
      try {
        await readCompressed(readerOver(bytes), v, max);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ProtocolError);
      return (err as Error).message;
    };
    // A flipped data byte: the block checksum catches it.
    const flipped = good.slice();
    flipped[20] ^= 0x10;
    expect(await expectProtocol(flipped)).toContain("checksum");
    // A flipped byte with the checksum fixed up: the B1 CRC catches it.
    const forged = good.slice();
    forged[20] ^= 0x10;
    forged[forged.length - 1] = (forged[forged.length - 1]! - 0x10 * (good[20]! & 0x10 ? -1 : 1)) & 0xff;
    expect(await expectProtocol(forged)).toMatch(/CRC|checksum/);
    // Not starting with SOH; a bad header; a non-numeric or non-zero offset.
    expect(await expectProtocol(Uint8Array.of(0x41, 0x42))).toContain("SOH");
    expect(await expectProtocol(Uint8Array.of(1, 3, 0x41, 0x42, 0x43, 4, 0))).toContain("header");
    expect(await expectProtocol(Uint8Array.of(1, 4, 0x41, 0, 0x58, 0, 4, 0))).toContain("offset");
    expect(await expectProtocol(Uint8Array.of(1, 4, 0x41, 0, 0x35, 0, 4, 0))).toContain("resumed");
    // Garbage where a block should be.
    expect(await expectProtocol(Uint8Array.of(1, 4, 0x41, 0, 0x30, 0, 9, 9))).toContain("STX");
    // Larger than allowed once decompressed.
    expect(await expectProtocol(good, "b1", 100)).toMatch(/larger|more than/);
    // B0 data that is not a valid stream.
    const junk = Uint8Array.of(1, 4, 0x41, 0, 0x30, 0, 2, 6, 0xff, 0xff, 0xff, 0x7f, 1, 2, 4, -(0xff * 3 + 0x7f + 3) & 0xff);
    expect(await expectProtocol(junk, "b0")).toMatch(/declares|broken/);
    // The connection ending mid-message.
    let err: unknown = null;
    try {
      await readCompressed(readerOver(good.subarray(0, good.length - 10)), "b1", 10_000);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LinkClosed);
    expect(() => decompress(Uint8Array.of(1, 2, 3), "b1", 100)).toThrow(ProtocolError);
  });
});

describe("telnet stuffing", () => {
  test("0xFF doubles out and undoubles in; commands are dropped even split across chunks", () => {
    const data = Uint8Array.from({ length: 600 }, (_, i) => (i % 3 === 0 ? 0xff : i & 0xff));
    const wire = telnetEncode(data);
    expect(wire.length).toBe(data.length + data.filter((b) => b === 0xff).length);
    const d = new TelnetDecoder();
    const parts: number[] = [];
    for (let i = 0; i < wire.length; i += 5) parts.push(...d.decode(wire.subarray(i, i + 5)));
    expect(Buffer.from(parts).equals(Buffer.from(data))).toBe(true);
    // FBB's greeting starts with IAC WONT ECHO; a subnegotiation too.
    const d2 = new TelnetDecoder();
    const a = d2.decode(Uint8Array.of(0xff, 0xfc));
    const b = d2.decode(Uint8Array.of(0x01, 0x41, 0xff, 0xfa, 0x18, 0x01, 0xff));
    const c = d2.decode(Uint8Array.of(0xf0, 0x42));
    expect(dec(Uint8Array.from([...a, ...b, ...c]))).toBe("AB");
  });
});

describe("proposals, answers and SIDs", () => {
  test("checksums agree with what FBB sent", () => {
    // Seen on the wire from xfbbd 7.0.11.
    const vectors: Array<[string, string]> = [
      ["FB P N0SYS N0GW N0GW 101_N0FBB 43", "F> 06"],
      ["FA P N0SYS N0GW N0GW 101_N0FBB 43", "F> 07"],
      ["FA P N0SYS N0GW N0GW 102_N0FBB 97", "F> FD"],
      ["FB P N0SYS N0GW N0GW 102_N0FBB 97", "F> FC"],
    ];
    for (const [line, end] of vectors) {
      const sum = checksumAdd(0, line);
      expect(formatBlockEnd(sum)).toBe(end);
      expect(blockEndMatches(end, sum)).toBe(true);
      expect(blockEndMatches("F> 00", sum)).toBe(false);
      expect(blockEndMatches("F>", sum)).toBe(true);
    }
  });

  test("proposal lines parse strictly", () => {
    const ok = parseProposal("FB B N0SYS WW ALL 103_N0FBB 55");
    expect(ok).toEqual({ ok: true, proposal: { kind: "FB", type: "B", from: "N0SYS", at: "WW", to: "ALL", bid: "103_N0FBB", size: 55 } });
    expect(parseProposal("FA P N0SYS N0GW.#TST.USA.NOAM N0GW 7_N0FBB 12").ok).toBe(true);
    for (const bad of [
      "FB P N0SYS N0GW N0GW 101_N0FBB", // 6 fields
      "FB X N0SYS N0GW N0GW 101_N0FBB 43", // type
      "FB P N0SYS N0GW..USA N0GW 101_N0FBB 43", // empty element
      "FB P N0SYS N0GW N0GW 101_N0FBB_TOO_LONG 43", // BID over 12
      "FB P N0SYS N0GW NOTACALL 101_N0FBB 43", // P to a non-callsign
      "FB P N0SYS N0GW N0GW 101_N0FBB 4x3",
    ]) {
      expect(parseProposal(bad).ok).toBe(false);
    }
    const withBid = parseProposal("FB X N0SYS N0GW N0GW 101_N0FBB 43");
    expect(withBid.ok === false && withBid.bid).toBe("101_N0FBB");
  });

  test("answers: basic and extended letters, resume offsets, count must match", () => {
    expect(parseAnswers("FS +-=", 3)?.map((a) => a.answer)).toEqual(["accept", "reject", "defer"]);
    expect(parseAnswers("FS YNLRHE", 6)?.map((a) => a.answer)).toEqual(["accept", "reject", "defer", "refuse", "hold", "error"]);
    expect(parseAnswers("FS +!120-", 3)).toEqual([{ answer: "accept" }, { answer: "resume", offset: 120 }, { answer: "reject" }]);
    expect(parseAnswers("FS ++", 3)).toBeNull();
    expect(parseAnswers("FS +?", 2)).toBeNull();
    expect(parseAnswers("FQ", 1)).toBeNull();
    expect(formatAnswers(["accept", "reject", "defer", "refuse", "error"], false)).toBe("FS +-=--");
    expect(formatAnswers(["accept", "reject", "defer", "refuse", "error"], true)).toBe("FS +-=RE");
  });

  test("SIDs", () => {
    expect(parseSid("[FBB-7.0.11-AB1FHM$]")).toMatchObject({ name: "FBB", version: "7.0.11", fbb: true, b1: true, b0: true, bids: true });
    expect(parseSid("[FBB-7.0.11-AFHM$]")).toMatchObject({ fbb: true, b1: false, b0: false });
    expect(parseSid("[BPQ-6.0.23.1-B1FIHJM$]")).toMatchObject({ name: "BPQ", version: "6.0.23.1", b1: true });
    expect(parseSid("[RMS Express-1.5.9.0-B2FHM$]")).toBeNull();
    expect(parseSid("hello")).toBeNull();
  });
});
