import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";

let g: Running;
beforeAll(async () => {
  g = await startInProcess();
});
afterAll(() => g.stop());

const text = (body: string | Uint8Array) => g.post("/api/decode", body, { headers: { "content-type": "text/plain" } });

describe("POST /api/decode", () => {
  test("a text/plain line answers the flat decoded packet", async () => {
    const r = await text("N0CALL-9>APRS,WIDE1-1,qAR,W1AW:!4237.14N/07120.83W>088/036/A=001234 on the road");
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      src: "N0CALL-9",
      dst: "APRS",
      path: ["WIDE1-1", "qAR", "W1AW"],
      qConstruct: "qAR",
      igate: "W1AW",
      type: "position",
      messaging: false,
      format: "uncompressed",
      lat: 42.619,
      lon: -71.3471667,
      symbol: "/>",
      course: 88,
      speedKmh: 66.7,
      altitudeM: 376.1,
      comment: "on the road",
    });
  });

  test("raw bytes: Mic-E control bytes and a comment that is not UTF-8", async () => {
    const head = new TextEncoder().encode("KB1KTR-8>TR3U6T,WIDE2*:`c1");
    const tail = new TextEncoder().encode('l!t>/>"4^}caf');
    const bytes = new Uint8Array([...head, 0x1f, ...tail, 0xe9]);
    const r = await text(bytes);
    expect(r.status).toBe(200);
    const p = await r.json();
    expect(p).toMatchObject({ format: "mic-e", lat: 42.594, lon: -71.3505, micE: "En Route", device: "Kenwood TH-D7A", comment: "café" });
  });

  test('JSON {"line"} works the same; weather and message fields', async () => {
    const wx = await g.post("/api/decode", { line: "N0CALL>APRS:_10090556c220s004g005t077r010p020P030h50b09900wRSW" });
    expect(await wx.json()).toMatchObject({
      type: "weather",
      wx: { windDirDeg: 220, windSpeedKmh: 6.4, tempC: 25, rain1hMm: 2.5, humidityPct: 50, pressureHpa: 990 },
    });
    const msg = await g.post("/api/decode", { line: "N0CALL>APRS::W1AW-9   :hello{42" });
    expect(await msg.json()).toMatchObject({ type: "message", addressee: "W1AW-9", text: "hello", msgId: "42" });
  });

  test("malformed packets answer 422 with the typed code", async () => {
    const r = await text("N0CALL>APRS:!9903.50N/07201.75W-");
    expect(r.status).toBe(422);
    const e = await r.json();
    expect(e.error).toBe("bad_position");
    expect(e.message).toContain("latitude");
    expect((await text("nothing like a packet")).status).toBe(422);
  });

  test("bad bodies answer 400", async () => {
    expect((await g.post("/api/decode", { nope: 1 })).status).toBe(400);
    expect((await g.post("/api/decode", [1])).status).toBe(400);
    expect((await text("A>B:>x\nC>D:>y")).status).toBe(400);
    const badJson = await g.post("/api/decode", "{not json");
    expect(badJson.status).toBe(400);
  });

  test("a JSON field the route does not take is refused by name; the same body without it decodes", async () => {
    const line = "N0CALL>APRS:!4237.14N/07120.83W>on the road";
    const r = await g.post("/api/decode", { line, colour: "red" });
    expect({ status: r.status, answer: await r.json() }).toEqual({
      status: 400,
      answer: { error: "invalid", message: 'body.colour: unknown field "colour"; it takes line', field: "body.colour" },
    });
    const ok = await g.post("/api/decode", { line });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ src: "N0CALL", lat: 42.619 });
  });
});
