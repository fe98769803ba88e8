/**
 * Alerts against a real gateway and a fake TNC: a user's watch list (told
 * live when a watched station is heard, once in 30 minutes), and emergency
 * positions (Mic-E "Emergency", the \! symbol and its overlays) pushed to
 * the sysop and told to the station's watchers, and listed for the map.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { liveClient } from "../helpers/ws.ts";
import { pushClient, startPushService } from "../helpers/push.ts";
import { waitFor } from "../helpers/wait.ts";

let tnc: FakeTnc;
let g: Running;
let t = Date.UTC(2026, 10, 27, 10, 0, 0);
const push = startPushService();
let watcher: TestUser;
let sysop: TestUser;

beforeAll(async () => {
  tnc = fakeTnc();
  g = await startInProcess(
    { KISS_PORTS: tnc.url, RADIO_CALL: "N0GW-10", ADMIN_CALLSIGNS: "N0SYS", PUSH_ALLOW_PRIVATE_ENDPOINTS: "true" },
    { clock: { now: () => t } },
  );
  await tnc.connected();
  watcher = signedInUser(g.gw, "N0WAT", { verified: true });
  sysop = signedInUser(g.gw, "N0SYS", { verified: true });
});
afterAll(async () => {
  await g.stop();
  tnc.stop();
  push.stop();
});

const json = (u: TestUser, method: string, path: string, body?: unknown) =>
  fetch(g.url + path, {
    method,
    headers: { cookie: u.cookie, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("the watch list", () => {
  test("is kept per user; a bad call is refused and changes nothing", async () => {
    expect(await (await json(watcher, "PUT", "/api/alerts/watch", { calls: ["k1abc", "N0EMR-9", "K1ABC"] })).json()).toEqual({ calls: ["K1ABC", "N0EMR-9"] });
    expect((await json(watcher, "PUT", "/api/alerts/watch", { calls: ["K1ABC", "not a call"] })).status).toBe(400);
    expect(await (await json(watcher, "GET", "/api/alerts/watch")).json()).toEqual({ calls: ["K1ABC", "N0EMR-9"] });
    expect(await (await json(sysop, "GET", "/api/alerts/watch")).json()).toEqual({ calls: [] });
    expect((await fetch(`${g.url}/api/alerts/watch`)).status).toBe(401);
  });

  test("a watched station heard (any SSID of a call watched without one) is told live, once in 30 minutes", async () => {
    const ws = await liveClient(g.url, "", { cookie: watcher.cookie });
    await ws.next();
    tnc.hear(tnc2Frame("K1OTH>APRS:>not watched"));
    tnc.hear(tnc2Frame("K1ABC-7>APRS,WIDE1*:!4237.14N/07120.83W>on the move"));
    expect(await ws.next()).toMatchObject({ type: "watch", call: "K1ABC-7", source: "rf" });
    t += 60_000;
    tnc.hear(tnc2Frame("K1ABC-7>APRS,WIDE1*:!4237.15N/07120.83W>still moving"));
    t += 30 * 60_000;
    tnc.hear(tnc2Frame("K1ABC-7>APRS,WIDE1*:!4237.16N/07120.83W>later"));
    const next = await ws.next();
    expect(next).toMatchObject({ type: "watch", call: "K1ABC-7", ts: t });
    expect(ws.received.filter((m) => m.type === "watch").length).toBe(2);
    await ws.close();
  });
});

describe("emergencies", () => {
  test("a Mic-E Emergency is pushed to the sysop, told to the station's watchers, and listed for the map; the next beacons are not told again", async () => {
    const browser = pushClient();
    expect((await json(sysop, "PUT", "/api/push/subscription", browser.subscription(`${push.url}/push/sysop`))).status).toBe(201);
    const ws = await liveClient(g.url, "", { cookie: watcher.cookie });
    await ws.next();
    t += 60 * 60_000;
    tnc.hear(tnc2Frame("N0EMR-9>421R3T,WIDE1-1:`c_Vm6hk/"));
    expect(await ws.next()).toMatchObject({ type: "emergency", emergency: { call: "N0EMR-9", reason: "mic-e", lat: 42.2056667, lon: -71.1263333 } });
    await waitFor(() => push.received.length === 1, "the sysop's push");
    expect(JSON.parse(browser.decrypt(push.received[0]!.body))).toMatchObject({ title: "EMERGENCY: N0EMR-9", url: "/map" });
    t += 60_000;
    tnc.hear(tnc2Frame("N0EMR-9>421R3T,WIDE1-1:`c_Vm6hk/"));
    // a Mic-E message that is not an emergency is nothing
    tnc.hear(tnc2Frame("N0RET-9>T21R3T,WIDE1-1:`c_Vm6hk/"));
    tnc.hear(tnc2Frame("N0SOS>APRS:!4237.14N\\07120.83W!need help"));
    tnc.hear(tnc2Frame("N0ELT>APRS:!4237.14NE07120.83W!elt"));
    await waitFor(() => push.received.length === 3, "the symbol emergencies' pushes");
    const list = (await (await fetch(`${g.url}/api/alerts/emergencies`)).json()).emergencies as Array<{ call: string; reason: string; comment: string | null }>;
    expect(list.map((e) => [e.call, e.reason, e.comment])).toEqual([
      ["N0ELT", "symbol", "elt"],
      ["N0SOS", "symbol", "need help"],
      ["N0EMR-9", "mic-e", null],
    ]);
    expect(push.received.length).toBe(3); // N0EMR-9's second beacon told no one
    // the watcher is not told of stations they do not watch
    expect(ws.received.filter((m) => m.type === "emergency").map((m) => m.emergency.call)).toEqual(["N0EMR-9"]);
    await ws.close();
    // a day later the banner is empty
    t += 25 * 3_600_000;
    expect((await (await fetch(`${g.url}/api/alerts/emergencies`)).json()).emergencies).toEqual([]);
  });
});
