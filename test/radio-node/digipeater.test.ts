/**
 * The station's digipeater (DIGIPEAT, issue 27 item 3) on a gateway behind a
 * fake KISS TNC the test drives: what it repeats goes out on the TNC with the
 * path rewritten, what it does not is counted by reason in GET /api/ports,
 * nothing goes out while RADIO_CALL is not verified, and a flood is held to
 * RADIO_TX_PER_MINUTE. The rules one by one are test/radio/digipeat.test.ts;
 * the rewrite against Direwolf's own digipeater is digipeater-direwolf.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, tnc2Text, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import type { Clock } from "../../src/hosts/gateway.ts";
import { waitFor } from "../helpers/wait.ts";

const stops: Array<() => unknown> = [];
afterAll(async () => {
  for (const s of stops.reverse()) await s();
});

async function gateway(env: Record<string, string>, clock?: () => number): Promise<{ g: Running; tnc: FakeTnc }> {
  const tnc = fakeTnc();
  stops.push(() => tnc.stop());
  const g = await startInProcess({ KISS_PORTS: tnc.url, RADIO_CALL: "N0GW-10", ...env });
  stops.push(() => g.stop());
  if (clock) (g.gw as { clock: Clock }).clock = { now: clock };
  await tnc.connected();
  return { g, tnc };
}

interface DigiEntry {
  state: string;
  mode: string;
  transmit: boolean;
  heard: number;
  repeated: number;
  dropped: Record<string, number>;
  held: number;
  recent: Array<{ at: number; port: string; heard: string; sent: string }>;
}
const digi = async (g: Running) => {
  const ports = (await (await g.get("/api/ports")).json()).ports as Array<{ name: string } & DigiEntry>;
  return ports.find((p) => p.name === "digipeater")!;
};
/** Waits until the digipeater has looked at `n` frames (each heard frame is decided at once). */
const decided = (g: Running, n: number) => waitFor(async () => (await digi(g)).heard >= n && digi(g), `the digipeater to hear ${n} frames`);

