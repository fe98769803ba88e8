/**
 * The digipeater's rules (radio/digipeat.ts), one case a line: the frame
 * heard as TNC2 text, the mode, and the path it goes out with or the reason
 * it does not. The rewrites are Direwolf 1.6's (DIGIPEAT ... TRACE), as seen
 * on the air in test/radio-node/digipeater-direwolf.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { decodeFrame, encodeFrame, type Ax25Frame } from "../../radio/frame.ts";
import { digipeat, type DigipeatMode, type DigipeatRules } from "../../radio/digipeat.ts";
import { formatTnc2, parseTnc2 } from "../../radio/tnc2.ts";

const frame = (line: string): Ax25Frame => {
  const r = parseTnc2(line);
  if (!r.ok) throw r.error;
  return r.value;
};
const text = (f: Ax25Frame) => {
  const r = formatTnc2(f);
  if (!r.ok) throw r.error;
  return new TextDecoder().decode(r.value);
};
const rules = (mode: DigipeatMode, maxHops = 2): DigipeatRules => ({
  mode,
  call: { call: "N0CALL", ssid: 10 },
  aliases: [
    { call: "RELAY", ssid: 0 },
    { call: "N0AL", ssid: 3 },
  ],
  maxHops,
});
/** The path of the repeated frame (`*` on the last repeated hop, as monitors write it), or the drop reason. */
const outcome = (line: string, mode: DigipeatMode, maxHops = 2) => {
  const d = digipeat(frame(line), rules(mode, maxHops));
  if (!d.repeat) return `drop ${d.reason}`;
  const t = text(d.frame);
  return t
    .slice(t.indexOf(">") + 1, t.indexOf(":"))
    .split(",")
    .slice(1)
    .join(",");
};

// [heard, mode, max hops, repeated path or drop reason]
const CASES: Array<[string, DigipeatMode, number, string]> = [
  // off repeats nothing
  ["N0SA>APRS,WIDE1-1:x", "off", 2, "drop off"],
  // fill-in: WIDE1-1, our call and aliases
  ["N0SA>APRS,WIDE1-1:x", "fill-in", 2, "N0CALL-10*"],
  ["N0SA>APRS,WIDE1-1,WIDE2-1:x", "fill-in", 2, "N0CALL-10*,WIDE2-1"],
  ["N0SA>APRS,WIDE2-1:x", "fill-in", 2, "drop not-for-us"],
  ["N0SA>APRS,WIDE2-2:x", "fill-in", 2, "drop not-for-us"],
  ["N0SA>APRS,N0CALL-10:x", "fill-in", 2, "N0CALL-10*"],
  ["N0SA>APRS,RELAY,WIDE2-1:x", "fill-in", 2, "N0CALL-10*,WIDE2-1"],
  ["N0SA>APRS,N0AL-3:x", "fill-in", 2, "N0CALL-10*"],
  ["N0SA>APRS,WIDE1-2:x", "fill-in", 2, "drop too-many-hops"],
  // wide: WIDEn-N up to the hop limit, traced
  ["N0SA>APRS,WIDE1-1:x", "wide", 2, "N0CALL-10*"],
  ["N0SA>APRS,WIDE1-1,WIDE2-1:x", "wide", 2, "N0CALL-10*,WIDE2-1"],
  ["N0SA>APRS,WIDE2-2:x", "wide", 2, "N0CALL-10*,WIDE2-1"],
  ["N0SA>APRS,WIDE2-1:x", "wide", 2, "N0CALL-10*"],
  ["N0SA>APRS,WIDE1*,WIDE2-1:x", "wide", 2, "WIDE1,N0CALL-10*"],
  ["N0SA>APRS,N0X*,WIDE2-2:x", "wide", 2, "N0X,N0CALL-10*,WIDE2-1"],
  ["N0SA>APRS,WIDE2-2,WIDE3-1:x", "wide", 2, "N0CALL-10*,WIDE2-1,WIDE3-1"],
  ["N0SA>APRS,N0CALL-10,WIDE2-1:x", "wide", 2, "N0CALL-10*,WIDE2-1"],
  // hop limits: n above DIGIPEAT_MAX_HOPS, N above n
  ["N0SA>APRS,WIDE3-3:x", "wide", 2, "drop too-many-hops"],
  ["N0SA>APRS,WIDE3-3:x", "wide", 3, "N0CALL-10*,WIDE3-2"],
  ["N0SA>APRS,WIDE7-7:x", "wide", 2, "drop too-many-hops"],
  ["N0SA>APRS,WIDE2-5:x", "wide", 2, "drop too-many-hops"],
  ["N0SA>APRS,WIDE1-1:x", "wide", 1, "N0CALL-10*"],
  ["N0SA>APRS,WIDE2-1:x", "wide", 1, "drop too-many-hops"],
  // the 8-address limit: no room to insert our call, the hop is only decremented
  ["N0SA>APRS,A1,A2,A3,A4,A5,A6,A7*,WIDE2-2:x", "wide", 2, "A1,A2,A3,A4,A5,A6,A7*,WIDE2-1"],
  ["N0SA>APRS,A1,A2,A3,A4,A5,A6*,WIDE2-2:x", "wide", 2, "A1,A2,A3,A4,A5,A6,N0CALL-10*,WIDE2-1"],
  ["N0SA>APRS,A1,A2,A3,A4,A5,A6,A7*,WIDE2-1:x", "wide", 2, "A1,A2,A3,A4,A5,A6,A7,N0CALL-10*"],
  // used up, not for us
  ["N0SA>APRS,WIDE1,WIDE2*:x", "wide", 2, "drop used-up"],
  ["N0SA>APRS,N0CALL-10*:x", "wide", 2, "drop used-up"],
  ["N0SA>APRS:x", "wide", 2, "drop not-for-us"],
  ["N0SA>APRS,WIDE2:x", "wide", 2, "drop not-for-us"],
  ["N0SA>APRS,WIDE1,WIDE2-1:x", "wide", 2, "drop not-for-us"],
  ["N0SA>APRS,N0OTHR-1,WIDE2-2:x", "wide", 2, "drop not-for-us"],
  ["N0SA>APRS,N0CALL-9:x", "wide", 2, "drop not-for-us"],
  ["N0SA>APRS,WIDEX-1:x", "wide", 2, "drop not-for-us"],
  ["N0SA>APRS,TCPIP,WIDE1-1:x", "wide", 2, "drop not-for-us"],
  // our own frame
  ["N0CALL-10>APRS,WIDE1-1:x", "wide", 2, "drop echo"],
];

