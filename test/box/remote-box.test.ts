/**
 * `svc-gateway box --gateway URL`: the executable as the radio of a gateway
 * that has none (a hosted one), behind a real Direwolf. A second Direwolf is
 * "another station" on the same channel (the test's own KISS client drives
 * it). What the box hears reaches the gateway's registry; the gateway's
 * outbox and box commands go out through the box; heard lines wait in the
 * box's spool while the gateway cannot be reached, also across a kill.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { direwolfInstalled, startDirewolfPair, type DirewolfPair } from "../helpers/direwolf.ts";
import { BUN, MAIN } from "../helpers/paths.ts";
import { startBox } from "../helpers/box.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait.ts";
import { Radio } from "../../radio/index.ts";
import { freePorts } from "../helpers/ports.ts";

const SECRET = "box-ingest-secret-0123456789";
const BOX_CALL = "N0BOX-10";
let pair: DirewolfPair;
let G: Running;
/** the test's own station on Direwolf B */
let other: Radio;
const boxData = tmpDir("svc-box-");

const boxFor = (gateway: string) => startBox({ gateway, id: "shack", dataDir: boxData, kissPort: pair.a.kissPort, secret: SECRET, call: BOX_CALL });

/** Direwolf B transmits one APRS line of the test's station. */
function sendFromOther(info: string) {
  expect(other.sendUi({ src: "N0STN-9", dest: "APRS", info: new TextEncoder().encode(info) })).toBe(1);
}

const station = async (call: string) => {
  const r = await G.get(`/api/stations/${call}`);
  return r.status === 200 ? ((await r.json()) as { source: string; igate: string | null; lat: number; comment?: string; lastHeard?: number }) : null;
};

beforeAll(async () => {
  pair = await startDirewolfPair({ calls: ["N0DWA-1", "N0DWB-1"] });
  G = await startInProcess({ INSTANCE: "hosted", INGEST_SECRET: SECRET, KISS_PORTS: "off" });
  other = new Radio({ ports: [{ kind: "tcp", id: "b", host: "127.0.0.1", port: pair.b.kissPort }] as never, call: null }).start();
  await other.ports[0]!.port.whenConnected();
}, 60_000);

afterAll(async () => {
  await other?.stop();
  await G?.stop();
  await pair?.stop();
});

