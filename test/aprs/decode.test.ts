/** What decode_aprs cannot tell us: the header, typed errors, hostile input, and the encoder's round trip. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  decode,
  encodeAck,
  encodeMessage,
  encodeObject,
  encodePosition,
  encodeStatus,
  encodeWeather,
  type EncodeError,
  aprsIsPasscode,
} from "../../src/lib/aprs/index.ts";
import { runDecodeAprs } from "./direwolf.ts";

const ok = (line: string) => {
  const r = decode(line);
  if (!r.ok) throw new Error(`${line}: ${r.error.code} ${r.error.message}`);
  return r.packet;
};
const err = (line: string) => {
  const r = decode(line);
  if (r.ok) throw new Error(`${line} decoded but should not have`);
  return r.error.code;
};

describe("TNC2 header", () => {
  test("path, digipeaters that repeated, q construct and IGate", () => {
    const p = ok("N0CALL-9>APRS,W1MHL*,WIDE2-1,qAR,W1AW-10:!4237.14N/07120.83W>");
    expect(p.src).toBe("N0CALL-9");
    expect(p.dst).toBe("APRS");
    expect(p.path).toEqual(["W1MHL*", "WIDE2-1", "qAR", "W1AW-10"]);
    expect(p.digipeaters).toEqual(["W1MHL"]);
    expect(p.qConstruct).toBe("qAR");
    expect(p.igate).toBe("W1AW-10");
    const inet = ok("DL1ABC>APRS,TCPIP*,qAC,T2GERMANY:>status");
    expect(inet.qConstruct).toBe("qAC");
    expect(inet.igate).toBe("T2GERMANY");
    expect(ok("N0CALL>APRS:>x").path).toEqual([]);
  });

  test("device from the destination", () => {
    expect(ok("N0CALL>APDW16:>x").device).toBe("Dire Wolf");
    expect(ok("N0CALL>APK004:>x").device).toBe("Kenwood TH-D74");
  });
});

describe("typed errors, never exceptions", () => {
  test.each([
    ["", "empty"],
    ["no header at all", "bad_header"],
    ["N0CALL>APRS", "bad_header"],
    [">APRS:!x", "bad_header"],
    ["N0 CALL>APRS:>x", "bad_source"],
    ["N0CALL>AP RS:>x", "bad_destination"],
    ["N0CALL>APRS,WI DE:>x", "bad_path"],
    ["N0CALL>APRS:", "empty_info"],
    ["N0CALL>APRS:!9903.50N/07201.75W-", "bad_position"],
    ["N0CALL>APRS:!4903.50X/07201.75W-", "bad_position"],
    ["N0CALL>APRS:!4903.50N/07201.7", "bad_position"],
    ["N0CALL>APRS:!/5L!!<*e", "bad_compressed"],
    ["N0CALL>APRS:!/5L!~<*e7>7P[", "bad_compressed"],
    ["N0CALL>APRSXYZ:`c_Vm6hk/", "bad_mic_e"],
    ["N0CALL>T2SP0W:`c_V", "bad_mic_e"],
    ["N0CALL>APRS:;SHORT", "bad_object"],
    ["N0CALL>APRS:;LEADER   x092345z4903.50N/07201.75W>", "bad_object"],
    ["N0CALL>APRS:)A!4903.50N/07201.75WA", "bad_item"],
    ["N0CALL>APRS::SHORT:hi", "bad_message"],
    ["N0CALL>APRS:T#abc,1,2", "bad_telemetry"],
    ["N0CALL>APRS:_1009", "bad_weather"],
    ["N0CALL>APRS:$GPRMC,063909,A,3349.4302,N,11700.3721,W,43.022,89.3,291099,13.6,E*53", "bad_nmea"],
    ["N0CALL>APRS:$GPRMC,063909,V,3349.4302,N,11700.3721,W,43.022,89.3,291099,13.6,E", "bad_nmea"],
    ["N0CALL>APRS:}garbage", "bad_third_party"],
    ["N0CALL>APRS:%unknown", "unsupported_format"],
    ["N0CALL>APRS:" + "x".repeat(2000), "too_long"],
  ])("%p -> %p", (line, code) => {
    expect(err(line) as string).toBe(code);
  });

  test("arbitrary input, bytes and near-misses never throw", () => {
    const samples = [
      "N0CALL>APRS:!4903.50N/07201.75W-",
      'N0CALL>T2SP0W:`c_Vm6hk/`"49}x_%',
      "N0CALL>APRS::WU2Z     :hi{1",
      "N0CALL>APRS:_10090556c220s004g005t077",
      "N0CALL>APRS:;LEADER   *092345z4903.50N/07201.75W>",
    ];
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), fc.integer({ min: 0, max: 4 }), fc.nat(80), (junk, which, at) => {
        const base = samples[which]!;
        for (const line of [junk, base.slice(0, at) + junk, base.slice(0, at) + junk + base.slice(at), "N0CALL>APRS:" + junk]) {
          const r = decode(line);
          expect(typeof r.ok).toBe("boolean");
          if (!r.ok) expect(typeof r.error.code).toBe("string");
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe("formats decode_aprs does not check", () => {
  test("a third-party packet carries its inner packet, decoded", () => {
    const p = ok("N0GATE>APRS,TCPIP*:}W1AW-9>APRS,TCPIP,N0GATE*::N0CALL   :hello{7");
    expect(p.type).toBe("third-party");
    expect(p.inner).toMatchObject({ src: "W1AW-9", type: "message", addressee: "N0CALL", text: "hello", msgId: "7" });
  });

  test("reply-ack message ids", () => {
    expect(ok("N0CALL>APRS::W1AW     :hi there{AB}CD")).toMatchObject({ text: "hi there", msgId: "AB", replyAck: "CD" });
    expect(ok("N0CALL>APRS::W1AW     :ackAB}CD")).toMatchObject({ type: "ack", msgId: "AB" });
  });

  test("Mic-E telemetry and position ambiguity from the destination", () => {
    const p = ok("N1ZZN-9>T2SP0W:`c_Vm6hk/'1020304050");
    expect(p.telemetry).toEqual({ analog: [0x10, 0x20, 0x30, 0x40, 0x50] });
    expect(ok("N1ZZN-9>T2SPZZ:`c_Vm6hk/>").ambiguity).toBe(2);
  });

  test("objects and items in compressed form, negative altitude, status with grid square", () => {
    expect(ok("N0CALL>APRS:)ITEM1!/5L!!<*e7>7P[x")).toMatchObject({ type: "item", name: "ITEM1", format: "compressed" });
    expect(ok("N0CALL>APRS:!4903.50N/07201.75W-/A=-00050").altitudeM).toBe(-15.2);
    expect(ok("N0CALL>APRS:>IO91SX/G My house")).toMatchObject({ type: "status", symbol: "/G", status: "My house" });
  });

  test("a position found inside the first 40 characters", () => {
    expect(ok("N0CALL>BEACON:Test beacon !4903.50N/07201.75W-")).toMatchObject({ lat: 49.0583333, lon: -72.0291667 });
  });
});

describe("encoder", () => {
  test("what it builds decodes back to the same values, here and in decode_aprs", () => {
    const at = Date.UTC(2025, 5, 14, 12, 30);
    const lines = [
      encodePosition({
        src: "N0CALL-9",
        lat: 42.619,
        lon: -71.347167,
        symbol: "/>",
        course: 90,
        speedKmh: 50,
        altitudeM: 120,
        comment: "rolling",
        messaging: true,
      }),
      encodePosition({ src: "N0CALL", path: ["WIDE1-1", "WIDE2-1"], lat: -33.852, lon: 151.2057, symbol: "/-" }),
      encodeWeather({
        src: "N0CALL-13",
        lat: 49.058333,
        lon: -72.029167,
        wx: { windDirDeg: 220, windSpeedKmh: 6.4, windGustKmh: 8, tempC: 25, rain1hMm: 2.5, humidityPct: 50, pressureHpa: 1013.2 },
        comment: "svc",
      }),
      encodeWeather({ src: "N0CALL-13", wx: { windDirDeg: 90, windSpeedKmh: 10, tempC: -5, humidityPct: 100, pressureHpa: 990 }, at }),
      encodeObject({ src: "N0CALL", name: "CACHE1", lat: 42.5, lon: -71.25, symbol: "/.", comment: "GC cache", at }),
      encodeObject({ src: "N0CALL", name: "CACHE1", alive: false, lat: 42.5, lon: -71.25, at }),
      encodeMessage({ src: "N0CALL", addressee: "W1AW-9", text: "see you at the cache", msgId: "12" }),
      encodeAck({ src: "N0CALL", addressee: "W1AW-9", msgId: "12" }),
      encodeAck({ src: "N0CALL", addressee: "W1AW-9", msgId: "13", reject: true }),
      encodeStatus({ src: "N0CALL", text: "QRV on 2m" }),
    ];
    const d = lines.map(ok);
    expect(d[0]).toMatchObject({
      type: "position",
      messaging: true,
      lat: 42.619,
      lon: -71.3471667,
      symbol: "/>",
      course: 90,
      speedKmh: 50,
      altitudeM: 120.1,
      comment: "rolling",
    });
    expect(d[1]).toMatchObject({ lat: -33.852, lon: 151.2056667, path: ["WIDE1-1", "WIDE2-1"] });
    expect(d[2]).toMatchObject({
      type: "weather",
      wx: { windDirDeg: 220, windSpeedKmh: 6.4, windGustKmh: 8, tempC: 25, rain1hMm: 2.5, humidityPct: 50, pressureHpa: 1013.2 },
      comment: "svc",
    });
    expect(d[3]).toMatchObject({
      type: "weather",
      timestamp: "06141230",
      wx: { windDirDeg: 90, windSpeedKmh: 9.7, tempC: -5, humidityPct: 100, pressureHpa: 990 },
    });
    expect(d[4]).toMatchObject({ type: "object", name: "CACHE1", alive: true, timestamp: "141230z", lat: 42.5, lon: -71.25, comment: "GC cache" });
    expect(d[5]).toMatchObject({ type: "object", alive: false });
    expect(d[6]).toMatchObject({ type: "message", addressee: "W1AW-9", text: "see you at the cache", msgId: "12" });
    expect(d[7]).toMatchObject({ type: "ack", addressee: "W1AW-9", msgId: "12" });
    expect(d[8]).toMatchObject({ type: "rej", msgId: "13" });
    expect(d[9]).toMatchObject({ type: "status", status: "QRV on 2m" });
    // The independent decoder reads the same positions and kinds.
    const dw = runDecodeAprs(lines.map((l) => l.replace(",TCPIP*", "")));
    expect(dw.map((r) => r.kind)).toEqual([
      "Position",
      "Position",
      "Weather Report",
      "Positionless Weather Report",
      "Object",
      "Killed Object",
      "APRS Message",
      "ACK message",
      "REJ message",
      "Status Report",
    ]);
    expect(Math.abs(dw[0]!.lat! - 42.619)).toBeLessThan(1e-4);
    expect(dw[0]!.course).toBe(90);
    expect(dw[6]!.msgNumber).toBe("12");
  });

  test("refuses what cannot be sent", () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as EncodeError).code;
      }
      return null;
    };
    expect(code(() => encodeMessage({ src: "N0CALL", addressee: "W1AW", text: "x".repeat(68) }))).toBe("bad_text");
    expect(code(() => encodeMessage({ src: "N0CALL", addressee: "W1AW", text: "a|b" }))).toBe("bad_text");
    expect(code(() => encodeMessage({ src: "not a call", addressee: "W1AW", text: "x" }))).toBe("bad_source");
    expect(code(() => encodePosition({ src: "N0CALL", lat: 91, lon: 0 }))).toBe("bad_position");
    expect(code(() => encodePosition({ src: "N0CALL", lat: 0, lon: 0, symbol: "xx" }))).toBe("bad_symbol");
  });

  test("APRS-IS passcode", () => {
    expect(aprsIsPasscode("N0CALL")).toBe(13023);
    expect(aprsIsPasscode("n0call-10")).toBe(13023);
  });
});

describe("Peet Bros Ultimeter weather and Maidenhead status, against decode_aprs", () => {
  const MPH_KMH = 1.609344;
  const fToC = (f: number) => ((f - 32) * 5) / 9;

  test("$ULTW packets and !! logging lines decode as weather, field for field as Dire Wolf reads them", () => {
    // Composed by hand: peak wind 10.0 km/h, direction 0x40 (90°), 71.8 °F (and -10.0 °F as a negative
    // 16-bit value), long-term rain, 1012.8 hPa, delta, two correction words, 50.0 %, day, minute,
    // 0.50 in today, 8.0 km/h one-minute average.
    const ultw = "N0CALL>APRS:$ULTW0064004002CE00692790000086A0000101F4011901CC00320050";
    const cold = "N0CALL>APRS:$ULTW00640040FF9C00692790000086A0000101F4011901CC00320050";
    // Logging: wind 8.0 km/h, 0x80 (180°), 40.0 °F, rain, 1014.9 hPa, indoor 70.0 °F, 60.0 %, 40.0 %, day,
    // minute, 0.16 in today, one-minute average 8.0 km/h.
    const logging = "N0CALL>APRS:!!005000800190000027A502BC025801900158053200100050";
    const dw = runDecodeAprs([ultw, cold, logging]);
    const [a, b, c] = [ok(ultw), ok(cold), ok(logging)];
    for (const [p, r] of [
      [a, dw[0]!],
      [b, dw[1]!],
      [c, dw[2]!],
    ] as const) {
      expect(r.kind).toBe("Ultimeter");
      expect(p.type).toBe("weather");
      expect(p.wx!.windDirDeg).toBe(r.weather!.dir!);
      expect(p.wx!.tempC!).toBeCloseTo(fToC(r.weather!.tempF!), 1);
    }
    // $ULTW: Dire Wolf's "wind" is the five-minute peak, our gust.
    expect(a.wx!.windGustKmh!).toBeCloseTo(dw[0]!.windMph! * MPH_KMH, 0);
    expect(a.wx!.pressureHpa!).toBeCloseTo(dw[0]!.weather!.inHg! * 33.8639, 0);
    expect(a.wx!.humidityPct).toBe(dw[0]!.weather!.humidity!);
    expect(a.wx).toEqual({ windGustKmh: 10, windDirDeg: 90, tempC: 22.1, pressureHpa: 1012.8, humidityPct: 50, rainMidnightMm: 12.7, windSpeedKmh: 8 });
    expect(b.wx!.tempC).toBe(-23.3);
    // !!: Dire Wolf prints the instant wind; the one-minute average (the same here) is the APRS wind speed.
    expect(c.wx!.windSpeedKmh!).toBeCloseTo(dw[2]!.windMph! * MPH_KMH, 0);
    expect(c.wx).toEqual({ windSpeedKmh: 8, windDirDeg: 180, tempC: 4.4, pressureHpa: 1014.9, humidityPct: 60, rainMidnightMm: 4.1 });
  });

  test("unknown (----) fields are left out, as Ham::APRS::FAP does; a report with no field is a typed error", () => {
    const p = ok("N0CALL>APRS:$ULTW0031003702CE0069----000086A00001----011901CC00000005");
    expect(p.wx).toEqual({ windGustKmh: 4.9, windDirDeg: 77, tempC: 22.1, rainMidnightMm: 0, windSpeedKmh: 0.5 });
    expect(ok("N0CALL>APRS:!!0000006601A0--------------------------------0010 on the roof")).toMatchObject({
      type: "weather",
      wx: { windSpeedKmh: 1.6, windDirDeg: 143, tempC: 5.3 },
      comment: "on the roof",
    });
    expect(err("N0CALL>APRS:$ULTW")).toBe("bad_weather");
    expect(err("N0CALL>APRS:!!--------")).toBe("bad_weather");
  });

  test("a status that is a Maidenhead locator keeps its text and is placed at the locator's centre", () => {
    const lines = ["N0CALL>APRS:>IO91SX/G", "N0CALL>APRS:>IO91/G", "N0CALL>APRS:>IO91SX/G Net control tonight", "N0CALL>APRS:>JO62qm/- QRV 2m"];
    const dw = runDecodeAprs(lines);
    lines.forEach((l, k) => {
      const p = ok(l);
      const r = dw[k]!;
      expect(r.kind).toBe("Status Report");
      expect({ type: p.type, locator: p.locator?.toUpperCase() }).toEqual({ type: "status", locator: r.locator!.toUpperCase() });
      expect(p.lat!).toBeCloseTo(r.lat!, 4);
      expect(p.lon!).toBeCloseTo(r.lon!, 4);
      expect(p.status).toBe(r.comment ?? "");
    });
    expect(ok(lines[2]!)).toMatchObject({ locator: "IO91sx", lat: 51.979167, lon: -0.458333, symbol: "/G", status: "Net control tonight" });
    expect(ok(lines[1]!)).toMatchObject({ locator: "IO91", lat: 51.5, lon: -1 });
    // Positive control: a plain status has no position.
    expect(ok("N0CALL>APRS:>QRV on 2m").lat).toBeUndefined();
  });
});
