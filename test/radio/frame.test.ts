import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { formatAddress, parseAddress, parseAddressLoose } from "../../radio/address.ts";
import { decodeFrame, encodeFrame, replyPath, uiFrame, type Ax25Frame, type FrameType } from "../../radio/frame.ts";

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));
const addr = (s: string) => {
  const r = parseAddress(s);
  if (!r.ok) throw r.error;
  return r.value;
};

describe("AX.25 addresses", () => {
  test("canonical text form: upper case, SSID 1-15 without leading zeros", () => {
    expect(addr("N0CALL-15")).toEqual({ call: "N0CALL", ssid: 15 });
    expect(addr("APRS")).toEqual({ call: "APRS", ssid: 0 });
    for (const bad of ["n0call", "N0CALL-0", "N0CALL-07", "N0CALL-16", "TOOLONG1", "", "N0-CALL-1", "N0 CALL", "qAR"]) expect(parseAddress(bad).ok).toBe(false);
    expect(parseAddressLoose(" n0call-0 ").ok && formatAddress((parseAddressLoose(" n0call-0 ") as any).value)).toBe("N0CALL");
    expect(parseAddressLoose("n0call-07")).toEqual({ ok: true, value: { call: "N0CALL", ssid: 7 } });
  });
});

describe("AX.25 frames", () => {
  test("a UI frame from Direwolf decodes: addresses, C bits, path, PID, info", () => {
    const r = decodeFrame(hex("82a0a4a64040e09c608eae404062ae92888a64406503f03e68656c6c6f"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const f = r.value;
    expect(formatAddress(f.src)).toBe("N0GW-1");
    expect(formatAddress(f.dest)).toBe("APRS");
    expect(f.path).toEqual([{ call: "WIDE2", ssid: 2, repeated: false }]);
    expect(f.cr).toBe("command");
    expect(f.type).toBe("UI");
    expect(f.pid).toBe(0xf0);
    expect(Buffer.from(f.info).toString()).toBe(">hello");
  });

  test("Direwolf's SABME (v2.2 connect request) decodes with its poll bit", () => {
    const r = decodeFrame(hex("9c608eae4040e29c60828eae40637f"));
    expect(r.ok && [r.value.type, r.value.pf, r.value.cr, formatAddress(r.value.src), formatAddress(r.value.dest)]).toEqual([
      "SABME",
      true,
      "command",
      "N0AGW-1",
      "N0GW-1",
    ]);
  });

  test("every frame type encodes and decodes to itself, modulo 8 and 128", () => {
    const base = {
      dest: addr("N0GW-1"),
      src: addr("N0AGW-2"),
      path: [
        { ...addr("RELAY"), repeated: true },
        { ...addr("WIDE2-1"), repeated: false },
      ],
    };
    const frames: Ax25Frame[] = [
      { ...base, cr: "command", type: "I", pf: true, ns: 5, nr: 3, pid: 0xf0, info: new TextEncoder().encode("data") },
      { ...base, cr: "command", type: "I", pf: false, ns: 100, nr: 127, pid: 0xcf, info: Uint8Array.of(1), modulo: 128 },
      ...(["RR", "RNR", "REJ", "SREJ"] as FrameType[]).flatMap((type) => [
        { ...base, cr: "response" as const, type, pf: true, nr: 7, info: new Uint8Array() },
        { ...base, cr: "command" as const, type, pf: false, nr: 99, info: new Uint8Array(), modulo: 128 as const },
      ]),
      ...(["SABM", "SABME", "UA", "DM", "DISC"] as FrameType[]).map((type) => ({ ...base, cr: "command" as const, type, pf: true, info: new Uint8Array() })),
      { ...base, cr: "response", type: "FRMR", pf: false, info: Uint8Array.of(1, 2, 3) },
      { ...base, cr: "command", type: "XID", pf: true, info: Uint8Array.of(0x82, 0x80, 0, 0) },
      { ...base, cr: "command", type: "TEST", pf: true, info: Uint8Array.of(9, 9) },
      { ...base, cr: "v1-00", type: "UI", pf: false, pid: 0xf0, info: Uint8Array.of(0xc0, 0xdb) },
      { ...base, cr: "v1-11", type: "UI", pf: false, pid: 0xf0, info: new Uint8Array() },
    ];
    for (const f of frames) {
      const bytes = encodeFrame(f);
      const back = decodeFrame(bytes, { modulo: f.modulo ?? 8 });
      expect(back.ok).toBe(true);
      if (!back.ok) continue;
      const want = { ...f, ns: f.ns, nr: f.nr, pid: f.pid };
      for (const k of ["ns", "nr", "pid", "modulo"] as const) if (want[k] === undefined) delete want[k];
      expect(back.value).toEqual(want);
      expect(encodeFrame(back.value)).toEqual(bytes);
    }
  });

  test("known control bytes: I N(S)=2 N(R)=5 P, RR N(R)=3 F, SABM P, UA F, DM F, DISC P", () => {
    const base = { dest: addr("A1A"), src: addr("B1B"), path: [], info: new Uint8Array() };
    const ctl = (f: Partial<Ax25Frame>) => encodeFrame({ ...base, cr: "command", pf: false, ...f } as Ax25Frame)[14];
    expect(ctl({ type: "I", ns: 2, nr: 5, pf: true, pid: 0xf0 })).toBe(0xb4);
    expect(ctl({ type: "RR", nr: 3, pf: true })).toBe(0x71);
    expect(ctl({ type: "REJ", nr: 1, pf: false })).toBe(0x29);
    expect(ctl({ type: "SABM", pf: true })).toBe(0x3f);
    expect(ctl({ type: "UA", pf: true })).toBe(0x73);
    expect(ctl({ type: "DM", pf: true })).toBe(0x1f);
    expect(ctl({ type: "DISC", pf: true })).toBe(0x53);
  });

  test("malformed frames give typed errors", () => {
    const ok = encodeFrame(uiFrame({ dest: addr("APRS"), src: addr("N0CALL"), info: Uint8Array.of(0x3e) }));
    const cases: [Uint8Array, string][] = [
      [ok.slice(0, 10), "ax25-too-short"],
      [ok.slice(0, 14), "ax25-too-short"],
      [
        (() => {
          const b = ok.slice();
          b[13] &= 0xfe;
          return b;
        })(),
        "ax25-address-unterminated",
      ],
      [
        (() => {
          const b = ok.slice();
          b[0] = 0x61 << 1;
          return b;
        })(),
        "ax25-bad-address",
      ], // lower-case 'a'
      [
        (() => {
          const b = ok.slice();
          b[1] = 0x20 << 1;
          return b;
        })(),
        "ax25-bad-address",
      ], // space inside
      [
        (() => {
          const b = ok.slice();
          b[6] |= 1;
          return b;
        })(),
        "ax25-bad-address",
      ], // only one address
      [
        (() => {
          const b = ok.slice();
          b[14] = 0x07;
          return b;
        })(),
        "ax25-bad-control",
      ], // U code 0x07 does not exist
      [ok.slice(0, 15), "ax25-missing-pid"],
      [
        Uint8Array.from([...encodeFrame({ dest: addr("A1A"), src: addr("B1B"), path: [], cr: "command", type: "SABM", pf: true, info: new Uint8Array() }), 1]),
        "ax25-unexpected-info",
      ],
    ];
    // nine digipeaters
    const nine = new Uint8Array(14 + 63 + 2);
    nine.set(ok.subarray(0, 14));
    nine[13] &= 0xfe;
    for (let i = 0; i < 9; i++) {
      nine.set(ok.subarray(7, 14), 14 + i * 7);
      nine[20 + i * 7] &= 0xfe;
    }
    nine[13 + 63] |= 1;
    cases.push([nine, "ax25-too-many-digis"]);
    for (const [bytes, code] of cases) {
      const r = decodeFrame(bytes);
      expect(r.ok ? "ok" : r.error.code).toBe(code);
    }
    expect(() =>
      encodeFrame({
        ...uiFrame({ dest: addr("APRS"), src: addr("N0CALL"), info: new Uint8Array() }),
        path: new Array(9).fill({ call: "WIDE", ssid: 1, repeated: false }),
      }),
    ).toThrow("digipeaters");
    expect(() => encodeFrame(uiFrame({ dest: { call: "toolong1", ssid: 0 }, src: addr("N0CALL"), info: new Uint8Array() }))).toThrow();
    expect(() =>
      encodeFrame({ dest: addr("A1A"), src: addr("B1B"), path: [], cr: "command", type: "I", pf: false, ns: 8, nr: 0, info: new Uint8Array() }),
    ).toThrow("N(S)");
  });

  test("replyPath reverses the path and clears the repeated bits", () => {
    expect(
      replyPath([
        { ...addr("A1A"), repeated: true },
        { ...addr("B1B-2"), repeated: true },
      ]),
    ).toEqual([
      { call: "B1B", ssid: 2, repeated: false },
      { call: "A1A", ssid: 0, repeated: false },
    ]);
  });

  test("property: random bytes never throw and whatever decodes re-encodes to the same bytes", () => {
    const addrBytes = fc
      .tuple(fc.stringMatching(/^[A-Z0-9]{1,6}$/), fc.integer({ min: 0, max: 255 }))
      .map(([c, s]) => [...c.padEnd(6, " ")].map((ch) => ch.charCodeAt(0) << 1).concat([s & 0xfe]));
    const plausible = fc.tuple(fc.array(addrBytes, { minLength: 2, maxLength: 10 }), fc.uint8Array({ minLength: 1, maxLength: 40 })).map(([as, rest]) => {
      const flat = as.flat();
      flat[flat.length - 1]! |= 1;
      return Uint8Array.from([...flat, ...rest]);
    });
    for (const arb of [fc.uint8Array({ maxLength: 120 }), plausible]) {
      fc.assert(
        fc.property(arb, fc.constantFrom(8 as const, 128 as const), (bytes, modulo) => {
          const r = decodeFrame(bytes, { modulo });
          if (r.ok) expect(encodeFrame(r.value)).toEqual(bytes);
          else expect(r.error.code).toMatch(/^ax25-/);
        }),
        { numRuns: 3000 },
      );
    }
  });
});