describe("svc-gateway box: the radio of a gateway hosted elsewhere", () => {
  test("refuses to start without a gateway URL, the ingest secret or a TNC, saying which", async () => {
    const proc = Bun.spawn([BUN, "--no-env-file", MAIN, "box", "--data", boxData], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", KISS_PORTS: "off" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const code = await proc.exited;
    const err = await new Response(proc.stderr).text();
    expect(code).toBe(2);
    expect(err).toContain("--gateway URL is required");
    expect(err).toContain("INGEST_SECRET is not set");
    expect(err).toContain("KISS_PORTS is off");
  });

  test("what it hears waits in its spool while the gateway is out of reach, survives a kill, and arrives with the time it was heard", async () => {
    const [closed] = await freePorts(1);
    const box = await boxFor(`http://127.0.0.1:${closed}`);
    const heardAt = Date.now();
    sendFromOther("!4412.34N/07330.00W-heard while the uplink was down");
    const spool = join(boxData, "box-shack.spool");
    await waitFor(() => existsSync(spool) && readFileSync(spool, "utf8").includes("uplink was down"), "the heard line in the box's spool", {
      timeoutMs: 30_000,
    });
    expect(await station("N0STN-9")).toBeNull();
    box.proc.kill("SIGKILL");
    await box.proc.exited;
    // Back, with the gateway reachable: the spooled line arrives, once, with its heard time.
    const again = await boxFor(G.url);
    try {
      await waitFor(async () => (await station("N0STN-9")) !== null, "the spooled position at the gateway", { timeoutMs: 30_000 });
      const s = (await station("N0STN-9"))!;
      expect(s.igate).toBe(BOX_CALL);
      expect(s.lat).toBeCloseTo(44.2057, 3);
      const packets = (await (await G.get("/api/stations/N0STN-9/packets")).json()) as { packets: Array<{ raw: string; ts: number }> };
      const ours = packets.packets.filter((p) => p.raw.includes("uplink was down"));
      expect(ours.length).toBe(1);
      // heard before the kill, stored after the restart: the time is the hearing's
      expect(Math.abs(ours[0]!.ts - heardAt)).toBeLessThan(5_000);
      await waitFor(() => readFileSync(spool, "utf8") === "", "the spool emptied once the gateway had the line");
    } finally {
      again.proc.kill("SIGTERM");
      await again.proc.exited;
    }
  }, 120_000);

  test("a box with the wrong ingest secret is refused: the gateway stores nothing, and the box keeps what it heard until it has the right one", async () => {
    const dir = tmpDir("svc-box-secret-");
    const spool = join(dir, "box-attic.spool");
    const wrong = await startBox({
      gateway: G.url,
      id: "attic",
      dataDir: dir,
      kissPort: pair.a.kissPort,
      secret: "not-the-gateways-secret-0123",
      call: BOX_CALL,
    });
    try {
      other.sendUi({ src: "N0SEC-9", dest: "APRS", info: new TextEncoder().encode("!4410.00N/07320.00W-sent to a box with a wrong secret") });
      await waitFor(
        () => /did not take 1 heard lines/.test(wrong.output()),
        () => `the box refused by the gateway:\n${wrong.output()}`,
        { timeoutMs: 30_000 },
      );
      expect(wrong.output()).toContain("401");
      expect(readFileSync(spool, "utf8")).toContain("wrong secret");
      expect(await station("N0SEC-9")).toBeNull();
    } finally {
      wrong.proc.kill("SIGTERM");
      await wrong.proc.exited;
    }
    // the same spool, the right secret: the line arrives
    const right = await startBox({ gateway: G.url, id: "attic", dataDir: dir, kissPort: pair.a.kissPort, secret: SECRET, call: BOX_CALL });
    try {
      await waitFor(async () => (await station("N0SEC-9")) !== null, "the kept line at the gateway", { timeoutMs: 30_000 });
    } finally {
      right.proc.kill("SIGTERM");
      await right.proc.exited;
    }
  }, 120_000);

  test("the gateway's outbox and box commands go out through the box; commands it cannot carry out are acknowledged as failed", async () => {
    const box = await boxFor(G.url);
    try {
      // heard live: another station's position, through Direwolf A and the box, into the hosted registry
      sendFromOther("!4413.00N/07331.00W-heard live by the box");
      await waitFor(async () => (await station("N0STN-9"))?.comment?.includes("heard live") === true, "the live position at the gateway", {
        timeoutMs: 30_000,
      });
      // the outbox: a verified user's position leaves through the box's radio with the box's path
      const u = signedInUser(G.gw, "N0TXR-7", { verified: true });
      const r = await G.post(
        "/api/tx/aprs",
        { kind: "position", lat: 44.5, lon: -73.25, comment: "from the hosted gateway" },
        { headers: { cookie: u.cookie } },
      );
      expect(r.status).toBe(200);
      const item = (await r.json()).item as { id: number };
      await pair.b.waitForLog(/N0TXR-7>APZSVC,WIDE1-1,WIDE2-1:.*from the hosted gateway/, { timeoutMs: 30_000 });
      await waitFor(
        () => (G.gw.db.query("SELECT state FROM aprs_outbox WHERE id = ?").get(item.id) as { state: string }).state === "sent",
        "the outbox line reported sent",
      );
      expect((G.gw.db.query("SELECT leased_by FROM aprs_outbox WHERE id = ?").get(item.id) as { leased_by: string }).leased_by).toBe("box:shack");
      // box commands: one it carries out, one it cannot
      const cmd = (kind: string, args: Record<string, unknown> = {}) =>
        G.post("/api/box/shack/command", { kind, ...args }, { headers: { "x-ingest-secret": SECRET } }).then(async (x) => {
          expect(x.ok).toBe(true);
          return ((await x.json()) as { command: { id: number } }).command.id;
        });
      const ping = await cmd("ping");
      const mheard = await cmd("mheard");
      const beacon = await cmd("beacon", { call: "N0TXR-7" });
      type Entry = { id: number; state: string; ok: boolean | null; result: Record<string, unknown> | null };
      const log = async () =>
        ((await (await G.get("/api/box/shack/log", { headers: { "x-ingest-secret": SECRET } })).json()) as { commands: Entry[] }).commands;
      await waitFor(async () => (await log()).filter((e) => [ping, mheard, beacon].includes(e.id) && e.state === "acknowledged").length === 3, "three acks");
      const byId = new Map((await log()).map((e) => [e.id, e]));
      expect(byId.get(ping)!.ok).toBe(true);
      expect(typeof byId.get(ping)!.result!.pong).toBe("number");
      expect(byId.get(mheard)!.ok).toBe(true);
      expect((byId.get(mheard)!.result!.heard as Array<{ call: string }>).map((h) => h.call)).toContain("N0STN-9");
      expect(byId.get(beacon)!.ok).toBe(false);
      expect(String(byId.get(beacon)!.result!.error)).toContain("carries APRS only");
    } finally {
      box.proc.kill("SIGTERM");
      await box.proc.exited;
    }
  }, 120_000);
});

if (!direwolfInstalled()) throw new Error("direwolf and socat are needed: bash scripts/test-deps.sh installs them");
