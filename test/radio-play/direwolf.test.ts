/**
 * Playing from a radio on the simulated air link (two real Direwolf TNCs,
 * ../helpers/direwolf.ts): the gateway's TNC is Direwolf B; the player is a
 * KISS client on Direwolf A sending as a Kenwood does (its tocall, WIDE1-1,
 * message ids, acking every message it receives). It beacons its position
 * near a cache, then sends NEAR, HINT and FOUND: each is acked, each is
 * answered, and the find is Tier A (its position was heard on our radio).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { direwolfInstalled, startDirewolfPair, tnc2Listener, type DirewolfPair } from "../helpers/direwolf.ts";
import { waitFor } from "../helpers/wait.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { encodeFrame, type KissPort, parseTnc2 } from "../../radio/index.ts";

const CALL = "N0GW-10";
const PLAYER = "N0KEN-7";
let pair: DirewolfPair;
let g: Running;
let port: KissPort;
/** what the player's radio received, as TNC2 text */
const heard: string[] = [];
let cache: { id: number; code: string; gid: string };

const send = (line: string) => {
  const r = parseTnc2(line);
  if (!r.ok) throw r.error;
  port.sendFrame(encodeFrame(r.value));
};

/** Messages addressed to the player: [text, id]. */
const inbox = () =>
  heard
    .filter((l) => l.startsWith(`${CALL}>`) && l.includes(`::${PLAYER.padEnd(9, " ")}:`))
    .map((l) => {
      const body = l.slice(l.indexOf(`::${PLAYER.padEnd(9, " ")}:`) + 12);
      const m = /^(.*)\{(\w{1,5})$/.exec(body);
      return m ? { text: m[1]!, id: m[2]! } : { text: body, id: null };
    });

beforeAll(async () => {
  if (!direwolfInstalled()) return;
  pair = await startDirewolfPair({ calls: ["N0DWA-1", "N0DWB-1"] });
  g = await startInProcess({
    INSTANCE: "gw1",
    FED_PRIVATE_KEY: generateKeyPair().privateKey,
    KISS_PORTS: `tcp://127.0.0.1:${pair.b.kissPort}`,
    RADIO_CALL: CALL,
    RADIO_PATH: "WIDE1-1",
    RADIO_TX_PER_MINUTE: "30",
  });
  signedInUser(g.gw, "N0GW", { verified: true });
  const owner = signedInUser(g.gw, "N0OWN", { verified: true });
  const r = await g.post(
    "/api/caches",
    { name: "Lakeside", type: "traditional", size: "small", difficulty: 1.5, terrain: 2, lat: 44.5, lon: -73.2, hint: "behind the bench" },
    { headers: { cookie: owner.cookie } },
  );
  cache = (await r.json()) as typeof cache;
  await radioOf(g.gw)!.radio.ports[0]!.port.whenConnected();
  port = await tnc2Listener(pair.a.kissPort, (line) => {
    heard.push(line);
    // the radio acks every message to it that has an id
    const m = new RegExp(`^[^>]+>[^:]*::${PLAYER}\\s*:(?!ack|rej).*\\{(\\w{1,5})$`).exec(line);
    if (m) send(`${PLAYER}>APK005,WIDE1-1::${line.slice(0, line.indexOf(">")).padEnd(9, " ")}:ack${m[1]}`);
  });
}, 60_000);

afterAll(async () => {
  await port?.close();
  await g?.stop();
  await pair?.stop();
});

describe("a Kenwood on the air", () => {
  test.skipIf(!direwolfInstalled())(
    "its position heard, then NEAR, HINT and FOUND with message ids: each acked and answered, and the find is Tier A",
    async () => {
      // a position beacon 37 m north of the cache, as a TH-D74 sends it (compressed is not needed: plain lat/lon)
      send(`${PLAYER}>APK005,WIDE1-1:=4430.02N/07312.00W[TH-D74`);
      await waitFor(() => g.gw.db.query("SELECT 1 FROM positions WHERE call = ? AND via = 'tnc'").get(PLAYER), "the player's position heard on our radio", {
        timeoutMs: 20_000,
      });
      const ask = async (text: string, id: string, answers: number) => {
        const before = inbox().filter((m) => !m.text.startsWith("ack")).length;
        send(`${PLAYER}>APK005,WIDE1-1::${CALL.padEnd(9, " ")}:${text}{${id}`);
        await waitFor(
          () => inbox().some((m) => m.text === `ack${id.split("}")[0]}`) && inbox().filter((m) => !m.text.startsWith("ack")).length >= before + answers,
          () => `the ack and ${answers} answer(s) to "${text}": ${heard.join(" | ")}`,
          { timeoutMs: 30_000 },
        );
        return inbox()
          .filter((m) => !m.text.startsWith("ack"))
          .slice(before)
          .map((m) => m.text);
      };
      expect(await ask("NEAR", "01", 1)).toEqual([`${cache.code} Lakeside 37m S D1.5/T2;`]);
      expect(await ask(`HINT ${cache.code}`, "02}", 1)).toEqual([`${cache.code} hint: behind the bench`]);
      expect(await ask(`FOUND ${cache.code} TNX from the lake`, "03", 1)).toEqual([`Find on ${cache.code} logged for ${PLAYER}, Tier A.`]);
      const book = (await (await g.get(`/api/caches/${cache.id}/logs`)).json()) as { logs: Array<Record<string, unknown>> };
      expect(book.logs[0]).toMatchObject({ kind: "find", call: PLAYER, text: "TNX from the lake", tier: "a", corroboration: { igate: CALL } });
      // every answer got the radio's ack: nothing is sent again
      const count = heard.length;
      await Bun.sleep(2000);
      expect(heard.slice(count).filter((l) => l.startsWith(`${CALL}>`))).toEqual([]);
    },
    120_000,
  );
});
