/**
 * Large bodies meet the gate and the size cap before they are read (issue 25,
 * H3): an anonymous 8 MB POST was read and checked byte by byte (0.6-1.2 s per
 * MB) before its 401. Each attack declares a large body and sends only its
 * first kilobyte: the answer arrives while the rest was never sent, so the
 * server cannot have read it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { startInProcess, type Running } from "../helpers/gateway.ts";

const INGEST = "ingest-secret-body-gates-0123";
const MB = 1024 * 1024;
let g: Running;

beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST });
});
afterAll(() => g.stop());

/**
 * Sends a request head that declares `declared` body bytes, then only `sent`
 * of them, and resolves with the answer (status and JSON body) the server
 * gives without the rest. The socket is closed after that answer.
 */
function partialPost(path: string, headers: Record<string, string>, declared: number, sent = 1024): Promise<{ status: number; body: { error?: string } }> {
  const { hostname, port } = new URL(g.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.on("error", reject);
    socket.on("data", (d) => {
      text += d.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (text.length < end + 4 + length) return;
      socket.destroy();
      resolve({ status: Number(text.split(" ")[1]), body: JSON.parse(text.slice(end + 4, end + 4 + length)) });
    });
    const head = [
      `POST ${path} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      `content-length: ${declared}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${head.join("\r\n")}\r\n\r\n`);
    socket.write("N0ATK>APRS:>".padEnd(sent, "A"));
  });
}

describe("bodies meet their gate and cap before they are read", () => {
  test("an anonymous 8 MB POST /ingest is a 401 before its body is sent; the box with its secret still ingests", async () => {
    const r = await partialPost("/ingest", { "content-type": "text/plain" }, 8 * MB - 1);
    expect(r).toEqual({ status: 401, body: expect.objectContaining({ error: "unauthorized" }) });
    const wrong = await partialPost("/ingest", { "content-type": "text/plain", "x-ingest-secret": "not-the-secret" }, 8 * MB - 1);
    expect(wrong.status).toBe(401);

    const ok = await fetch(`${g.url}/ingest`, {
      method: "POST",
      headers: { "content-type": "text/plain", "x-ingest-secret": INGEST },
      body: "N0GATE>APRS,WIDE1-1:!4000.00N/07400.00W-gated\n",
    });
    expect(ok.status).toBe(200);
    expect(g.gw.db.query("SELECT count(*) AS n FROM positions WHERE call = 'N0GATE'").get()).toEqual({ n: 1 });
  });

  test("with the secret, a body over the 8 MiB cap is a 413 before it is sent; one just under it is read whole", async () => {
    const over = await partialPost("/ingest", { "content-type": "text/plain", "x-ingest-secret": INGEST }, 8 * MB + 1);
    expect(over).toEqual({ status: 413, body: expect.objectContaining({ error: "body_too_large" }) });

    // 8 MiB of lines the box heard (under its 20,000-line batch): one position, then long status lines
    const line = `N0BIG>APRS,WIDE1-1:>${"status of a busy digipeater ".repeat(16)}\n`;
    const body = `N0BIGPOS>APRS:!4000.00N/07400.00W-big\n${line.repeat(Math.floor((8 * MB - 64) / line.length))}`;
    const r = await fetch(`${g.url}/ingest`, { method: "POST", headers: { "content-type": "text/plain", "x-ingest-secret": INGEST }, body });
    expect(r.status).toBe(200);
    expect(g.gw.db.query("SELECT count(*) AS n FROM positions WHERE call = 'N0BIGPOS'").get()).toEqual({ n: 1 });
  });

  test("a JSON batch without the secret (a device key's) is held to MAX_BODY_BYTES before it is read", async () => {
    const r = await partialPost("/ingest", { "content-type": "application/json" }, 2 * MB);
    expect(r).toEqual({ status: 413, body: expect.objectContaining({ error: "body_too_large" }) });
    // under the cap it is read, and refused for what it is: unsigned
    const small = await g.post("/ingest", { packets: ["N0DEV>APRS:>hi"] });
    expect(small.status).toBe(401);
  });

  test("a raw body sent to a route that takes JSON is a 415 before it is read; the JSON one is answered", async () => {
    const r = await partialPost("/auth/email/start", { "content-type": "text/plain" }, MB - 1);
    expect(r).toEqual({ status: 415, body: expect.objectContaining({ error: "unsupported_media_type" }) });
    const noType = await partialPost("/auth/email/start", {}, MB - 1);
    expect(noType.status).toBe(415);
    const json = await g.post("/auth/email/start", { email: "not an address" });
    expect(json.status).toBeGreaterThanOrEqual(400);
    expect(json.status).toBeLessThan(500);
    expect(json.status).not.toBe(415);
  });

  test("a signed-body route refuses a raw body from a caller without a session before reading it", async () => {
    const r = await partialPost("/api/account/N0ATK/export", { "content-type": "application/octet-stream" }, MB - 1);
    expect(r).toEqual({ status: 401, body: expect.objectContaining({ error: "unauthorized" }) });
  });

  test("/api/decode takes a whole 1 MB line and answers what is wrong with it; a real line decodes", async () => {
    const big = await fetch(`${g.url}/api/decode`, { method: "POST", headers: { "content-type": "text/plain" }, body: "N0BIG>APRS:>".padEnd(MB - 1, "A") });
    expect(big.status).toBe(422);
    expect((await big.json()).error).toBe("too_long");
    const ok = await fetch(`${g.url}/api/decode`, { method: "POST", headers: { "content-type": "text/plain" }, body: "N0DEC>APRS:!4000.00N/07400.00W-hi" });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ src: "N0DEC", lat: 40, lon: -74 });
  });
});
