/**
 * `bun run bench digipeat`: the digipeater's decisions per second, and the
 * airtime it uses against the transmit budget on a busy channel.
 *  1. the rule alone (radio/digipeat.ts) over a mix of paths as a channel
 *     carries them (direct, WIDE1-1,WIDE2-1, WIDE2-2, copies other
 *     digipeaters repeated, used up, too many hops), beside decoding the
 *     same frames from their bytes (radio/frame.ts) as a yardstick;
 *  2. the station's digipeater (src/radio-node/digipeater.ts: duplicate window,
 *     echo check, counters) with the same mix, its transmitter a token bucket;
 *  3. an hour of a busy 1200 baud channel in virtual time: 30 frames a
 *     minute heard, one in three asking for us, against RADIO_TX_PER_MINUTE
 *     6 (the default): what went out, what the budget dropped, and the
 *     airtime used (HDLC bits of each repeated frame plus a 300 ms key-up).
 */
import { decodeFrame, digipeat, encodeFrame, hdlcBits, parseTnc2, type Ax25Frame, type DigipeatRules } from "../radio/index.ts";
import type { Core } from "../src/hosts/gateway.ts";
import { Digipeater } from "../src/radio-node/digipeater.ts";
import { TokenBucket } from "../src/radio-node/tx.ts";
import { perSecond, printRates, table } from "./lib/stats.ts";

const PATHS = [
  "",
  ",WIDE1-1,WIDE2-1",
  ",WIDE2-2",
  ",WIDE2-1",
  ",N0OTH-1*,WIDE2-1",
  ",N0OTH-1,WIDE2*",
  ",WIDE1,N0OTH-2*",
  ",WIDE3-3",
  ",RELAY,WIDE2-1",
  ",N0OTH-1,N0OTH-2*,WIDE3-1",
];

function frames(n: number): Ax25Frame[] {
  const out: Ax25Frame[] = [];
  for (let i = 0; i < n; i++) {
    const r = parseTnc2(`N${i % 10}AB${String.fromCharCode(65 + (i % 26))}-${(i % 15) + 1}>APRS${PATHS[i % PATHS.length]}:!4237.14N/07120.83W>bench ${i}`);
    if (!r.ok) throw r.error;
    out.push(r.value);
  }
  return out;
}

function core(now: () => number): Core {
  return { clock: { now } } as unknown as Core;
}

export async function run() {
  const rules: DigipeatRules = { mode: "wide", call: { call: "N0GW", ssid: 10 }, aliases: [{ call: "RELAY", ssid: 0 }], maxHops: 2 };
  const mix = frames(10_000);
  const wire = mix.map((f) => encodeFrame(f));
  const decideRate = perSecond(mix, (f) => digipeat(f, rules));
  const decodeRate = perSecond(wire, (b) => decodeFrame(b));

  // the service: a new frame each time mostly, as a channel carries them; a transmitter that always has room
  let t = 0;
  const digi = new Digipeater(
    core(() => t),
    { mode: "wide", call: "N0GW-10", aliases: ["RELAY"], maxHops: 2, viscousS: 0, send: () => "sent" },
  );
  const serviceRate = perSecond(mix, (f) => {
    t += 10;
    digi.heard(f, "bench");
  });

  // an hour of a busy channel, virtual time
  let v = 0;
  const bucket = new TokenBucket(6, 0);
  let airMs = 0;
  const busy = new Digipeater(
    core(() => v),
    {
      mode: "wide",
      call: "N0GW-10",
      aliases: [],
      maxHops: 2,
      viscousS: 0,
      send: (f) => {
        if (!bucket.take(v)) return "rate-limited";
        airMs += 300 + (hdlcBits(encodeFrame(f)) / 1200) * 1000;
        return "sent";
      },
    },
  );
  const hour = frames(30 * 60);
  hour.forEach((f, i) => {
    v = i * 2000;
    busy.heard(f, "air");
  });
  const s = busy.status();
  const heardAirMs = hour.reduce((a, f) => a + (hdlcBits(encodeFrame(f)) / 1200) * 1000 + 300, 0);

  printRates("digipeat: decisions per second (one core, in process)", [
    ["rule alone (radio/digipeat.ts)", decideRate],
    ["the station's digipeater (window, echo, counters)", serviceRate],
    ["reference: decoding the same frames from bytes", decodeRate],
  ]);
  console.log("\ndigipeat: an hour of a busy 1200 baud channel (30 frames/min heard), RADIO_TX_PER_MINUTE 6");
  console.log(
    table([
      { what: "frames heard", value: s.heard },
      { what: "asking for us (would repeat with no budget)", value: s.repeated + s.dropped.budget },
      { what: "repeated", value: s.repeated },
      { what: "dropped: budget", value: s.dropped.budget },
      { what: "dropped: not for us / used up / too many hops", value: `${s.dropped["not-for-us"]} / ${s.dropped["used-up"]} / ${s.dropped["too-many-hops"]}` },
      { what: "our airtime, s per minute (of 60)", value: (airMs / 1000 / 60).toFixed(2) },
      { what: "channel airtime heard, s per minute", value: (heardAirMs / 1000 / 60).toFixed(2) },
    ]),
  );
  return { decideRate, serviceRate, decodeRate, repeated: s.repeated, budget: s.dropped.budget, airSPerMin: airMs / 1000 / 60 };
}

if (import.meta.main) await run();
