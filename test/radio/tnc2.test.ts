import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { decodeFrame, encodeFrame, type Ax25Frame } from "../../radio/frame.ts";
import { formatTnc2, parseTnc2 } from "../../radio/tnc2.ts";

const bytes = (s: string) => Uint8Array.from(Buffer.from(s, "latin1"));
const text = (b: Uint8Array) => Buffer.from(b).toString("latin1");

function roundTrip(line: string): Ax25Frame {
  const f = parseTnc2(bytes(line));
  if (!f.ok) throw f.error;
  const wire = encodeFrame(f.value);
  const back = decodeFrame(wire);
  if (!back.ok) throw back.error;
  const t = formatTnc2(back.value, { exact: true });
  if (!t.ok) throw t.error;
  expect(text(t.value)).toBe(line);
  return back.value;
}

describe("TNC2 text", () => {
  test("APRS lines convert to frames and back byte for byte, binary info included", () => {
    const f = roundTrip("N0CALL-9>APDW16,WIDE1-1*,WIDE2-1:!4903.50N/07201.75W-Test \xb0\xff\r\n:x");
    expect(f.path).toEqual([
      { call: "WIDE1", ssid: 1, repeated: true },
      { call: "WIDE2", ssid: 1, repeated: false },
    ]);
    expect(text(f.info)).toBe("!4903.50N/07201.75W-Test \xb0\xff\r\n:x");
    roundTrip("N0CALL>APRS:");
    roundTrip("N0CALL>APRS,RELAY*,WIDE,WIDE3-3,A1,A2,A3,A4,A5::N0GW     :hello{1");
    // a '*' on a later hop means the earlier hops have repeated too
    const g = roundTrip("A1A>APRS,B1B,C1C*,D1D:x");
    expect(g.path.map((d) => d.repeated)).toEqual([true, true, false]);
  });

  test("a UTF-8 string is taken as its UTF-8 bytes", () => {
    const f = parseTnc2("N0CALL>APRS:>café");
    expect(f.ok && [...f.value.info]).toEqual([...new TextEncoder().encode(">café")]);
  });

  test("what AX.25 cannot carry is refused with a typed error", () => {
    const bad: [string, string][] = [
      ["N0CALL>APRS", "tnc2-syntax"],
      ["N0CALLAPRS:x", "tnc2-syntax"],
      ["N0CALL>APRS,TCPIP*,qAC,T2TEST:x", "ax25-bad-address"], // APRS-IS q construct
      ["n0call>APRS:x", "ax25-bad-address"],
      ["N0CALL-0>APRS:x", "ax25-bad-address"],
      ["N0CALL>APRS,WIDE1*,WIDE2*:x", "tnc2-syntax"],
      ["N0CALL>APRS,,WIDE:x", "ax25-bad-address"],
      ["N0CALL>APRS,A,B,C,D,E,F,G,H,I:x", "tnc2-syntax"],
      ["N0CALL>APRS,WIDE-16:x", "ax25-bad-address"],
      [`N0CALL>APRS,${"WIDE1-1,".repeat(200)}:x`, "tnc2-syntax"],
    ];
    for (const [line, code] of bad) {
      const r = parseTnc2(line);
      expect(r.ok ? "ok" : r.error.code).toBe(code);
    }
    const ui = parseTnc2("N0CALL>APRS:x");
    if (!ui.ok) throw ui.error;
    expect(formatTnc2({ ...ui.value, type: "I", ns: 0, nr: 0 }).ok).toBe(false);
    expect(formatTnc2({ ...ui.value, pid: 0xcf }).ok).toBe(false);
    expect(formatTnc2({ ...ui.value, cr: "response" }, { exact: true }).ok).toBe(false);
    expect(formatTnc2({ ...ui.value, src: { ...ui.value.src, rr: 0 } }, { exact: true }).ok).toBe(false);
    const gap = parseTnc2("N0CALL>APRS,A1A,B1B*:x");
    if (!gap.ok) throw gap.error;
    gap.value.path[0]!.repeated = false;
    expect(formatTnc2(gap.value).ok ? "ok" : "refused").toBe("refused");
  });

  test("v1 frames, responses and odd reserved bits are APRS like a v2 command (Direwolf, aprx and APRS-IS take them); exact text refuses them", () => {
    const line = "N0DW-1>APDW16,WIDE1*,WIDE2-1:!4237.14NS07120.83W#probe";
    const f = parseTnc2(line);
    if (!f.ok) throw f.error;
    const odd = (cr: Ax25Frame["cr"], rr?: number) => {
      const wire = encodeFrame({ ...f.value, cr, src: { ...f.value.src, rr }, path: f.value.path.map((d) => ({ ...d, rr })) });
      const back = decodeFrame(wire);
      if (!back.ok) throw back.error;
      expect(back.value.cr).toBe(cr);
      return back.value;
    };
    for (const g of [odd("v1-00"), odd("v1-11"), odd("response"), odd("command", 0), odd("v1-00", 1)]) {
      const t = formatTnc2(g);
      expect(t.ok && text(t.value)).toBe(line);
      expect(formatTnc2(g, { exact: true }).ok).toBe(false);
    }
    // still refused: what TNC2 cannot say at all (a gap in the H bits, another protocol)
    const v1 = odd("v1-00");
    expect(
      formatTnc2({
        ...v1,
        path: [
          { ...v1.path[0]!, repeated: false },
          { ...v1.path[1]!, repeated: true },
        ],
      }).ok,
    ).toBe(false);
    expect(formatTnc2({ ...v1, pid: 0xcf }).ok).toBe(false);
    expect(formatTnc2({ ...v1, type: "I", ns: 0, nr: 0 }).ok).toBe(false);
  });

  test("property: any header and any info bytes round-trip", () => {
    const call = fc.tuple(fc.stringMatching(/^[A-Z0-9]{1,6}$/), fc.integer({ min: 0, max: 15 })).map(([c, s]) => (s ? `${c}-${s}` : c));
    fc.assert(
      fc.property(
        call,
        call,
        fc.array(call, { maxLength: 8 }),
        fc.integer({ min: -1, max: 7 }),
        fc.uint8Array({ maxLength: 256 }),
        (src, dst, path, star, info) => {
          const hops = path.map((p, i) => (i === star ? `${p}*` : p));
          const line = Buffer.concat([Buffer.from(`${src}>${[dst, ...hops].join(",")}:`), info]);
          const f = parseTnc2(line);
          expect(f.ok).toBe(true);
          if (!f.ok) return;
          const back = decodeFrame(encodeFrame(f.value));
          const t = back.ok && formatTnc2(back.value);
          expect(t && t.ok && Buffer.from(t.value).equals(line)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (junk) => {
        const r = parseTnc2(junk);
        if (!r.ok) expect(r.error.code).toMatch(/^(tnc2|ax25)-/);
      }),
    );
  });
});
