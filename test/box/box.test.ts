/**
 * Remote box commands through the real server: who may enqueue what, the
 * states a command goes through (queued, leased, acknowledged; an expired
 * lease returns it to queued; expired after 5 leases), the operator's log,
 * and the `local` box (this gateway's own radio) carrying commands out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { runLocalBox } from "../../src/radio-node/local-box.ts";
import { formatTnc2 } from "../../radio/index.ts";
import type { Clock } from "../../src/hosts/gateway.ts";

const INGEST = "ingest-secret-0123456789";
const box = { "x-ingest-secret": INGEST };
let g: Running;
let tnc: FakeTnc;
let t = Date.now();

beforeAll(async () => {
  tnc = fakeTnc();
  g = await startInProcess({ INGEST_SECRET: INGEST, ADMIN_CALLSIGNS: "N0OPS", KISS_PORTS: tnc.url, RADIO_CALL: "N0OPS-10" });
  (g.gw as { clock: Clock }).clock = { now: () => t };
  await tnc.connected();
});
afterAll(async () => {
  await g.stop();
  tnc.stop();
});

const count = () => (g.gw.db.query("SELECT count(*) AS n FROM box_commands").get() as { n: number }).n;
const command = (id: string, body: unknown, headers: Record<string, string>) => g.post(`/api/box/${id}/command`, body, { headers });
const leaseAs = async (id: string) =>
  (await (await g.get(`/api/box/${id}/commands`, { headers: box })).json()).commands as Array<{
    id: number;
    kind: string;
    state: string;
    attempts: number;
    args: Record<string, unknown>;
  }>;
const ack = (id: string, acks: unknown) => g.post(`/api/box/${id}/commands/ack`, { acks }, { headers: box });

describe("box commands", () => {
  test("read-only kinds need a session; transmit kinds a verified callsign; bad input changes nothing", async () => {
    const plain = signedInUser(g.gw, "N0PLN");
    const ham = signedInUser(g.gw, "N0HAM-7", { verified: true });
    const before = count();
    expect((await command("shack", { kind: "ping" }, {})).status).toBe(401);
    const refused = await command("shack", { kind: "ui", args: { line: "N0PLN>APRS:>hello" } }, { cookie: plain.cookie });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toBe("callsign_not_verified");
    for (const [body, code] of [
      [{ kind: "reboot" }, "invalid"],
      [{ kind: "ping", args: { now: 1 } }, "invalid"],
      [{ kind: "ui", args: { line: "N0HAM-7 no colon" } }, "bad_line"],
      [{ kind: "ui", args: { line: "W1AW>APRS:>not my call" } }, "bad_source"],
      [{ kind: "mheard", args: { limit: 0 } }, "invalid"],
      [["a", "list"], "bad_body"], // not an object
    ] as const) {
      const r = await command("shack", body, { cookie: ham.cookie });
      expect({ body, status: r.status, code: (await r.json()).error }).toEqual({ body, status: 400, code });
    }
    expect((await command("Not A Box!", { kind: "ping" }, { cookie: ham.cookie })).status).toBe(400);
    // the ingest box names the call a transmit command acts as; it must be verified here
    expect((await command("shack", { kind: "ui", args: { line: "N0PLN>APRS:>hi" } }, box)).status).toBe(400);
    expect((await command("shack", { kind: "ui", call: "N0PLN", args: { line: "N0PLN>APRS:>hi" } }, box)).status).toBe(403);
    expect(count()).toBe(before);

    const ping = await command("shack", { kind: "ping" }, { cookie: plain.cookie });
    expect(ping.status).toBe(200);
    expect((await ping.json()).command).toMatchObject({
      box: "shack",
      kind: "ping",
      transmit: false,
      call: null,
      state: "queued",
      attempts: 0,
      via: "session",
    });
    const ui = (await (await command("shack", { kind: "ui", args: { line: "N0HAM-7>APRS:>from the shack" } }, { cookie: ham.cookie })).json()).command;
    expect(ui).toMatchObject({ kind: "ui", transmit: true, call: "N0HAM-7", args: { line: "N0HAM-7>APRS:>from the shack" } });
    const byBox = (await (await command("shack", { kind: "ui", call: "n0ham-7", args: { line: "N0HAM-7>APRS:>by the box" } }, box)).json()).command;
    expect(byBox).toMatchObject({ call: "N0HAM-7", via: "ingest" });
    expect(count()).toBe(before + 3);
  });

  test("a field a command or an acknowledgement does not take is refused by name and changes nothing; without it, it is taken", async () => {
    const u = signedInUser(g.gw, "N0FLD");
    const before = count();
    for (const [body, field, known] of [
      [{ kind: "mheard", limit: 5, colour: "red" }, "body.colour", "kind, args, call, port, limit, peer, line"],
      [{ kind: "mheard", args: { limit: 5, colour: "red" } }, "body.args.colour", "port, limit, peer, line, call"],
    ] as const) {
      const r = await command("box4", body, { cookie: u.cookie });
      expect({ field, status: r.status, answer: await r.json() }).toEqual({
        field,
        status: 400,
        answer: { error: "invalid", message: `${field}: unknown field "colour"; it takes ${known}`, field },
      });
    }
    // an argument of another kind is refused by the kind's own schema, inline or in args
    for (const [body, field, takes] of [
      [{ kind: "ping", port: "vhf" }, "body.port", "it takes no fields"],
      [{ kind: "mheard", args: { limit: 5, line: "N0FLD>APRS:>x" } }, "body.args.line", "it takes port, limit"],
    ] as const) {
      const r = await command("box4", body, { cookie: u.cookie });
      expect({ field, status: r.status, answer: await r.json() }).toEqual({
        field,
        status: 400,
        answer: { error: "invalid", message: `${field}: unknown field "${field.split(".").at(-1)}"; ${takes}`, field },
      });
    }
    expect(count()).toBe(before);
    // The controls: the same commands without the stray field are queued.
    for (const body of [
      { kind: "mheard", limit: 5 },
      { kind: "mheard", args: { limit: 5 } },
    ])
      expect((await command("box4", body, { cookie: u.cookie })).status).toBe(200);
    expect(count()).toBe(before + 2);
    const [c] = await leaseAs("box4");
    const state = () => g.gw.db.query("SELECT state FROM box_commands WHERE id = ?").get(c!.id);
    const stray = await ack("box4", [{ id: c!.id, ok: true, colour: "red" }]);
    expect({ status: stray.status, answer: await stray.json() }).toEqual({
      status: 400,
      answer: { error: "invalid", message: 'body.acks.0.colour: unknown field "colour"; it takes id, ok, result', field: "body.acks.0.colour" },
    });
    expect(state()).toEqual({ state: "leased" });
    expect(await (await ack("box4", [{ id: c!.id, ok: true }])).json()).toEqual({ acknowledged: 1 });
    expect(state()).toEqual({ state: "acknowledged" });
  });

  test("queued, leased, acknowledged; an expired lease returns the command to queued, five leases without an ack expire it", async () => {
    const u = signedInUser(g.gw, "N0STA");
    const a = (await (await command("box2", { kind: "status" }, { cookie: u.cookie })).json()).command;
    const b = (await (await command("box2", { kind: "ping" }, { cookie: u.cookie })).json()).command;
    const first = await leaseAs("box2");
    expect(first.map((c) => [c.id, c.state, c.attempts])).toEqual([
      [a.id, "leased", 1],
      [b.id, "leased", 1],
    ]);
    expect(await leaseAs("box2")).toEqual([]); // leased: not handed out twice
    expect(await leaseAs("shack")).not.toContainEqual(expect.objectContaining({ id: a.id })); // another box's queue
    // the box acknowledges one; the other's lease runs out
    expect(await (await ack("box2", [{ id: a.id, ok: true, result: { uptime: 5 } }])).json()).toEqual({ acknowledged: 1 });
    expect(await (await ack("box2", [{ id: a.id, ok: false }])).json()).toEqual({ acknowledged: 0 }); // twice changes nothing
    expect(await (await ack("shack", [{ id: b.id }])).json()).toEqual({ acknowledged: 0 }); // not that box's command
    expect((await ack("box2", [{ id: "x" }])).status).toBe(400);
    t += 61_000;
    const again = await leaseAs("box2");
    expect(again.map((c) => [c.id, c.state, c.attempts])).toEqual([[b.id, "leased", 2]]);
    for (let i = 3; i <= 5; i++) {
      t += 61_000;
      expect((await leaseAs("box2")).map((c) => c.attempts)).toEqual([i]);
    }
    t += 61_000;
    expect(await leaseAs("box2")).toEqual([]);
    const log = (await (await g.get("/api/box/box2/log", { headers: box })).json()).commands as Array<{
      id: number;
      state: string;
      ok: boolean | null;
      result: unknown;
    }>;
    expect(log.map((c) => [c.id, c.state, c.ok, c.result])).toEqual([
      [b.id, "expired", null, { error: "not acknowledged after 5 leases" }],
      [a.id, "acknowledged", true, { uptime: 5 }],
    ]);
  });

  test("the log: the operator sees every command, a user their own", async () => {
    const op = signedInUser(g.gw, "N0OPS", { verified: true });
    const one = signedInUser(g.gw, "N0ONE");
    const two = signedInUser(g.gw, "N0TWO");
    await command("box3", { kind: "ping" }, { cookie: one.cookie });
    await command("box3", { kind: "status" }, { cookie: two.cookie });
    const kinds = async (cookie: string) =>
      ((await (await g.get("/api/box/box3/log", { headers: { cookie } })).json()).commands as Array<{ kind: string }>).map((c) => c.kind);
    expect(await kinds(op.cookie)).toEqual(["status", "ping"]);
    expect(await kinds(one.cookie)).toEqual(["ping"]);
    expect(await kinds(two.cookie)).toEqual(["status"]);
    expect((await g.get("/api/box/box3/log")).status).toBe(401);
  });

  test("the local box is this gateway's radio: commands carried out and acknowledged, a UI line through the outbox onto the air", async () => {
    const ham = signedInUser(g.gw, "N0LOC-9", { verified: true });
    signedInUser(g.gw, "N0OPS-10", { verified: false }); // RADIO_CALL need not be verified for a user's own line
    const ping = (await (await command("local", { kind: "ping" }, { cookie: ham.cookie })).json()).command;
    const heard = (await (await command("local", { kind: "mheard" }, { cookie: ham.cookie })).json()).command;
    const ui = (await (await command("local", { kind: "ui", args: { line: "N0LOC-9>APRS:>hello from the form" } }, { cookie: ham.cookie })).json()).command;
    const gr = radioOf(g.gw)!;
    await runLocalBox(g.gw, gr);
    const log = (await (await g.get("/api/box/local/log", { headers: { cookie: ham.cookie } })).json()).commands as Array<{
      id: number;
      state: string;
      ok: boolean;
      result: Record<string, unknown>;
    }>;
    const byId = new Map(log.map((c) => [c.id, c]));
    expect(byId.get(ping.id)).toMatchObject({ state: "acknowledged", ok: true, result: { pong: t } });
    expect(byId.get(heard.id)).toMatchObject({ state: "acknowledged", ok: true, result: { heard: [] } });
    const outboxId = byId.get(ui.id)!.result.outboxId as number;
    expect(byId.get(ui.id)).toMatchObject({ state: "acknowledged", ok: true });
    const from = tnc.sent.length;
    gr.tx.tick();
    const [f] = await tnc.waitSent(1, { from });
    expect(new TextDecoder().decode((formatTnc2(f!) as { ok: true; value: Uint8Array }).value)).toBe("N0LOC-9>APRS,WIDE1-1,WIDE2-1:>hello from the form");
    expect((g.gw.db.query("SELECT state FROM aprs_outbox WHERE id = ?").get(outboxId) as { state: string }).state).toBe("sent");
  });

  test("a gateway without a radio refuses commands for its local box", async () => {
    const h = await startInProcess({});
    try {
      const u = signedInUser(h.gw, "N0NOR");
      const r = await h.post("/api/box/local/command", { kind: "ping" }, { headers: { cookie: u.cookie } });
      expect(r.status).toBe(409);
      expect((await r.json()).error).toBe("no_radio");
    } finally {
      await h.stop();
    }
  });
});
