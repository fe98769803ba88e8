import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { decodeFrame, encodeFrame } from "../../radio/frame.ts";
import { decodeNodes, encodeNodes, isNodesFrame, nodesFrames, type NodesBroadcast } from "../../radio/netrom.ts";

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));

describe("NET/ROM NODES broadcasts", () => {
  test("the wire layout: 0xFF, alias, then 21-byte entries", () => {
    const b: NodesBroadcast = {
      alias: "GWNODE",
      entries: [{ dest: { call: "N0NOD", ssid: 1 }, alias: "NODE1", neighbour: { call: "N0NB", ssid: 0 }, quality: 192 }],
    };
    const [info] = encodeNodes(b);
    expect(Buffer.from(info!).toString("hex")).toBe("ff" + "47574e4f4445" + "9c609c9e8840" + "62" + "4e4f44453120" + "9c609c844040" + "60" + "c0");
    expect(decodeNodes(info!)).toEqual({ ok: true, value: b });
  });

  test("long tables split into frames of 11 entries; an empty table is one frame", () => {
    const entries = Array.from({ length: 25 }, (_, i) => ({
      dest: { call: `N${i}DST`, ssid: i % 16 },
      alias: i % 5 ? `D${i}` : "",
      neighbour: { call: "N0NB", ssid: 2 },
      quality: (i * 37) % 256,
    }));
    const frames = nodesFrames({ call: "N0GW", ssid: 0 }, { alias: "#GW", entries });
    expect(frames).toHaveLength(3);
    const got = frames.flatMap((f) => {
      const wire = encodeFrame(f);
      expect(wire.length - 16).toBeLessThanOrEqual(256);
      const back = decodeFrame(wire);
      expect(back.ok && isNodesFrame(back.value)).toBe(true);
      const r = back.ok ? decodeNodes(back.value.info) : null;
      expect(r?.ok && r.value.alias).toBe("#GW");
      return r?.ok ? r.value.entries : [];
    });
    expect(got).toEqual(entries);
    expect(encodeNodes({ alias: "GW", entries: [] }).map((i) => i.length)).toEqual([7]);
  });

  test("malformed broadcasts give typed errors", () => {
    const [good] = encodeNodes({ alias: "GW", entries: [{ dest: { call: "N0A", ssid: 0 }, alias: "A", neighbour: { call: "N0B", ssid: 0 }, quality: 1 }] });
    const mut = (f: (b: Uint8Array) => void) => {
      const b = good!.slice();
      f(b);
      return b;
    };
    const cases: [Uint8Array, string][] = [
      [hex("fe47572020202020"), "netrom-not-nodes"],
      [hex("ff4757"), "netrom-not-nodes"],
      [good!.slice(0, 20), "netrom-bad-length"],
      [mut((b) => (b[2] = 0x01)), "netrom-bad-alias"],
      [mut((b) => (b[3] = 0x20)), "ok"],
      [mut((b) => ((b[3] = 0x20), (b[4] = 0x41))), "netrom-bad-alias"],
      [mut((b) => (b[7] = 0x61 << 1)), "netrom-bad-entry"],
      [mut((b) => (b[15] = 0xe9)), "netrom-bad-alias"],
      [mut((b) => (b[20] = 0x20)), "netrom-bad-entry"],
    ];
    for (const [bytes, code] of cases) {
      const r = decodeNodes(bytes);
      expect(r.ok ? "ok" : r.error.code).toBe(code);
    }
    expect(() => encodeNodes({ alias: "lower", entries: [] })).toThrow();
    expect(() =>
      encodeNodes({ alias: "GW", entries: [{ dest: { call: "N0A", ssid: 0 }, alias: "A", neighbour: { call: "N0B", ssid: 0 }, quality: 256 }] }),
    ).toThrow();
  });

  test("property: random info never throws", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (junk, sig) => {
        if (sig && junk.length) junk[0] = 0xff;
        const r = decodeNodes(junk);
        if (!r.ok) expect(r.error.code).toMatch(/^netrom-/);
      }),
      { numRuns: 3000 },
    );
  });
});
