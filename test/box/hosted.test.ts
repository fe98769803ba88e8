/**
 * A hosted gateway with no radio of its own, on Node and on workerd, and a
 * radio box (`svc-gateway box --gateway URL`) behind a real Direwolf giving
 * it one. A user signs in by e-mail, answers the callsign challenge on the
 * air from their own station (the second Direwolf), which the box hears and
 * forwards, so the hosted gateway verifies the call; then the user's
 * position leaves the hosted gateway's outbox through the box onto the air,
 * and a box command is carried out and acknowledged.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Radio } from "../../radio/index.ts";
import { direwolfInstalled, startDirewolfPair, type DirewolfPair } from "../helpers/direwolf.ts";
import { startOn } from "../helpers/hosts.ts";
import { startBox } from "../helpers/box.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait.ts";

const SECRET = "hosted-ingest-secret-0123456789";
let pair: DirewolfPair;
let smtp: SmtpSink;
/** the user's own station, on Direwolf B */
let station: Radio;

beforeAll(async () => {
  pair = await startDirewolfPair({ calls: ["N0DWA-1", "N0DWB-1"] });
  smtp = await startSmtpSink({ user: "gw", pass: "mail-pass" });
  station = new Radio({ ports: [{ kind: "tcp", host: "127.0.0.1", port: pair.b.kissPort }], call: null }).start();
  await station.ports[0]!.port.whenConnected();
}, 60_000);

afterAll(async () => {
  await station?.stop();
  await smtp?.stop();
  await pair?.stop();
});

for (const rt of ["node", "workerd"] as const) {
  describe(`a radio box for a gateway on ${rt}`, () => {
    test("a callsign verified on the air through the box; the user's position goes out through it; a box command is carried out", async () => {
      const call = rt === "node" ? "N0HSN-7" : "N0HSW-7";
      const email = `${rt}@example.org`;
      const g = await startOn(rt, { INSTANCE: `hosted-${rt}`, INGEST_SECRET: SECRET, SMTP_URL: smtp.url, MAIL_FROM: "gw@example.org", KISS_PORTS: "off" });
      const box = (await startBox({ gateway: g.url, id: `shack-${rt}`, dataDir: tmpDir("svc-hosted-box-"), kissPort: pair.a.kissPort, secret: SECRET })).proc;
      try {
        let cookie = "";
        const req = (path: string, json?: unknown, headers: Record<string, string> = {}) =>
          fetch(g.url + path, {
            method: json === undefined ? "GET" : "POST",
            headers: { cookie, origin: g.url, ...(json === undefined ? {} : { "content-type": "application/json" }), ...headers },
            body: json === undefined ? undefined : JSON.stringify(json),
          });
        // sign in by e-mail and claim the call
        expect((await req("/auth/email/start", { email })).status).toBe(202);
        const code = /code (\d{6})/.exec((await smtp.next(email, 20_000)).subject)![1];
        const v = await req("/auth/email/verify", { email, code });
        expect(v.status).toBe(200);
        cookie = (v.headers.get("set-cookie") ?? "").split(";")[0]!;
        expect((await req("/auth/callsign", { call })).status).toBe(200);
        const ch = (await (await req("/verify/aprs/start", { call })).json()) as { code: string; addressee: string };
        // before it is heard, nothing is verified (the control for what follows)
        expect(((await (await req(`/verify/aprs/status?call=${call}`)).json()) as { status: string }).status).toBe("pending");
        // the user's station sends the challenge on the air; the box hears it and forwards it
        const line = `:${ch.addressee.padEnd(9)}:VERIFY ${ch.code}`;
        expect(station.sendUi({ src: call, dest: "APRS", info: new TextEncoder().encode(line) })).toBe(1);
        await waitFor(
          async () => ((await (await req(`/verify/aprs/status?call=${call}`)).json()) as { status: string }).status === "verified",
          "the callsign verified",
          {
            timeoutMs: 30_000,
          },
        );
        const status = (await (await req(`/verify/aprs/status?call=${call}`)).json()) as { heardVia: string };
        expect(status.heardVia).toBe("rf via N0BOX-10");
        // the user's position leaves the hosted gateway's outbox through the box, onto the air
        const tx = await req("/api/tx/aprs", { kind: "position", lat: 44.5, lon: -73.25, comment: `hosted on ${rt}` });
        expect(tx.status).toBe(200);
        await pair.b.waitForLog(new RegExp(`${call}>APZSVC,WIDE1-1,WIDE2-1:.*hosted on ${rt}`), { timeoutMs: 30_000 });
        // a box command, acknowledged by the box
        const c = await req(`/api/box/shack-${rt}/command`, { kind: "ping" }, { "x-ingest-secret": SECRET });
        expect(c.ok).toBe(true);
        const id = ((await c.json()) as { command: { id: number } }).command.id;
        await waitFor(
          async () => {
            const log = (await (await req(`/api/box/shack-${rt}/log`, undefined, { "x-ingest-secret": SECRET })).json()) as {
              commands: Array<{ id: number; state: string; ok: boolean | null }>;
            };
            return log.commands.some((e) => e.id === id && e.state === "acknowledged" && e.ok === true);
          },
          "the ping acknowledged by the box",
          { timeoutMs: 30_000 },
        );
      } finally {
        box.kill("SIGTERM");
        await box.exited;
        await g.stop();
      }
    }, 180_000);
  });
}

if (!direwolfInstalled()) throw new Error("direwolf and socat are needed: bash scripts/test-deps.sh installs them");
