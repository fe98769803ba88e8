/**
 * Playing from a radio, end to end over a fake TNC: a player's radio sends
 * APRS messages to the station's call (RADIO_CALL) and the gateway answers on
 * the air. What the player's radio sees is what is asserted: the acks, the
 * answers (at most 67 characters each, numbered when split), and what the
 * logbook, the profile and the find record show afterwards. The clock is the
 * test's: rate windows and retries do not depend on the machine's speed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, tnc2Text, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { waitFor } from "../helpers/wait.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";
import { syncAll } from "../../src/fed/sync.ts";
import { aprsPos } from "../helpers/aprs.ts";
import { handClock } from "../helpers/clock.ts";

const CALL = "N0GW-10";
const clock = handClock();
let g: Running;
let tnc: FakeTnc;
let owner: TestUser;
const caches: Array<{ id: number; code: string; gid: string }> = [];

const json = (r: Response) => r.json() as Promise<any>;

/** Everything the gateway put on the air to `to`, as [kind, text] from `from` on. */
function heardBy(to: string, from = 0): Array<{ text: string; id?: string }> {
  return tnc.sent
    .slice(from)
    .map(tnc2Text)
    .filter((l) => l.startsWith(`${CALL}>`) && l.includes(`::${to.padEnd(9, " ")}:`))
    .map((l) => {
      const body = l.slice(l.indexOf(`::${to.padEnd(9, " ")}:`) + 12);
      const m = /^(.*)\{(\w{1,5})$/.exec(body);
      return m ? { text: m[1]!, id: m[2]! } : { text: body };
    });
}

/** The player's radio sends `text` (with a message id, as a Kenwood does) and waits for what comes back. */
async function ask(from: string, text: string, id?: string, expect: { answers?: number; acks?: number; noAck?: boolean } = {}) {
  const mark = tnc.sent.length;
  tnc.hear(tnc2Frame(`${from}>APK005,WIDE1-1::${CALL.padEnd(9, " ")}:${text}${id ? `{${id}` : ""}`));
  const want = (expect.answers ?? 1) + (expect.acks ?? (id ? 1 : 0));
  if (want > 0) await waitFor(() => heardBy(from, mark).length >= want, `${want} frames to ${from} after "${text}"`);
  else await Bun.sleep(300);
  // and nothing more arrives right after
  await Bun.sleep(100);
  const got = heardBy(from, mark);
  // the radio acks each answer, as a Kenwood does; a few seconds pass on the air
  if (!expect.noAck) for (const m of got) if (m.id) tnc.hear(tnc2Frame(`${from}>APK005,WIDE1-1::${CALL.padEnd(9, " ")}:ack${m.id}`));
  clock.advance(3000);
  return { acks: got.filter((m) => m.text.startsWith("ack")).map((m) => m.text.slice(3)), answers: got.filter((m) => !m.text.startsWith("ack")) };
}

const position = (from: string, lat: number, lon: number) => tnc.hear(tnc2Frame(`${from}>APK005,WIDE1-1:${aprsPos(lat, lon)}Kenwood`));

async function hide(name: string, lat: number, lon: number, over: Record<string, unknown> = {}, by = owner) {
  const r = await g.post(
    "/api/caches",
    { name, type: "traditional", size: "small", difficulty: 2, terrain: 1.5, lat, lon, hint: "under the big rock", ...over },
    { headers: { cookie: by.cookie } },
  );
  expect(r.status).toBe(201);
  const c = await json(r);
  caches.push({ id: c.id, code: c.code, gid: c.gid });
  return c as { id: number; code: string; gid: string };
}

beforeAll(async () => {
  tnc = fakeTnc();
  g = await startInProcess(
    { INSTANCE: "gw1", FED_PRIVATE_KEY: generateKeyPair().privateKey, KISS_PORTS: tnc.url, RADIO_CALL: CALL, RADIO_PATH: "WIDE1-1", RADIO_TX_PER_MINUTE: "60" },
    { clock },
  );
  await tnc.connected();
  signedInUser(g.gw, "N0GW", { verified: true });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  await hide("Old Oak", 48.1, 11.5);
  await hide("Mill Pond", 48.11, 11.5);
  await hide("Chapel Hill", 48.1, 11.52);
}, 30_000);

afterAll(() => stopAll(g, tnc));

describe("message commands to RADIO_CALL", () => {
  test("HELP and ? answer with the commands; a message with an id is acked, one without is not", async () => {
    const help = await ask("N0PLA-7", "help", "1", { answers: 2 });
    expect(help.acks).toEqual(["1"]);
    expect(help.answers.map((a) => a.text)).toEqual([
      "1/2 Geocaching cmds: NEAR [n], INFO/HINT/LOGS <code>,",
      "2/2 FOUND <code> [text], DNF <code> [text], NOTE <code> text",
    ]);
    // every answer asks for an ack with an id of ours
    expect(help.answers.every((a) => a.id && /^R[0-9A-Z]{4}$/.test(a.id))).toBe(true);
    // "?" is a command when it has an id (without one it is a directed query, APRS 1.01 ch. 15)
    const q = await ask("N0PLA-7", "?", "2", { answers: 2 });
    expect(q.acks).toEqual(["2"]);
    expect(q.answers).toHaveLength(2);
    const bare = await ask("N0PLA-7", `HINT ${caches[0]!.code}`);
    expect(bare.acks).toEqual([]);
    expect(bare.answers).toHaveLength(1);
  });

  test("the reply-ack form {MM}AA of APRS 1.1 is acked with MM", async () => {
    const r = await ask("N0PLA-7", `INFO ${caches[0]!.code}`, "7}AB");
    expect(r.acks).toEqual(["7"]);
    expect(r.answers.length).toBeGreaterThan(0);
  });

  test("a retry of the same message id is acked again but answered once", async () => {
    const first = await ask("N0RTY-9", `HINT ${caches[0]!.code}`, "42");
    expect(first.acks).toEqual(["42"]);
    expect(first.answers.map((a) => a.text)).toEqual([`${caches[0]!.code} hint: under the big rock`]);
    // the radio sends it again when our ack was lost (after the ingest's 30 s duplicate window)
    clock.advance(30_000);
    const again = await ask("N0RTY-9", `HINT ${caches[0]!.code}`, "42", { answers: 0, acks: 1 });
    expect(again).toEqual({ acks: ["42"], answers: [] });
    // a new id is a new command
    const next = await ask("N0RTY-9", `HINT ${caches[0]!.code}`, "43");
    expect(next.answers).toHaveLength(1);
  });

  test("NEAR from a station never heard says there is no position; after its position, the nearest caches with distance, bearing and D/T", async () => {
    const none = await ask("N0NEW-7", "NEAR", "1");
    expect(none.answers.map((a) => a.text)).toEqual(["No position of N0NEW-7 heard yet. Send a position, then NEAR."]);
    position("N0NEW-7", 48.099, 11.5);
    await waitFor(() => g.gw.db.query("SELECT 1 FROM stations WHERE call = 'N0NEW-7' AND lat IS NOT NULL").get(), "N0NEW-7's position stored");
    const near = await ask("N0NEW-7", "near 2", "2");
    expect(near.answers.map((a) => a.text)).toEqual([`${caches[0]!.code} Old Oak 111m N D2/T1.5; ${caches[1]!.code} Mill Pond 1.2km N D2/T1.5;`]);
    // n is at most 5, and a number
    const many = await ask("N0NEW-7", "NEAR 9", "3", { answers: 3 });
    const texts = many.answers.map((a) => a.text);
    expect(texts.map((x) => x.slice(0, 4))).toEqual(["1/3 ", "2/3 ", "3/3 "]);
    expect(texts.every((x) => x.length <= 67)).toBe(true);
    expect(texts.join(" ")).toContain("Chapel Hill");
    const bad = await ask("N0NEW-7", "NEAR lots", "4");
    expect(bad.answers.map((a) => a.text)).toEqual(["NEAR [n]: n is a number, 1 to 5"]);
  });

  test("INFO, HINT in clear, LOGS with the last 3 logs", async () => {
    const c = caches[2]!;
    const info = await ask("N0INF-1", `info ${c.code.toLowerCase()}`, "1", { answers: 2 });
    const all = info.answers.map((a) => a.text).join(" ");
    expect(all).toContain(`${c.code} Chapel Hill`);
    expect(all).toContain("traditional small D2/T1.5 by N0OWN, 0 finds.");
    expect(all).toContain("N48 06.000 E011 31.200");
    for (const [i, who] of ["N0LA", "N0LB", "N0LC", "N0LD"].entries()) await ask(`${who}-7`, `NOTE ${c.code} note ${i}`, "1");
    const logs = await ask("N0INF-1", `LOGS ${c.code}`, "2", { answers: 2 });
    const text = logs.answers.map((a) => a.text).join(" ");
    expect(text).toContain("N0LD-7 note");
    expect(text).toContain("N0LB-7 note");
    expect(text).not.toContain("N0LA-7");
  });

  test("FOUND from a radio-only player: logged as its callsign (no account), Tier C without a sighting; the logbook, profile and find record show it", async () => {
    const c = caches[1]!;
    const r = await ask("N0RAD-7", `FOUND ${c.code} TFTC from the hill`, "11");
    expect(r.answers.map((a) => a.text)).toEqual([`Find on ${c.code} logged for N0RAD-7, Tier C. Beacon there for A.`]);
    const row = g.gw.db.query("SELECT user_id, call, tier, via, text FROM logs WHERE cache_gid = ? AND call = 'N0RAD-7'").get(c.gid) as any;
    expect(row).toEqual({ user_id: null, call: "N0RAD-7", tier: "c", via: "radio", text: "TFTC from the hill" });
    const book = await json(await g.get(`/api/caches/${c.id}/logs`));
    expect(book.logs[0]).toMatchObject({ kind: "find", call: "N0RAD-7", text: "TFTC from the hill", tier: "c" });
    const profile = await json(await g.get("/api/profile/N0RAD"));
    expect(JSON.stringify(profile)).toContain('"finds":1');
    const gid = book.logs[0].gid as string;
    const rec = g.gw.db.query("SELECT frame FROM fed_feed WHERE gid = ?").get(gid) as { frame: Uint8Array };
    const body = decodePayload(decodeFrame(rec.frame).payload).body as Record<string, unknown>;
    expect(body).toMatchObject({ cache: c.gid, kind: "find", call: "N0RAD-7", tier: "c" });
    expect("account" in body).toBe(false); // a radio-only player: no account to name
    // a peer pulls the record and shows the find by callsign
    const peer = await startInProcess({ INSTANCE: "gw2", FED_PRIVATE_KEY: generateKeyPair().privateKey, FED_PEERS: g.url, FED_LOOPBACK_PEERS: "on" });
    try {
      const pulled = await syncAll(peer.gw);
      expect(pulled.peers.find((p) => p.instance === "gw1")).toMatchObject({ ok: true });
      const theirs = await json(await peer.get(`/api/caches/${encodeURIComponent(c.gid)}/logs`));
      expect(theirs.logs.find((l: { call: string }) => l.call === "N0RAD-7")).toMatchObject({ kind: "find", text: "TFTC from the hill", origin: "gw1" });
    } finally {
      await peer.stop();
    }
    // a second FOUND is refused
    const again = await ask("N0RAD-7", `FOUND ${c.code}`, "12");
    expect(again.answers.map((a) => a.text)).toEqual([`N0RAD-7 already logged a find on ${c.code}.`]);
  });

  test("FOUND after the player's position was heard on our radio within 150 m is Tier A, and belongs to the account that verified the call", async () => {
    const player = signedInUser(g.gw, "N0ACC", { verified: true });
    const c = caches[0]!;
    position("N0ACC-7", 48.1005, 11.5);
    await waitFor(() => g.gw.db.query("SELECT 1 FROM positions WHERE call = 'N0ACC-7'").get(), "N0ACC-7's position stored");
    const r = await ask("N0ACC-7", `FOUND ${c.code}`, "5");
    expect(r.answers.map((a) => a.text)).toEqual([`Find on ${c.code} logged for N0ACC-7, Tier A.`]);
    const row = g.gw.db.query("SELECT user_id, tier, corr_igate FROM logs WHERE cache_gid = ? AND call = 'N0ACC-7'").get(c.gid) as any;
    expect(row).toEqual({ user_id: player.id, tier: "a", corr_igate: CALL });
  });

  test("DNF and NOTE; NOTE without text is refused and logs nothing", async () => {
    const c = caches[2]!;
    const dnf = await ask("N0DNF-7", `dnf ${c.code} no luck`, "1");
    expect(dnf.answers.map((a) => a.text)).toEqual([`DNF on ${c.code} logged for N0DNF-7, Tier C.`]);
    const bare = await ask("N0DNF-7", `NOTE ${c.code}`, "2");
    expect(bare.answers.map((a) => a.text)).toEqual(["NOTE <code> text: the note needs text."]);
    const n = g.gw.db.query("SELECT kind FROM logs WHERE call = 'N0DNF-7'").all();
    expect(n).toEqual([{ kind: "dnf" }]);
  });

  test("FOUND on a cache the sender owns is refused, nothing logged", async () => {
    const r = await ask("N0OWN-9", `FOUND ${caches[0]!.code}`, "1");
    expect(r.answers.map((a) => a.text)).toEqual([`${caches[0]!.code} is your own cache: no find logged.`]);
    expect(g.gw.db.query("SELECT count(*) AS n FROM logs WHERE base_call = 'N0OWN'").get()).toEqual({ n: 0 });
  });

  test("an unknown code or command gets a short error, nothing is logged", async () => {
    const before = (g.gw.db.query("SELECT count(*) AS n FROM logs").get() as { n: number }).n;
    const code = await ask("N0ERR-7", "FOUND SVZZZZ9 yes", "1");
    expect(code.answers.map((a) => a.text)).toEqual(["No cache SVZZZZ9. NEAR lists codes near you."]);
    const none = await ask("N0ERR-7", "FOUND", "2");
    expect(none.answers.map((a) => a.text)).toEqual(["Which cache? Send the code, e.g. INFO SV0001"]);
    const verb = await ask("N0ERR-7", "DANCE now", "3");
    expect(verb.answers.map((a) => a.text)).toEqual(["Unknown command DANCE. Send HELP."]);
    // a tactical call is answered, but logs nothing: a log is a licensee's
    const tactical = await ask("ALPHA", `FOUND ${caches[0]!.code}`, "4");
    expect(tactical.answers.map((a) => a.text)).toEqual(["Logs need a callsign such as N0CALL-7."]);
    expect((g.gw.db.query("SELECT count(*) AS n FROM logs").get() as { n: number }).n).toBe(before);
  });

  test("non-ASCII and over-long input: logged as sent, answered in plain ASCII within 67 characters", async () => {
    const c = caches[2]!;
    const long = `NOTE ${c.code} ` + "Très joli endroit ☺, ".repeat(6);
    expect(long.length).toBeGreaterThan(67);
    const r = await ask("N0UTF-7", long, "1");
    expect(r.answers.every((a) => a.text.length <= 67 && /^[\x20-\x7e]*$/.test(a.text))).toBe(true);
    const row = g.gw.db.query("SELECT text FROM logs WHERE call = 'N0UTF-7'").get() as { text: string };
    expect(row.text).toStartWith("Très joli endroit ☺,");
    const logs = await ask("N0UTF-7", `LOGS ${c.code}`, "2", { answers: 2 });
    const all = logs.answers.map((a) => a.text);
    expect(all.every((a) => a.length <= 67 && /^[\x20-\x7e]*$/.test(a))).toBe(true);
    expect(all.join(" ")).toContain("N0UTF-7 note");
    expect(all.join(" ")).toContain("Tres joli endroit ?");
  });

  test("each sender gets 10 commands in 10 minutes: then one 'too many' answer and acks only, until the window passes", async () => {
    for (let i = 1; i <= 10; i++) expect((await ask("N0FLD-7", "HELP", String(i), { answers: 2 })).answers).toHaveLength(2);
    const over = await ask("N0FLD-7", "HELP", "11");
    expect(over.acks).toEqual(["11"]);
    expect(over.answers.map((a) => a.text)).toEqual(["Too many commands: at most 10 in 10 minutes. Wait a little."]);
    const quiet = await ask("N0FLD-7", `FOUND ${caches[0]!.code}`, "12", { answers: 0, acks: 1 });
    expect(quiet).toEqual({ acks: ["12"], answers: [] });
    expect(g.gw.db.query("SELECT 1 FROM logs WHERE call = 'N0FLD-7'").get()).toBeNull();
    // another SSID of the same call shares the allowance
    expect(await ask("N0FLD-9", "HELP", "1", { answers: 0, acks: 1 })).toEqual({ acks: ["1"], answers: [] });
    // another sender is not held back
    expect((await ask("N0OTH-7", "HELP", "1", { answers: 2 })).answers).toHaveLength(2);
    clock.advance(10 * 60_000 + 1000);
    expect((await ask("N0FLD-7", "HELP", "13", { answers: 2 })).answers).toHaveLength(2);
  });

  test("an answer is sent again until the player's radio acks it; an ack from another call settles nothing", async () => {
    const r = await ask("N0ACK-7", `HINT ${caches[1]!.code}`, "1", { noAck: true });
    const id = r.answers[0]!.id!;
    // someone else acks our answer: it is still retried after 30 s
    tnc.hear(tnc2Frame(`N0SPF-1>APRS::${CALL.padEnd(9, " ")}:ack${id}`));
    await Bun.sleep(200);
    let mark = tnc.sent.length;
    clock.advance(31_000);
    const retry = await waitFor(() => heardBy("N0ACK-7", mark).find((m) => m.id === id), "the answer sent again");
    expect(retry.text).toBe(r.answers[0]!.text);
    // the player's radio acks it: no more retries
    tnc.hear(tnc2Frame(`N0ACK-7>APK005::${CALL.padEnd(9, " ")}:ack${id}`));
    await Bun.sleep(200);
    mark = tnc.sent.length;
    clock.advance(61_000);
    await Bun.sleep(1500);
    expect(heardBy("N0ACK-7", mark)).toEqual([]);
  });

  test("the reply-ack of the player's next message ({MM}AA, APRS 1.1) settles our answer AA: it is not sent again", async () => {
    const r = await ask("N0RAK-7", `HINT ${caches[2]!.code}`, "1", { noAck: true });
    const id = r.answers[0]!.id!;
    const next = await ask("N0RAK-7", `INFO ${caches[2]!.code}`, `2}${id}`, { answers: 2 });
    expect(next.acks).toEqual(["2"]);
    const mark = tnc.sent.length;
    clock.advance(31_000);
    await Bun.sleep(1500);
    expect(heardBy("N0RAK-7", mark).filter((m) => m.id === id)).toEqual([]);
  });

  test("messages to other calls are not commands", async () => {
    const mark = tnc.sent.length;
    tnc.hear(tnc2Frame(`N0OTR-7>APK005::N0ELSE   :HELP{1`));
    await Bun.sleep(400);
    expect(
      tnc.sent
        .slice(mark)
        .map(tnc2Text)
        .filter((l) => l.includes("N0OTR-7")),
    ).toEqual([]);
  });
});