describe("the digipeater's rules", () => {
  for (const [line, mode, hops, want] of CASES)
    test(`${mode}${hops !== 2 ? ` (max hops ${hops})` : ""}: ${line.slice(0, line.indexOf(":"))} -> ${want}`, () => {
      expect(outcome(line, mode, hops)).toBe(want);
    });

  test("the repeated frame keeps its C bits, PID, reserved bits, source, destination and information byte for byte", () => {
    const f = frame("N0SA-9>APDW16,WIDE1-1,WIDE2-1:!4237.14NS07120.83W#\xb0 binary");
    for (const cr of ["v1-00", "v1-11", "response", "command"] as const) {
      const heard = { ...f, cr, src: { ...f.src, rr: 0 }, path: f.path.map((d) => ({ ...d, rr: 1 })) };
      const back = decodeFrame(encodeFrame(heard));
      if (!back.ok) throw back.error;
      const d = digipeat(back.value, rules("fill-in"));
      if (!d.repeat) throw new Error(d.reason);
      const out = decodeFrame(encodeFrame(d.frame));
      if (!out.ok) throw out.error;
      expect(out.value.cr).toBe(cr);
      expect(out.value.src).toEqual({ call: "N0SA", ssid: 9, rr: 0 });
      expect(out.value.dest).toEqual(f.dest);
      expect(out.value.pid).toBe(0xf0);
      expect([...out.value.info]).toEqual([...f.info]);
      expect(out.value.path).toEqual([
        { call: "N0CALL", ssid: 10, rr: 1, repeated: true },
        { call: "WIDE2", ssid: 1, rr: 1, repeated: false },
      ]);
    }
  });

  test("a path with a gap in its H bits and frames other than UI are not repeated", () => {
    const f = frame("N0SA>APRS,WIDE1-1,A1*,WIDE2-1:x");
    f.path[0]!.repeated = false;
    expect(digipeat(f, rules("wide"))).toEqual({ repeat: false, reason: "malformed" });
    const i = { ...frame("N0SA>APRS,WIDE1-1:x"), type: "I" as const, ns: 0, nr: 0 };
    expect(digipeat(i, rules("wide"))).toEqual({ repeat: false, reason: "not-ui" });
  });
});
