/**
 * The trackable state rule (docs/protocol.md "Trackable state") as a
 * property: whatever order an instance received the moves in, it derives the
 * same holder, cache, missing flag and distance; and the rule's cases.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { deriveState, MOVE_KINDS, orderMoves, type MoveFact } from "../../src/game/trackables-state.ts";
import { distanceM } from "../../src/game/model.ts";

const move = (gid: string, kind: MoveFact["kind"], call: string, at: number, cache: [string, number, number] | null = null): MoveFact => ({
  gid,
  kind,
  call,
  at,
  cacheGid: cache?.[0] ?? null,
  lat: cache?.[1] ?? null,
  lon: cache?.[2] ?? null,
});
const c1: [string, number, number] = ["gw-a:cache:1", 48.1, 11.5];
const c2: [string, number, number] = ["gw-b:cache:4", 48.3, 11.9];

describe("trackable state", () => {
  test("the rule's cases: in the owner's hands, drop, take, missing and found again; visits count distance", () => {
    expect(deriveState("N0OWN", [])).toEqual({ holder: "N0OWN", inCache: null, missing: false, distanceM: 0 });
    const moves = [
      move("gw-a:trackable-move:1", "drop", "N0OWN", 1000, c1),
      move("gw-a:trackable-move:2", "discover", "N0SEE", 2000),
      move("gw-b:trackable-move:1", "retrieve", "N0TWO", 3000, c1),
      move("gw-b:trackable-move:2", "visit", "N0TWO", 4000, c2),
      move("gw-b:trackable-move:3", "note", "N0TWO", 5000),
    ];
    expect(deriveState("N0OWN", moves)).toEqual({
      holder: "N0TWO",
      inCache: null,
      missing: false,
      distanceM: Math.round(distanceM(48.1, 11.5, 48.3, 11.9) * 10) / 10,
    });
    const lost = [...moves, move("gw-a:trackable-move:3", "missing", "N0OWN", 6000)];
    expect(deriveState("N0OWN", lost)).toMatchObject({ holder: null, inCache: null, missing: true });
    expect(deriveState("N0OWN", [...lost, move("gw-c:trackable-move:1", "grab", "N0FND", 7000)])).toMatchObject({ holder: "N0FND", missing: false });
  });

  test("two grabs in the same second: ordered by signing instance, then local id as a number, so the later holds it", () => {
    const a = move("gw-a:trackable-move:10", "grab", "N0ONE", 5000);
    const b = move("gw-b:trackable-move:2", "grab", "N0TWO", 5000);
    const a9 = move("gw-a:trackable-move:9", "grab", "N0NIN", 5000);
    expect(orderMoves([b, a, a9]).map((m) => m.gid)).toEqual(["gw-a:trackable-move:9", "gw-a:trackable-move:10", "gw-b:trackable-move:2"]);
    expect(deriveState("N0OWN", [b, a]).holder).toBe("N0TWO");
    expect(deriveState("N0OWN", [a, b]).holder).toBe("N0TWO");
  });

  test("any order of the same moves gives the same state (property)", () => {
    const caches = [c1, c2, ["gw-c:cache:9", -33.9, 151.2] as [string, number, number]];
    const arbMove = fc
      .record({
        origin: fc.constantFrom("gw-a", "gw-b", "gw-c"),
        id: fc.integer({ min: 1, max: 30 }),
        kind: fc.constantFrom(...MOVE_KINDS),
        call: fc.constantFrom("N0ONE", "N0TWO", "N0OWN"),
        at: fc.integer({ min: 0, max: 6 }).map((s) => s * 1000),
        cache: fc.option(fc.constantFrom(...caches), { nil: null }),
      })
      .map((m) => move(`${m.origin}:trackable-move:${m.id}`, m.kind, m.call, m.at, m.cache));
    const unique = fc.uniqueArray(arbMove, { selector: (m) => m.gid, maxLength: 12 });
    const withPermutation = unique.chain((moves) => fc.tuple(fc.constant(moves), fc.shuffledSubarray(moves, { minLength: moves.length })));
    fc.assert(
      fc.property(withPermutation, ([moves, permuted]) => {
        expect(deriveState("N0OWN", permuted)).toEqual(deriveState("N0OWN", moves));
      }),
      { numRuns: 300 },
    );
  });
});
