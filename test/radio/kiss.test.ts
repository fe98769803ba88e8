import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { encodeKiss, encodeKissParams, FEND, FESC, KissDecoder, TFEND, TFESC } from "../../radio/kiss.ts";

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));

describe("KISS framing", () => {
  test("FEND and FESC inside a frame are escaped; the type byte carries the port", () => {
    const f = encodeKiss(Uint8Array.of(1, FEND, 2, FESC, 3), 5);
    expect([...f]).toEqual([FEND, 0x50, 1, FESC, TFEND, 2, FESC, TFESC, 3, FEND]);
  });

  test("a frame Direwolf put out decodes to its AX.25 bytes (escapes undone)", () => {
    // captured from direwolf 1.6's KISS TCP port: N0GW-1>APRS,WIDE2-2:>hello \xC0\xDB there
    const wire = hex("c00082a0a4a64040e09c608eae404062ae92888a64406503f03e68656c6c6f20dbdcdbdd207468657265c0");
    const [r] = new KissDecoder().push(wire);
    expect(r!.ok).toBe(true);
    if (!r!.ok) return;
    expect(r.value.port).toBe(0);
    expect(r.value.command).toBe("data");
    expect(Buffer.from(r.value.data).toString("latin1").endsWith(">hello \xc0\xdb there")).toBe(true);
    expect(encodeKiss(r.value.data)).toEqual(wire);
  });

  test("TNC parameter commands: TXDELAY, PERSIST, SLOTTIME, TXTAIL, FULLDUPLEX", () => {
    const frames = encodeKissParams({ txDelay: 30, persistence: 63, slotTime: 10, txTail: 2, fullDuplex: true }, 1);
    expect(frames.map((f) => [...f])).toEqual([
      [FEND, 0x11, 30, FEND],
      [FEND, 0x12, 63, FEND],
      [FEND, 0x13, 10, FEND],
      [FEND, 0x14, 2, FEND],
      [FEND, 0x15, 1, FEND],
    ]);
    const d = new KissDecoder();
    const out = frames.flatMap((f) => d.push(f));
    expect(out.map((r) => r.ok && [r.value.port, r.value.command, r.value.data[0]])).toEqual([
      [1, "txDelay", 30],
      [1, "persistence", 63],
      [1, "slotTime", 10],
      [1, "txTail", 2],
      [1, "fullDuplex", 1],
    ]);
    expect(() => encodeKissParams({ txDelay: 256 })).toThrow("0-255");
    expect(() => encodeKiss(new Uint8Array(1), 16)).toThrow("0-15");
    expect([...encodeKiss(new Uint8Array(0), 0, "return")]).toEqual([FEND, 0xff, FEND]);
  });

  test("garbage before the first FEND, idle FENDs, split and merged reads", () => {
    const a = encodeKiss(Uint8Array.of(1, 2, FEND, 3));
    const b = encodeKiss(Uint8Array.of(FESC, 9), 2);
    const stream = new Uint8Array([0x41, 0x42, FESC, 0x99, FEND, FEND, FEND, ...a, FEND, ...b]);
    // every split point gives the same two frames
    for (let cut = 0; cut <= stream.length; cut++) {
      const d = new KissDecoder();
      const out = [...d.push(stream.subarray(0, cut)), ...d.push(stream.subarray(cut))];
      expect(out.every((r) => r.ok)).toBe(true);
      expect(out.map((r) => r.ok && [r.value.port, [...r.value.data]])).toEqual([
        [0, [1, 2, FEND, 3]],
        [2, [FESC, 9]],
      ]);
    }
    // byte at a time
    const d = new KissDecoder();
    const out = [...stream].flatMap((x) => d.push(Uint8Array.of(x)));
    expect(out).toHaveLength(2);
  });

  test("a bad escape, an unknown command or an over-long frame is an error and decoding goes on", () => {
    const d = new KissDecoder(16);
    const good = encodeKiss(Uint8Array.of(7, 7, 7));
    const input = new Uint8Array([
      FEND,
      0x00,
      1,
      FESC,
      0x41,
      2,
      FEND, // bad escape
      FEND,
      0x0a,
      1,
      FEND, // command 0x0A does not exist
      FEND,
      0x00,
      ...new Array(40).fill(0x33),
      FEND, // too long for this decoder
      FEND,
      0x00,
      5,
      FESC,
      FEND, // ends inside an escape
      ...good,
    ]);
    const out = d.push(input);
    expect(out.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(["kiss-bad-escape", "kiss-bad-command", "kiss-too-long", "kiss-bad-escape", "ok"]);
    expect(out[4]!.ok && [...out[4]!.value.data]).toEqual([7, 7, 7]);
  });

  test("property: any frames, cut anywhere, come out as they went in; random bytes never throw", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ port: fc.integer({ min: 0, max: 15 }), data: fc.uint8Array({ minLength: 1, maxLength: 300 }) }), { maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }),
        (frames, cuts) => {
          const wire = Buffer.concat(frames.map((f) => encodeKiss(f.data, f.port)));
          const d = new KissDecoder();
          const got = [];
          let at = 0;
          for (let i = 0; at < wire.length; i++) {
            const n = cuts[i % cuts.length]!;
            got.push(...d.push(wire.subarray(at, at + n)));
            at += n;
          }
          expect(got.map((r) => r.ok && { port: r.value.port, data: r.value.data })).toEqual(frames);
        },
      ),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (junk) => {
        const d = new KissDecoder(256);
        for (const r of d.push(junk)) if (r.ok) expect(r.value.data.length).toBeLessThanOrEqual(256);
      }),
    );
  });
});
