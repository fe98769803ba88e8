/**
 * The iGate's rules, case by case (src/stations/igate-rules.ts): what a frame
 * heard on RF becomes on APRS-IS, and what a line from APRS-IS becomes on RF.
 */
import { describe, expect, test } from "bun:test";
import { isToRf, rfToIs, usedHops, type IsFacts } from "../../src/stations/igate-rules.ts";
import { splitLine } from "../../src/hub/qconstruct.ts";

const IG = "N0GW-10";
const rf = (line: string, echo = false) => rfToIs(splitLine(line)!, { igate: IG, echo });

describe("RF to APRS-IS", () => {
  const cases: Array<[string, string, string | { drop: string; query?: string }]> = [
    ["a position heard direct", "N0X-9>APRS:!4237.14N/07120.83W>", `N0X-9>APRS,qAR,${IG}:!4237.14N/07120.83W>`],
    ["a digipeated frame keeps its path and used marks", "N0X-9>APRS,N0DIG-1,WIDE2*:>hi", `N0X-9>APRS,N0DIG-1,WIDE2*,qAR,${IG}:>hi`],
    ["a message", "N0X-9>APRS,WIDE1-1::N0Y-1    :hello{12", `N0X-9>APRS,WIDE1-1,qAR,${IG}::N0Y-1    :hello{12`],
    ["information cut at its first CR", "N0X-9>APRS:>status\rtrailer", `N0X-9>APRS,qAR,${IG}:>status`],
    ["TCPIP in the path", "N0X-9>APRS,TCPIP*:>from the internet", { drop: "no-gate-path" }],
    ["TCPXX in the path", "N0X-9>APRS,TCPXX*:>unverified", { drop: "no-gate-path" }],
    ["NOGATE in the path", "N0X-9>APRS,NOGATE:>keep off the internet", { drop: "no-gate-path" }],
    ["RFONLY in the path", "N0X-9>APRS,WIDE1*,RFONLY:>keep off the internet", { drop: "no-gate-path" }],
    [
      "a third-party frame is gated by its inner header",
      "N0GW2-1>APRS,WIDE1*:}N0IN-5>APXYZ,N0RELAY*:!4237.14N/07120.83W-inner",
      `N0IN-5>APXYZ,N0RELAY*,qAR,${IG}:!4237.14N/07120.83W-inner`,
    ],
    ["a third-party frame whose inner header has TCPIP", "N0GW2-1>APRS,WIDE1*:}N0IN-5>APRS,TCPIP,N0GW2-1*::N0Y-1    :hi{1", { drop: "third-party-internet" }],
    ["a third-party frame whose inner header has TCPXX", "N0GW2-1>APRS:}N0IN-5>APRS,TCPXX*:>x", { drop: "third-party-internet" }],
    ["a third-party frame whose inner header has NOGATE", "N0GW2-1>APRS:}N0IN-5>APRS,NOGATE:>x", { drop: "no-gate-path" }],
    ["a third-party frame with no inner header", "N0GW2-1>APRS:}just text", { drop: "third-party-malformed" }],
    ["a general query ?APRS?", "N0X-9>APRS:?APRS?", { drop: "query", query: "APRS" }],
    ["a general query ?IGATE?", "N0X-9>APRS,WIDE1-1:?IGATE?", { drop: "query", query: "IGATE" }],
    ["another general query", "N0X-9>APRS:?WX?", { drop: "query" }],
    ["information cut at a NUL", "N0X-9>APRS:>status\u0000junk", `N0X-9>APRS,qAR,${IG}:>status`],
    ["nothing before a NUL", "N0X-9>APRS:\u0000junk", { drop: "empty" }],
    ["an empty information field", "N0X-9>APRS:\r\n", { drop: "empty" }],
  ];
  for (const [name, line, want] of cases)
    test(name, () => {
      const d = rf(line);
      if (typeof want === "string") expect(d).toMatchObject({ gate: want });
      else expect(d).toEqual(want as never);
    });

  test("our own transmission heard back is never gated", () => {
    expect(rf("N0GW-10>APZSVC,N0DIG-1*:>ours", true)).toEqual({ drop: "own-echo" });
    expect(rf("N0GW-10>APZSVC,N0DIG-1*:>ours", false)).toMatchObject({ gate: `N0GW-10>APZSVC,N0DIG-1*,qAR,${IG}:>ours` });
  });

  test("hops: direct, a fill-in, one wide hop, two hops", () => {
    expect(usedHops([])).toBe(0);
    expect(usedHops(["WIDE1-1", "WIDE2-1"])).toBe(0);
    expect(usedHops(["N0DIG-1*", "WIDE2-1"])).toBe(1);
    expect(usedHops(["N0DIG-1", "WIDE1*", "WIDE2-1"])).toBe(1);
    expect(usedHops(["WIDE1*", "WIDE2-1"])).toBe(1);
    expect(usedHops(["N0DIG-1", "N0DIG-2", "WIDE2*"])).toBe(2);
  });
});

