/**
 * aprx (Debian's aprx 2.9) as a second reference for the RF-to-APRS-IS
 * rules: it is an iGate fed by our KISS server (KISS_SERVER), so it hears
 * every frame our radio (a fake TNC) hears, and logs in to its own small
 * APRS-IS server here; our iGate logs in to another. The same frames go to
 * both; both servers must receive the same lines, each with its own qAR.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess, TCPSocketListener } from "bun";
import { existsSync } from "node:fs";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { fakeTnc, tnc2Frame, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait.ts";
import { APRX, startAprx } from "../helpers/aprx.ts";
import { aprsIsPasscode } from "../../src/lib/aprs/passcode.ts";

const OURS = "N0GW-10";
const THEIRS = "N0APX-10";

/** A minimal APRS-IS server: answers every login `verified`, keeps the lines each login sends. */
function isServer(): { port: number; lines: string[]; logins: string[]; stop(): void } {
  const lines: string[] = [];
  const logins: string[] = [];
  const partial = new Map<unknown, string>();
  const server: TCPSocketListener<undefined> = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        s.write("# test-aprsis 1.0\r\n");
      },
      data(s, d) {
        let text = (partial.get(s) ?? "") + new TextDecoder("latin1").decode(d);
        let nl: number;
        while ((nl = text.indexOf("\n")) >= 0) {
          const line = text.slice(0, nl).replace(/\r$/, "");
          text = text.slice(nl + 1);
          if (line.startsWith("user ")) {
            logins.push(line);
            s.write(`# logresp ${line.split(" ")[1]} verified, server T2TEST\r\n`);
          } else if (line && !line.startsWith("#")) lines.push(line);
        }
        partial.set(s, text);
      },
    },
  });
  return { port: server.port, lines, logins, stop: () => server.stop(true) };
}

const FRAMES = [
  "N0A-1>APRS,WIDE1-1,WIDE2-1:!4237.14N/07120.83W-direct",
  "N0B-2>APRS,N0DIG-1*,WIDE2-1:>digipeated once",
  "N0C-3>APRS,NOGATE:>nogate",
  "N0D-4>APRS,RFONLY:>rfonly",
  "N0E-5>APRS,TCPIP*:>tcpip",
  "N0F-6>APRS,TCPXX*:>tcpxx",
  "N0G-7>APRS,WIDE1*:}N0IN-1>APRS,TCPIP,N0G-7*::N0A-1    :from the internet{1",
  "N0H-8>APRS:?IGATE?",
  "N0K-2>APRS,WIDE1*:}N0IN-2>APXYZ,N0RELAY*:>third-party from another network",
  "N0I-9>APRS,WIDE1-1::N0A-1    :a message{2",
  "N0J-1>APRS:>status with a CR\rand more",
];

let tnc: FakeTnc;
let g: Running;
let ourIs: ReturnType<typeof isServer>;
let theirIs: ReturnType<typeof isServer>;
let aprx: Subprocess<"ignore", "pipe", "pipe"> | null = null;
let aprxOut = "";

beforeAll(async () => {
  if (!existsSync(APRX)) return;
  ourIs = isServer();
  theirIs = isServer();
  tnc = fakeTnc();
  g = await startInProcess({
    KISS_PORTS: tnc.url,
    RADIO_CALL: OURS,
    KISS_SERVER: "127.0.0.1:0",
    APRSIS_SERVER: `127.0.0.1:${ourIs.port}`,
    APRSIS_CALL: OURS,
    IGATE: "on",
  });
  await tnc.connected();
  const dir = tmpDir();
  aprx = startAprx(
    dir,
    {
      call: THEIRS,
      kissPort: g.gw.hub!.kiss!.port,
      txOk: false,
      before: ["<aprsis>", `  passcode ${aprsIsPasscode(THEIRS)}`, `  server 127.0.0.1 ${theirIs.port}`, "</aprsis>"],
    },
    (text) => (aprxOut += text),
  );
}, 30_000);

afterAll(async () => {
  if (process.env.DUMP) console.log(aprxOut);
  if (aprx && aprx.exitCode === null) aprx.kill();
  await aprx?.exited;
  await g?.stop();
  tnc?.stop();
  ourIs?.stop();
  theirIs?.stop();
});

const strip = (line: string, igate: string) => line.replace(`,qAR,${igate}:`, ":");

describe("iGate rules beside aprx's", () => {
  test.skipIf(!existsSync(APRX))(
    "the same frames heard: both gate the same lines, each with qAR and its own call",
    async () => {
      await waitFor(
        () => theirIs.logins.length && ourIs.logins.length,
        () => `both logins (aprx said: ${aprxOut.slice(-500)})`,
        { timeoutMs: 20_000 },
      );
      await waitFor(
        async () => (await (await g.get("/api/ports")).json()).ports.find((p: { name: string }) => p.name === "kiss-server")?.clients?.length,
        "aprx on the KISS server",
        {
          timeoutMs: 20_000,
        },
      );
      await waitFor(
        async () => (await (await g.get("/api/ports")).json()).ports.find((p: { name: string }) => p.name === "aprs-is")?.igate?.uplink,
        "our uplink",
      );
      for (const f of FRAMES) tnc.hear(tnc2Frame(f));
      tnc.hear(tnc2Frame("N0Z-9>APRS:>the end"));
      await waitFor(
        () => theirIs.lines.some((l) => l.startsWith("N0Z-9>")) && ourIs.lines.some((l) => l.startsWith("N0Z-9>")),
        () => `both gated the last frame; aprx: ${JSON.stringify(theirIs.lines)}`,
        {
          timeoutMs: 20_000,
        },
      );
      const ours = ourIs.lines.filter((l) => /^N0[A-Z]-\d>|^N0IN/.test(l));
      const theirs = theirIs.lines.filter((l) => /^N0[A-Z]-\d>|^N0IN/.test(l));
      for (const l of ours) expect(l).toContain(`,qAR,${OURS}:`);
      for (const l of theirs) expect(l).toContain(`,qAR,${THEIRS}:`);
      expect(ours.map((l) => strip(l, OURS))).toEqual(theirs.map((l) => strip(l, THEIRS)));
      expect(ours.map((l) => strip(l, OURS))).toEqual([
        "N0A-1>APRS,WIDE1-1,WIDE2-1:!4237.14N/07120.83W-direct",
        "N0B-2>APRS,N0DIG-1*,WIDE2-1:>digipeated once",
        // a third-party frame goes up by its inner header, the RF header stripped
        "N0IN-2>APXYZ,N0RELAY*:>third-party from another network",
        "N0I-9>APRS,WIDE1-1::N0A-1    :a message{2",
        "N0J-1>APRS:>status with a CR",
        "N0Z-9>APRS:>the end",
      ]);
    },
    60_000,
  );
});
