/**
 * The fixed-seed slice of `bun run bench fuzz`: 2,000 mutated inputs per
 * decoder (the same mutation code, test/helpers/fuzz.ts). Every input either
 * decodes or is refused with the decoder's own typed error; the valid seeds
 * still decode; and the harness does see an escape when a decoder has no
 * boundary (so zero escapes means something).
 */
import { describe, expect, test } from "bun:test";
import { fuzzTarget, prng, mutate, targets, type Target } from "../helpers/fuzz.ts";

const SLICE = 2_000;
const SEED = 20261126;

describe("fuzz slice", () => {
  for (const t of targets()) {
    test(`${t.name}: the valid seeds decode, and ${SLICE} mutated inputs decode or are refused with the typed error, none throws past it`, async () => {
      for (const s of t.seeds) expect({ seed: Buffer.from(s).toString("base64").slice(0, 80), result: await t.run(s) }).toMatchObject({ result: "ok" });
      const r = await fuzzTarget(t, SLICE, SEED);
      expect(r.inputs).toBe(SLICE);
      expect(r.escapes).toEqual([]);
      expect(r.escaped).toBe(0);
      // The mutations reach the error paths, and some still decode.
      expect(r.refused).toBeGreaterThan(SLICE / 4);
      expect(r.ok).toBeGreaterThan(0);
    });
  }

  test("the harness counts an escape: a decoder without a boundary (bare JSON.parse, a CBOR decode that allows no error) escapes", async () => {
    const json = targets().find((t) => t.name === "json")!;
    const bare: Target = { ...json, name: "bare-json", run: (b) => (JSON.parse(new TextDecoder().decode(b)), "ok") };
    const r = await fuzzTarget(bare, 500, SEED);
    expect(r.escaped).toBeGreaterThan(0);
    expect(r.escapes[0]!.error).toContain("SyntaxError");
    const cbor = targets().find((t) => t.name === "cbor")!;
    const noBoundary: Target = {
      ...cbor,
      name: "cbor-no-boundary",
      run: (b) =>
        cbor.run(b) === "refused"
          ? (() => {
              throw new TypeError("refused counts as escape here");
            })()
          : "ok",
    };
    expect((await fuzzTarget(noBoundary, 500, SEED)).escaped).toBeGreaterThan(0);
  });

  test("the same seed gives the same inputs (a reported escape can be replayed)", () => {
    const seeds = targets()[0]!.seeds;
    const a = prng(7);
    const b = prng(7);
    for (let i = 0; i < 50; i++) expect(mutate(a, seeds, "cbor")).toEqual(mutate(b, seeds, "cbor"));
  });
});