describe("APRS-IS to RF", () => {
  const facts = (f: Partial<IsFacts> = {}): IsFacts => ({
    addresseeLocal: (c) => c === "N0LOC-7",
    addresseeOnIs: () => false,
    senderLocal: () => false,
    positionOwed: () => false,
    filter: () => false,
    ...f,
  });
  const RC = "N0GW-10";

  test("a message to a station heard here goes as a third-party frame", () => {
    expect(isToRf("N0SND>APRS,TCPIP*,qAC,T2TEST::N0LOC-7  :hello{42", RC, facts())).toMatchObject({
      tx: "}N0SND>APRS,TCPIP,N0GW-10*::N0LOC-7  :hello{42",
      kind: "message",
      addressee: "N0LOC-7",
    });
    // an ack is a message too
    expect(isToRf("N0SND>APRS,TCPIP*,qAC,T2TEST::N0LOC-7  :ack42", RC, facts())).toMatchObject({ kind: "message" });
    // a source that is no AX.25 address (a server answering) goes inside the third-party header as it is
    expect(isToRf("WHO-IS>APJIW4,TCPIP*,qAC,AE5PL-JF::N0LOC-7  :answer{583", RC, facts())).toMatchObject({
      tx: "}WHO-IS>APJIW4,TCPIP,N0GW-10*::N0LOC-7  :answer{583",
    });
  });

  test("refusals: not local, on APRS-IS since, sender local, bulletins, telemetry definitions, no-gate paths, bad lines", () => {
    expect(isToRf("N0SND>APRS,TCPIP*,qAC,T2TEST::N0FAR-7  :hi", RC, facts())).toEqual({ drop: "addressee-not-local" });
    expect(isToRf("N0SND>APRS,TCPIP*,qAC,T2TEST::N0LOC-7  :hi", RC, facts({ addresseeOnIs: () => true }))).toEqual({ drop: "addressee-on-aprs-is" });
    expect(isToRf("N0SND>APRS,TCPIP*,qAC,T2TEST::N0LOC-7  :hi", RC, facts({ senderLocal: () => true }))).toEqual({ drop: "sender-local" });
    expect(isToRf("N0SND>APRS,TCPIP*,qAC,T2TEST::BLN1     :news", RC, facts({ addresseeLocal: () => true }))).toEqual({ drop: "not-a-message" });
    expect(isToRf("N0SND>APRS,TCPIP*,qAC,T2TEST::N0LOC-7  :PARM.Volts", RC, facts())).toEqual({ drop: "not-a-message" });
    expect(isToRf("N0SND>APRS,TCPXX*,qAX,T2TEST::N0LOC-7  :hi", RC, facts())).toEqual({ drop: "no-gate-path" });
    expect(isToRf("N0SND>APRS,NOGATE,qAR,N0IG::N0LOC-7  :hi", RC, facts())).toEqual({ drop: "no-gate-path" });
    expect(isToRf("N0SND>APRS,RFONLY,qAR,N0IG::N0LOC-7  :hi", RC, facts())).toEqual({ drop: "no-gate-path" });
    expect(isToRf("not a line", RC, facts())).toEqual({ drop: "malformed" });
    expect(isToRf("N0SND>APRS,TCPIP*,qAC,T2TEST:!4237.14N/07120.83W-home", RC, facts())).toEqual({ drop: "not-for-rf" });
  });

  test("the sender's position goes when owed; IGATE_TX_FILTER adds what it matches", () => {
    const pos = "N0SND>APRS,TCPIP*,qAC,T2TEST:!4237.14N/07120.83W-home";
    expect(isToRf(pos, RC, facts({ positionOwed: (c) => c === "N0SND" }))).toMatchObject({
      kind: "position",
      tx: "}N0SND>APRS,TCPIP,N0GW-10*:!4237.14N/07120.83W-home",
    });
    // a status is no position, owed or not
    expect(isToRf("N0SND>APRS,TCPIP*,qAC,T2TEST:>status", RC, facts({ positionOwed: () => true }))).toEqual({ drop: "not-for-rf" });
    expect(isToRf(";NET2M    *111111z4237.14N/07120.83W-net", RC, facts())).toEqual({ drop: "malformed" });
    expect(isToRf("N0OBJ>APRS,TCPIP*,qAC,T2TEST:;NET2M    *111111z4237.14N/07120.83W-net", RC, facts({ filter: () => true }))).toMatchObject({
      kind: "filter",
    });
    // the filter also reaches a message to a station not heard here
    expect(isToRf("N0SND>APRS,TCPIP*,qAC,T2TEST::N0FAR-7  :hi", RC, facts({ filter: () => true }))).toMatchObject({ kind: "filter" });
  });
});
