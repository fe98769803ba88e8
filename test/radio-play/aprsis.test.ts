/**
 * Commands that come over APRS-IS, answered there: gateway A logs in as
 * APRSIS_CALL to gateway B's APRS-IS server (APRSIS_LISTEN); a player logged
 * in to B sends messages to that call. The acks and answers reach the player
 * through B. A find over APRS-IS is never Tier A by itself: its position came
 * over APRS-IS too, which is no RF sighting.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { lineClient, type LineClient } from "../helpers/line-client.ts";
import { waitFor } from "../helpers/wait.ts";
import { aprsIsPasscode } from "../../src/lib/aprs/passcode.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";

const CALL = "N0GW-10";
const PLAYER = "N0ISP-9";
let a: Running;
let b: Running;
let player: LineClient;
let cache: { id: number; code: string; gid: string };

/** Messages the player got from CALL: [text, id]. */
const inbox = () =>
  player.lines
    .filter((l) => l.startsWith(`${CALL}>`) && l.includes(`::${PLAYER.padEnd(9, " ")}:`))
    .map((l) => l.slice(l.indexOf(`::${PLAYER.padEnd(9, " ")}:`) + 12));

async function ask(text: string, id: string, answers: number): Promise<string[]> {
  const before = inbox().filter((m) => !m.startsWith("ack")).length;
  player.send(`${PLAYER}>APRS,TCPIP*::${CALL.padEnd(9, " ")}:${text}{${id}`);
  await waitFor(
    () => inbox().includes(`ack${id}`) && inbox().filter((m) => !m.startsWith("ack")).length >= before + answers,
    () => `the ack and answer to "${text}": ${player.lines.join(" | ")}`,
  );
  const got = inbox()
    .filter((m) => !m.startsWith("ack"))
    .slice(before);
  // the player's client acks each answer
  for (const m of got) {
    const mid = /\{(\w{1,5})$/.exec(m)?.[1];
    if (mid) player.send(`${PLAYER}>APRS,TCPIP*::${CALL.padEnd(9, " ")}:ack${mid}`);
  }
  return got.map((m) => m.replace(/\{\w{1,5}$/, ""));
}

beforeAll(async () => {
  b = await startInProcess({ APRSIS_LISTEN: "127.0.0.1:0" });
  a = await startInProcess({
    INSTANCE: "gw1",
    FED_PRIVATE_KEY: generateKeyPair().privateKey,
    APRSIS_SERVER: `127.0.0.1:${b.gw.hub!.aprsIs!.port}`,
    APRSIS_CALL: CALL,
    // the station's APRS service call too: its messages were also acked by the outbox, so twice
    FED_APRS_CALL: CALL,
    // the player's positions
    APRSIS_FILTER: "b/N0ISP*",
  });
  signedInUser(a.gw, "N0GW", { verified: true });
  const owner = signedInUser(a.gw, "N0OWN", { verified: true });
  const r = await a.post(
    "/api/caches",
    { name: "Harbour", type: "traditional", size: "micro", difficulty: 3, terrain: 1, lat: 48.1, lon: 11.5, hint: "magnetic" },
    { headers: { cookie: owner.cookie } },
  );
  cache = (await r.json()) as typeof cache;
  await waitFor(async () => {
    const ports = (await (await a.get("/api/ports")).json()) as { ports: Array<{ name: string; transmitting?: boolean }> };
    return ports.ports.find((p) => p.name === "aprs-is")?.transmitting;
  }, "A's verified login to B");
  player = await lineClient(b.gw.hub!.aprsIs!.port);
  player.send(`user ${PLAYER} pass ${aprsIsPasscode(PLAYER)} vers TestClient 1.0`);
  await player.waitFor(/^# logresp .* verified/);
}, 30_000);

afterAll(async () => {
  player?.close();
  await a?.stop();
  await b?.stop();
});

describe("commands over APRS-IS", () => {
  test("a message to APRSIS_CALL is acked and answered on APRS-IS; NEAR uses the position that came over APRS-IS", async () => {
    expect(await ask(`HINT ${cache.code}`, "1", 1)).toEqual([`${cache.code} hint: magnetic`]);
    player.send(`${PLAYER}>APRS,TCPIP*:!4806.03N/01130.00E[`);
    await waitFor(() => a.gw.db.query("SELECT 1 FROM stations WHERE call = ? AND lat IS NOT NULL").get(PLAYER), "the player's position on A");
    expect(await ask("NEAR", "2", 1)).toEqual([`${cache.code} Harbour 56m S D3/T1;`]);
  });

  test("FOUND over APRS-IS 56 m from the cache is Tier C: a position over APRS-IS is no RF sighting", async () => {
    expect(await ask(`FOUND ${cache.code}`, "3", 1)).toEqual([`Find on ${cache.code} logged for ${PLAYER}, Tier C. Beacon there for A.`]);
    const row = a.gw.db.query("SELECT tier, via, user_id FROM logs WHERE call = ?").get(PLAYER);
    expect(row).toEqual({ tier: "c", via: "aprsis", user_id: null });
  });

  test("a command to FED_APRS_CALL is acked once, not again by the outbox", async () => {
    await ask("HELP", "4", 1);
    // a later command's answer: anything queued for the first one has been sent by then
    await ask(`INFO ${cache.code}`, "5", 1);
    expect(inbox().filter((m) => m === "ack4")).toEqual(["ack4"]);
    expect(a.gw.db.query("SELECT count(*) AS n FROM aprs_outbox WHERE kind = 'ack'").get()).toEqual({ n: 0 });
  });
});
