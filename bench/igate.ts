/**
 * `bun run bench igate`: the iGate's gate decisions per second.
 *  1. RF to APRS-IS, the rule alone (src/stations/igate-rules.ts rfToIs) over
 *     a mix of frames as a channel carries them (direct, digipeated, NOGATE,
 *     TCPIP, third-party, queries), from their TNC2 text;
 *  2. the same mix through the station's iGate (src/stations/igate.ts
 *     heardOnRf: header split, heard tables, duplicate window, counters, the
 *     line handed to an uplink that takes it), new frames mostly;
 *  3. APRS-IS to RF: isToRf alone, and fromAprsIs through the service, over
 *     a feed as a port-14580 login gets it (positions, messages to local and
 *     far stations, bulletins), its transmitter a stub that always has room;
 *  and as a yardstick, formatting the same frames as TNC2 (radio/tnc2.ts),
 *  which the radio does for every frame heard anyway.
 */
import { formatTnc2, parseTnc2, type Ax25Frame } from "../radio/index.ts";
import type { Core } from "../src/hosts/gateway.ts";
import type { Transmitter } from "../src/radio-node/tx.ts";
import { splitLine } from "../src/hub/qconstruct.ts";
import { isToRf, rfToIs } from "../src/stations/igate-rules.ts";
import { fromAprsIs, heardOnRf, igateStatus, setUplink } from "../src/stations/igate.ts";
import { perSecond, printRates } from "./lib/stats.ts";

const RF = [
  (i: number) => `N${i % 10}AB${String.fromCharCode(65 + (i % 26))}-${(i % 15) + 1}>APRS,WIDE1-1,WIDE2-1:!4237.14N/07120.83W>bench ${i}`,
  (i: number) => `N${i % 10}CD-${(i % 15) + 1}>APRS,N0DIG-1*,WIDE2-1:>status ${i}`,
  (i: number) => `N${i % 10}EF>APRS:=4237.14N/07120.83W-direct ${i}`,
  (i: number) => `N${i % 10}GH>APRS,NOGATE:>keep off ${i}`,
  (i: number) => `N${i % 10}IJ>APRS,TCPIP*:>from the internet ${i}`,
  (i: number) => `N${i % 10}KL>APRS,WIDE1*:}N0IN-${(i % 15) + 1}>APRS,TCPIP,N0GX*::N0LOC-7  :hi ${i}`,
  (i: number) => `N${i % 10}MN>APRS:}N0IN-${(i % 15) + 1}>APXYZ,N0RELAY*:>inner ${i}`,
  (i: number) => `N${i % 10}OP>APRS,WIDE1-1::N0LOC-${(i % 15) + 1}  :message ${i}{${i % 1000}`,
  (i: number) => `N${i % 10}QR>APRS:?IGATE?`,
  (i: number) => `N${i % 10}ST>APRS,N0DIG-1,N0DIG-2*:\`c1Tl!Ov/]"4%}mic-e ${i}`,
];
const IS = [
  (i: number) => `N${i % 10}AB-${(i % 15) + 1}>APRS,TCPIP*,qAC,T2TEST:!4237.14N/07120.83W>pos ${i}`,
  (i: number) => `N${i % 10}CD>APRS,WIDE2-1,qAR,N0IG-10:>status ${i}`,
  (i: number) => `N${i % 10}EF>APRS,TCPIP*,qAC,T2TEST::N0LOC-${(i % 3) + 1}  :to a local station ${i}{${i % 1000}`,
  (i: number) => `N${i % 10}GH>APRS,TCPIP*,qAC,T2TEST::N0FAR-${(i % 15) + 1}  :to a far station ${i}`,
  (i: number) => `N${i % 10}IJ>APRS,TCPIP*,qAC,T2TEST::BLN1     :bulletin ${i}`,
];

function lines(n: number, gen: Array<(i: number) => string>): string[] {
  return Array.from({ length: n }, (_, i) => gen[i % gen.length]!(i));
}

export async function run() {
  const rf = lines(10_000, RF);
  const frames: Ax25Frame[] = rf.map((l) => {
    const r = parseTnc2(l);
    if (!r.ok) throw r.error;
    return r.value;
  });
  const bytes = frames.map((f) => {
    const r = formatTnc2(f);
    if (!r.ok) throw r.error;
    return r.value;
  });
  const ruleRate = perSecond(rf, (l) => rfToIs(splitLine(l)!, { igate: "N0GW-10", echo: false }));
  const formatRate = perSecond(frames, (f) => formatTnc2(f));

  let t = 0;
  const config = { igate: true, igateTx: true, igateTxFilter: null, aprsIsCall: "N0GW-10", fedAprsCall: null, radioCall: "N0GW-10", radioPath: ["WIDE1-1"] };
  const gw = { clock: { now: () => t }, config } as unknown as Core;
  let up = 0;
  setUplink(gw, (b) => ((up += b.length), true));
  const serviceRate = perSecond(bytes, (b) => {
    t += 10;
    heardOnRf(gw, b, false, null);
  });
  const s = igateStatus(gw);

  const is = lines(10_000, IS);
  const facts = {
    addresseeLocal: (c: string) => c.startsWith("N0LOC"),
    addresseeOnIs: () => false,
    senderLocal: () => false,
    positionOwed: () => false,
    filter: () => false,
  };
  const isRuleRate = perSecond(is, (l) => isToRf(l, "N0GW-10", facts));
  const tx = { sendFrame: () => "sent" } as unknown as Transmitter;
  // the local stations the messages go to were heard direct
  for (const n of [1, 2, 3]) heardOnRf(gw, new TextEncoder().encode(`N0LOC-${n}>APRS:>here`), false, null);
  const isBytes = is.map((l) => new TextEncoder().encode(l));
  const isServiceRate = perSecond(isBytes, (b) => {
    t += 10;
    fromAprsIs(gw, b, tx);
  });
  const d = igateStatus(gw);

  printRates("igate: gate decisions per second (one core, in process)", [
    ["RF to APRS-IS: the rule alone (rfToIs)", ruleRate],
    ["RF to APRS-IS: the station's iGate (heardOnRf)", serviceRate],
    ["APRS-IS to RF: the rule alone (isToRf)", isRuleRate],
    ["APRS-IS to RF: the station's iGate (fromAprsIs)", isServiceRate],
    ["reference: formatting the same frames as TNC2", formatRate],
  ]);
  console.log(
    `  RF mix through the service: ${s.heard} heard, ${s.gated} gated, dropped ${JSON.stringify(s.dropped)}; APRS-IS mix: to RF ${JSON.stringify(d.toRf)}, not ${JSON.stringify(d.notToRf)}`,
  );
  return { ruleRate, serviceRate, isRuleRate, isServiceRate, formatRate, uplinkBytes: up };
}

if (import.meta.main) await run();
