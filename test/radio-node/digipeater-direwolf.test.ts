/**
 * The digipeater on the air, against Direwolf's own (issue 27 item 3): two
 * Direwolf pairs on the simulated air link (../helpers/direwolf.ts). In the
 * first, Direwolf A is a station and Direwolf B the gateway's TNC, the
 * gateway digipeating (DIGIPEAT=wide, RADIO_CALL N0GW-10); in the second, A
 * is the same station and B is Direwolf 1.6 digipeating as N0GW-10 with the
 * same rules (DIGIPEAT ... TRACE). The same frames go out of both A's; each
 * A hears the repeats back, and the two must be the same frames, path and
 * C bits included: WIDEn-N traced and decremented, an alias and our call
 * used, the 8-digipeater limit, a v1 frame, and no repeat of a frame used
 * up, asking too many hops, or the same within 30 s.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { direwolfInstalled, startDirewolfPair, type DirewolfPair } from "../helpers/direwolf.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { decodeFrame, encodeFrame, formatTnc2, KissPort, parseTnc2, tcpTransport, type Ax25Frame } from "../../radio/index.ts";
import { waitFor } from "../helpers/wait.ts";

const CALL = "N0GW-10";
/** The frames each station sends, in order; the ones marked true are repeated. */
const SENT: Array<[string, boolean, Ax25Frame["cr"]?]> = [
  ["N0SA-1>APRS,WIDE1-1:a", true],
  ["N0SA-2>APRS,WIDE1-1,WIDE2-1:b", true],
  ["N0SA-3>APRS,WIDE2-2:c", true],
  ["N0SA-4>APRS,WIDE2-1:d", true],
  [`N0SA-5>APRS,${CALL}:e`, true],
  ["N0SA-6>APRS,WIDE1*,WIDE2-1:f", true],
  ["N0SA-7>APRS,WIDE3-3:too many hops", false],
  ["N0SA-8>APRS,RELAY,WIDE2-1:alias", true],
  ["N0SA-9>APRS,N0X*,WIDE2-2:i", true],
  ["N0SA-10>APRS,A1,A2,A3,A4,A5,A6,A7*,WIDE2-2:eight", true],
  ["N0SA-11>APRS,WIDE1,WIDE2*:used up", false],
  ["N0SA-12>APRS,WIDE1-1:v1 frame", true, "v1-00"],
  ["N0SA-4>APRS,WIDE2-1:d", false], // the same within 30 s
];
const REPEATS = SENT.filter(([, r]) => r).length;

let ours: DirewolfPair;
let theirs: DirewolfPair;
let g: Running;
const ports: KissPort[] = [];

beforeAll(async () => {
  if (!direwolfInstalled()) return;
  [ours, theirs] = await Promise.all([
    startDirewolfPair({ calls: ["N0DWA-1", "N0DWB-1"] }),
    // Direwolf's digipeater with our rules: aliases RELAY, WIDE1-1 and WIDE2-N up to 2 hops, traced
    startDirewolfPair({ calls: ["N0DWA-1", CALL], extra: [[], ["DIGIPEAT 0 0 ^RELAY$ ^WIDE1-1$|^WIDE2-[12]$ TRACE"]] }),
  ]);
  g = await startInProcess({
    KISS_PORTS: `tcp://127.0.0.1:${ours.b.kissPort}`,
    RADIO_CALL: CALL,
    DIGIPEAT: "wide",
    DIGIPEAT_ALIASES: "RELAY",
    RADIO_TX_PER_MINUTE: "60",
  });
  signedInUser(g.gw, "N0GW", { verified: true });
  await radioOf(g.gw)!.radio.ports[0]!.port.whenConnected();
}, 60_000);

afterAll(async () => {
  await Promise.all(ports.map((p) => p.close()));
  await g?.stop();
  await Promise.all([ours?.stop(), theirs?.stop()]);
});

/** A KISS client on a station's Direwolf: what it hears (APRS frames, as TNC2 text with their C bits). */
async function station(dw: { kissPort: number }) {
  const port = new KissPort(tcpTransport("127.0.0.1", dw.kissPort)).start();
  ports.push(port);
  await port.whenConnected();
  const heard: string[] = [];
  port.onFrame((bytes) => {
    const f = decodeFrame(bytes);
    if (!f.ok || f.value.dest.call !== "APRS") return;
    const t = formatTnc2(f.value);
    heard.push(`${t.ok ? new TextDecoder().decode(t.value) : "?"} ${f.value.cr}`);
  });
  return { port, heard };
}

describe("the digipeater beside Direwolf's own", () => {
  test.skipIf(!direwolfInstalled())(
    "the same frames heard back from the gateway and from Direwolf 1.6 digipeating, path and bits alike; used-up, too-many-hops and duplicates not repeated by either",
    async () => {
      const [a, b] = await Promise.all([station(ours.a), station(theirs.a)]);
      for (const [line, , cr] of SENT) {
        const r = parseTnc2(line);
        if (!r.ok) throw r.error;
        const bytes = encodeFrame({ ...r.value, cr: cr ?? "command" });
        a.port.sendFrame(bytes);
        b.port.sendFrame(bytes);
        await Bun.sleep(1500);
      }
      await waitFor(
        () => a.heard.length >= REPEATS && b.heard.length >= REPEATS,
        () => `${REPEATS} repeats each: ours ${a.heard.join(" | ")}; Direwolf's ${b.heard.join(" | ")}`,
        {
          timeoutMs: 30_000,
        },
      );
      // nothing more comes
      await Bun.sleep(3000);
      expect(a.heard).toEqual(b.heard);
      expect(a.heard).toEqual([
        `N0SA-1>APRS,${CALL}*:a command`,
        `N0SA-2>APRS,${CALL}*,WIDE2-1:b command`,
        `N0SA-3>APRS,${CALL}*,WIDE2-1:c command`,
        `N0SA-4>APRS,${CALL}*:d command`,
        `N0SA-5>APRS,${CALL}*:e command`,
        `N0SA-6>APRS,WIDE1,${CALL}*:f command`,
        `N0SA-8>APRS,${CALL}*,WIDE2-1:alias command`,
        `N0SA-9>APRS,N0X,${CALL}*,WIDE2-1:i command`,
        "N0SA-10>APRS,A1,A2,A3,A4,A5,A6,A7*,WIDE2-1:eight command",
        `N0SA-12>APRS,${CALL}*:v1 frame v1-00`,
      ]);
      const digi = ((await (await g.get("/api/ports")).json()).ports as Array<Record<string, unknown>>).find((p) => p.name === "digipeater");
      expect(digi).toMatchObject({
        state: "up",
        heard: SENT.length,
        repeated: REPEATS,
        dropped: { duplicate: 1, "used-up": 1, "too-many-hops": 1 },
      });
      // Direwolf's log agrees on the duplicate
      expect(theirs.b.log()).toContain("Digipeater: Drop redundant packet");
    },
    120_000,
  );
});
