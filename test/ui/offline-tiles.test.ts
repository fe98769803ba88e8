/** Which map tiles "Save area for offline" fetches for a view. */
import { describe, expect, test } from "bun:test";
import { EXTRA_ZOOMS, MAX_TILES, tileUrls } from "../../ui/offline/tiles.ts";

describe("tiles of a saved area", () => {
  test("the tiles covering the view at its zoom and the next three, in the gateway's /tiles/ template", () => {
    // a few hundred metres around Marienplatz, Munich: tiles 14/8718/5685-5686 (OSM numbering, from the
    // slippy-map formula with asinh, computed apart from the code under test)
    const view = { west: 11.574, south: 48.1365, east: 11.577, north: 48.138 };
    const urls = tileUrls("/tiles/{z}/{x}/{y}.mvt", view, 14);
    expect(urls.filter((u) => u.startsWith("/tiles/14/"))).toEqual(["/tiles/14/8718/5685.mvt", "/tiles/14/8718/5686.mvt"]);
    const zooms = new Set(urls.map((u) => u.split("/")[2]));
    expect([...zooms]).toEqual(["14", "15", "16"]); // capped at the map's maxZoom (16 by default)
    expect(
      tileUrls("/tiles/{z}/{x}/{y}.mvt", view, 14, 22)
        .map((u) => u.split("/")[2])
        .filter((z, i, a) => a.indexOf(z) === i),
    ).toHaveLength(EXTRA_ZOOMS + 1);
    // every tile of a zoom lies inside the view's tile range
    expect(urls.filter((u) => u.startsWith("/tiles/16/"))).toHaveLength(4);
    for (const u of urls.filter((u) => u.startsWith("/tiles/16/"))) {
      const [, , , x, y] = u.replace(".mvt", "").split("/").map(Number);
      expect(x! >= 34874 && x! <= 34875 && y! >= 22743 && y! <= 22744).toBe(true);
    }
  });

  test("nothing for tiles elsewhere (another origin, or an archive with no z/x/y), and never more than the cap", () => {
    const view = { west: 11.5, south: 48.1, east: 11.6, north: 48.2 };
    expect(tileUrls("https://tile.openstreetmap.org/{z}/{x}/{y}.png", view, 14)).toEqual([]);
    expect(tileUrls("/tiles/region.pmtiles", view, 14)).toEqual([]);
    expect(tileUrls("/tiles/{z}/{x}/{y}.png", view, 14).length).toBeGreaterThan(0);
    expect(tileUrls("/tiles/{z}/{x}/{y}.png", { west: -180, south: -85, east: 180, north: 85 }, 8).length).toBe(MAX_TILES);
  });
});
