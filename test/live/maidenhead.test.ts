/** Maidenhead locators: known places, region parsing, region boxes and the squares covering a map view. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { locator, parseRegion, regionBox, regionsCovering, regionsOf } from "../../src/lib/maidenhead.ts";

describe("Maidenhead", () => {
  test("known locators", () => {
    // W1AW, Newington CT; the ARRL lists it as FN31pr.
    expect(locator(41.714775, -72.72726)).toBe("FN31pr");
    expect(locator(41.714775, -72.72726, 4)).toBe("FN31");
    expect(locator(41.714775, -72.72726, 2)).toBe("FN");
    expect(regionsOf(42.6, -71.3)).toEqual(["FN", "FN42"]);
    // The grid's edges stay inside it.
    expect(locator(90, 180)).toBe("RR99xx");
    expect(locator(-90, -180)).toBe("AA00aa");
  });

  test("regions: fields and squares in any case; nothing else", () => {
    expect(parseRegion("fn42")).toBe("FN42");
    expect(parseRegion(" FN ")).toBe("FN");
    for (const bad of ["", "F", "FN4", "FN42ab", "SN", "ZZ", "F N", "42"]) expect(parseRegion(bad)).toBeNull();
    expect(regionBox("FN42")).toEqual({ west: -72, south: 42, east: -70, north: 43 });
    expect(regionBox("FN")).toEqual({ west: -80, south: 40, east: -60, north: 50 });
  });

  test("property: every position lies in the box of its field and of its square", () => {
    fc.assert(
      // Positions at the wire's resolution (1e-7 degree).
      fc.property(fc.integer({ min: -900_000_000, max: 899_999_999 }), fc.integer({ min: -1_800_000_000, max: 1_799_999_999 }), (la, lo) => {
        const lat = la / 1e7;
        const lon = lo / 1e7;
        for (const r of regionsOf(lat, lon)) {
          const b = regionBox(r);
          expect(lat >= b.south && lat < b.north && lon >= b.west && lon < b.east).toBe(true);
        }
      }),
    );
  });

  test("the squares covering a view, its fields when there are too many, none when even those are too many", () => {
    expect(regionsCovering({ west: -71.9, south: 42.1, east: -70.1, north: 42.9 }, 64)).toEqual(["FN42"]);
    expect(regionsCovering({ west: -73.5, south: 41.5, east: -70.5, north: 42.5 }, 64)!.sort()).toEqual(["FN31", "FN32", "FN41", "FN42"]);
    // Across the antimeridian.
    expect(regionsCovering({ west: 179, south: -15.5, east: -179, north: -15.2 }, 64)!.sort()).toEqual(["AH04", "RH94"]);
    expect(regionsCovering({ west: -80, south: 30, east: -50, north: 49 }, 64)!.sort()).toEqual(["FM", "FN", "GM", "GN"]);
    expect(regionsCovering({ west: -180, south: -85, east: 180, north: 85 }, 64)).toBeNull();
  });
});
