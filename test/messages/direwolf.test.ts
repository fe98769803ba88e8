/**
 * Messaging on the simulated air link (two real Direwolf 1.6 TNCs joined by
 * FIFO audio, ../helpers/direwolf.ts): the gateway behind Direwolf B, the
 * other station a KISS client of Direwolf A. A message written through the
 * web app's API is heard at the other station; the ack that station sends
 * back through Direwolf moves the message to acked, as does a reply carrying
 * the APRS 1.1 reply-ack; and the reply shows in the conversation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { direwolfInstalled, startDirewolfPair, tnc2Listener, type DirewolfPair } from "../helpers/direwolf.ts";
import { waitFor } from "../helpers/wait.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { encodeFrame, type KissPort, parseTnc2 } from "../../radio/index.ts";

const OTHER = "K1RAD-7";
let pair: DirewolfPair;
let g: Running;
let port: KissPort;
let me: TestUser;
/** what the other station's radio received, as TNC2 text */
const heard: string[] = [];

const send = (line: string) => {
  const r = parseTnc2(line);
  if (!r.ok) throw r.error;
  port.sendFrame(encodeFrame(r.value));
};

beforeAll(async () => {
  if (!direwolfInstalled()) return;
  pair = await startDirewolfPair({ calls: ["N0DWA-2", "N0DWB-2"] });
  g = await startInProcess({
    KISS_PORTS: `tcp://127.0.0.1:${pair.b.kissPort}`,
    RADIO_CALL: "N0GW-10",
    RADIO_PATH: "WIDE1-1",
    RADIO_TX_PER_MINUTE: "30",
  });
  signedInUser(g.gw, "N0GW", { verified: true });
  me = signedInUser(g.gw, "N0TX-7", { verified: true });
  await radioOf(g.gw)!.radio.ports[0]!.port.whenConnected();
  port = await tnc2Listener(pair.a.kissPort, (line) => heard.push(line));
}, 60_000);

afterAll(async () => {
  await port?.close();
  await g?.stop();
  await pair?.stop();
});

const post = async (to: string, text: string) => {
  const r = await g.post("/api/messages", { to, text }, { headers: { cookie: me.cookie } });
  expect(r.status).toBe(200);
  return (await r.json()).message as { id: string; msgId: string };
};
const conversation = async () =>
  (await (await g.get(`/api/messages/with/${OTHER}`, { headers: { cookie: me.cookie } })).json()).messages as Array<{
    id: string;
    direction: string;
    text: string;
    state?: string;
  }>;

describe("a message from the web app on the air", () => {
  test.skipIf(!direwolfInstalled())(
    "reaches the other Direwolf; the ack sent back through Direwolf moves it to acked; a reply-ack does too",
    async () => {
      const m = await post(OTHER, "meet at the lake");
      const line = `N0TX-7>APZSVC,WIDE1-1::${OTHER.padEnd(9, " ")}:meet at the lake{${m.msgId}`;
      await waitFor(
        () => heard.includes(line),
        () => `the message heard by the other station: ${heard.join(" | ")}`,
        { timeoutMs: 30_000 },
      );
      send(`${OTHER}>APK005,WIDE1-1::N0TX-7   :ack${m.msgId}`);
      await waitFor(async () => (await conversation()).find((x) => x.id === m.id)?.state === "acked", "acked", { timeoutMs: 30_000 });

      const second = await post(OTHER, "bring the logbook");
      await waitFor(() => heard.some((l) => l.endsWith(`:bring the logbook{${second.msgId}`)), "the second message heard", { timeoutMs: 30_000 });
      send(`${OTHER}>APK005,WIDE1-1::N0TX-7   :will do{AA}${second.msgId}`);
      await waitFor(async () => (await conversation()).find((x) => x.id === second.id)?.state === "acked", "acked by the reply-ack", {
        timeoutMs: 30_000,
      });
      expect((await conversation()).map((x) => [x.direction, x.text, x.state])).toEqual([
        ["out", "meet at the lake", "acked"],
        ["out", "bring the logbook", "acked"],
        ["in", "will do", undefined],
      ]);
      // acked: not sent again
      const count = heard.length;
      await Bun.sleep(2000);
      expect(heard.slice(count).filter((l) => l.startsWith("N0TX-7>"))).toEqual([]);
    },
    120_000,
  );
});