describe("the digipeater", () => {
  test("off by default: listed in GET /api/ports as off, and repeats nothing", async () => {
    const { g, tnc } = await gateway({});
    signedInUser(g.gw, "N0GW", { verified: true });
    tnc.hear(tnc2Frame("N0SA-1>APRS,WIDE1-1:!4237.14N/07120.83W>x"));
    await waitFor(() => radioOf(g.gw)!.radio.status()[0]!.framesIn >= 1, "the frame heard");
    await Bun.sleep(100);
    expect(tnc.sent).toEqual([]);
    expect(await digi(g)).toMatchObject({ state: "off", mode: "off", heard: 0, repeated: 0, recent: [] });
  });

  test("wide: repeats and counts each case; nothing while RADIO_CALL is unverified; duplicates, other digipeaters' copies and echoes are not repeated", async () => {
    const { g, tnc } = await gateway({ DIGIPEAT: "wide", DIGIPEAT_ALIASES: "RELAY", RADIO_TX_PER_MINUTE: "60" });
    // not verified yet: decided, but nothing on the air
    tnc.hear(tnc2Frame("N0SA-1>APRS,WIDE1-1,WIDE2-1:!4237.14N/07120.83W>before"));
    expect(await decided(g, 1)).toMatchObject({ state: "down", transmit: false, repeated: 0, dropped: { unverified: 1 } });
    expect(tnc.sent).toEqual([]);

    signedInUser(g.gw, "N0GW", { verified: true });
    const heard = [
      "N0SA-1>APRS,WIDE1-1,WIDE2-1:!4237.14N/07120.83W>first", // repeated
      "N0SA-1>APRS,WIDE1-1,WIDE2-1:!4237.14N/07120.83W>first", // the same within 30 s: duplicate
      "N0SA-2>APRS,WIDE2-2:>two hops", // repeated, one hop left
      "N0SA-3>APRS,RELAY:>alias", // repeated under our call
      "N0SA-4>APRS,N0OTH-1,WIDE2*:>copy", // another digipeater's copy (used up) ...
      "N0SA-4>APRS,WIDE1-1,WIDE2-1:>copy", // ... so the original heard late is a duplicate
      "N0SA-5>APRS,WIDE1,WIDE2*:>used", // used-up
      "N0SA-6>APRS,WIDE3-3:>far", // too-many-hops
      "N0SA-7>APRS,N0OTH-1,WIDE2-1:>other", // not-for-us
      "N0GW-10>APRS,WIDE1-1:>our own", // echo
    ];
    for (const l of heard) tnc.hear(tnc2Frame(l));
    const s = await decided(g, 1 + heard.length);
    const out = await tnc.waitSent(3);
    expect(out.map(tnc2Text)).toEqual([
      "N0SA-1>APRS,N0GW-10*,WIDE2-1:!4237.14N/07120.83W>first",
      "N0SA-2>APRS,N0GW-10*,WIDE2-1:>two hops",
      "N0SA-3>APRS,N0GW-10*:>alias",
    ]);
    expect(s).toMatchObject({
      state: "up",
      mode: "wide",
      transmit: true,
      heard: 11,
      repeated: 3,
      dropped: { unverified: 1, duplicate: 2, "used-up": 2, "too-many-hops": 1, "not-for-us": 1, echo: 1, budget: 0 },
    });
    // the Radio page's list: newest first, as heard and as sent
    expect(s.recent.map((r) => [r.heard, r.sent])).toEqual([
      ["N0SA-3>APRS,RELAY:>alias", "N0SA-3>APRS,N0GW-10*:>alias"],
      ["N0SA-2>APRS,WIDE2-2:>two hops", "N0SA-2>APRS,N0GW-10*,WIDE2-1:>two hops"],
      ["N0SA-1>APRS,WIDE1-1,WIDE2-1:!4237.14N/07120.83W>first", "N0SA-1>APRS,N0GW-10*,WIDE2-1:!4237.14N/07120.83W>first"],
    ]);
    expect(s.recent[0]).toMatchObject({ port: tnc.url });

    // the station we repeated is in the registry as heard on RF here, not as our own echo
    const pkts = (await (await g.get("/api/stations/N0SA-1/packets")).json()).packets as Array<{ via: string; source: string }>;
    // ("before" and "first"; the second "first" is the same packet)
    expect(pkts.map((p) => p.via)).toEqual(["tnc", "tnc"]);
    // what we repeated, heard back through the next digipeater: not repeated again
    const before = tnc.sent.length;
    tnc.hear(tnc2Frame("N0SA-2>APRS,N0GW-10,N0OTH-1*:>two hops"));
    expect((await decided(g, 12)).dropped).toMatchObject({ duplicate: 2, "used-up": 3 });
    await Bun.sleep(100);
    expect(tnc.sent.length).toBe(before);

    // a frame the station sent for someone else (a KISS client's, the outbox's), heard back through a digipeater: our echo
    expect(radioOf(g.gw)!.tx.sendFrame(tnc2Frame("N0TX-7>APRS,WIDE2-2:>sent by us"))).toBe("sent");
    tnc.hear(tnc2Frame("N0TX-7>APRS,N0OTH-1*,WIDE2-1:>sent by us"));
    expect((await decided(g, 13)).dropped.echo).toBe(2);
    await Bun.sleep(100);
    expect(tnc.sent.map(tnc2Text).slice(before)).toEqual(["N0TX-7>APRS,WIDE2-2:>sent by us"]);
  });

  test("a v1 frame is repeated with its C bits as heard", async () => {
    const { g, tnc } = await gateway({ DIGIPEAT: "fill-in" });
    signedInUser(g.gw, "N0GW", { verified: true });
    const f = tnc2Frame("N0SB>APDW16,WIDE1-1,WIDE2-1:!4237.14NS07120.83W#v1");
    tnc.hear({ ...f, cr: "v1-00" });
    tnc.hear({ ...tnc2Frame("N0SC>APRS,WIDE2-1:>fill-in takes WIDE1-1 only"), cr: "v1-11" });
    const [out] = await tnc.waitSent(1);
    expect(tnc2Text(out!)).toBe("N0SB>APDW16,N0GW-10*,WIDE2-1:!4237.14NS07120.83W#v1");
    expect(out!.cr).toBe("v1-00");
    expect(await decided(g, 2)).toMatchObject({ mode: "fill-in", repeated: 1, dropped: { "not-for-us": 1 } });
  });

  test("viscous: a frame another digipeater repeats within DIGIPEAT_VISCOUS_S is not repeated; one nobody repeats goes out after the delay", async () => {
    const { g, tnc } = await gateway({ DIGIPEAT: "wide", DIGIPEAT_VISCOUS_S: "1" });
    signedInUser(g.gw, "N0GW", { verified: true });
    tnc.hear(tnc2Frame("N0SD-1>APRS,WIDE2-1:>someone else gets it"));
    tnc.hear(tnc2Frame("N0SD-2>APRS,WIDE2-1:>nobody else"));
    expect(await decided(g, 2)).toMatchObject({ held: 2, repeated: 0 });
    tnc.hear(tnc2Frame("N0SD-1>APRS,N0OTH-1*:>someone else gets it"));
    const [out] = await tnc.waitSent(1, { timeoutMs: 5000 });
    expect(tnc2Text(out!)).toBe("N0SD-2>APRS,N0GW-10*:>nobody else");
    const s = await waitFor(async () => {
      const d = await digi(g);
      return d.held === 0 && d;
    }, "the held frames decided");
    // the held one and the other digipeater's copy of it
    expect(s).toMatchObject({ repeated: 1, dropped: { duplicate: 1, "used-up": 1 } });
    expect(tnc.sent.length).toBe(1);
  });

  test("a flood is held to RADIO_TX_PER_MINUTE: what the budget does not allow is dropped and counted, not queued", async () => {
    const t = Date.now();
    const { g, tnc } = await gateway({ DIGIPEAT: "wide", RADIO_TX_PER_MINUTE: "3" }, () => t);
    signedInUser(g.gw, "N0GW", { verified: true });
    for (let i = 0; i < 20; i++) tnc.hear(tnc2Frame(`N0FL-${(i % 15) + 1}>APRS,WIDE1-1:>flood ${i}`));
    const s = await decided(g, 20);
    await Bun.sleep(100);
    expect(s.repeated).toBe(3);
    expect(s.dropped.budget).toBe(17);
    expect(tnc.sent.length).toBe(3);
  });

  test("DIGIPEAT needs RADIO_CALL; a bad mode, hop limit or alias is refused at start", async () => {
    const { loadConfig } = await import("../../src/core/config.ts");
    const errors = (env: Record<string, string>) => loadConfig({ env: { KISS_PORTS: "off", ...env }, dataDir: "/nonexistent" }).errors.map((e) => e.setting);
    expect(errors({ DIGIPEAT: "wide" })).toContain("DIGIPEAT");
    expect(errors({ DIGIPEAT: "wide", RADIO_CALL: "N0GW-10" })).toEqual([]);
    expect(errors({ DIGIPEAT: "always", RADIO_CALL: "N0GW-10" })).toContain("DIGIPEAT");
    expect(errors({ DIGIPEAT_MAX_HOPS: "8" })).toContain("DIGIPEAT_MAX_HOPS");
    expect(errors({ DIGIPEAT_ALIASES: "RELAY,WIDE-16" })).toContain("DIGIPEAT_ALIASES");
  });
});
