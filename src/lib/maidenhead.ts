/**
 * Maidenhead locators (pure): the grid hams name places by. A field is two
 * letters (20° of longitude by 10° of latitude, `FN`), a square adds two
 * digits (2° by 1°, `FN42`), a subsquare two more letters (5' by 2.5',
 * `FN42ab`). The live rooms are fields and squares.
 *
 *   locator(42.6, -71.3)        // "FN42ip"
 *   regionsOf(42.6, -71.3)      // ["FN", "FN42"]
 *   parseRegion("fn42")         // "FN42"
 *   regionBox("FN42")           // { west: -72, south: 42, east: -70, north: 43 }
 *   locatorCentre("IO91sx")     // { lat: 51.979167, lon: -0.458333 }
 */

const FIELD = "ABCDEFGHIJKLMNOPQR";
const SUB = "abcdefghijklmnopqrstuvwx";

/** Longitude and latitude measured from the grid's origin, kept inside the grid. */
function grid(lat: number, lon: number): { x: number; y: number } {
  return { x: Math.min(359.99999, Math.max(0, lon + 180)), y: Math.min(179.99999, Math.max(0, lat + 90)) };
}

/** The locator of a position: 2 (field), 4 (square) or 6 (subsquare) characters. */
export function locator(lat: number, lon: number, chars: 2 | 4 | 6 = 6): string {
  const { x, y } = grid(lat, lon);
  let s = FIELD[Math.floor(x / 20)]! + FIELD[Math.floor(y / 10)]!;
  if (chars === 2) return s;
  s += String(Math.floor((x % 20) / 2)) + String(Math.floor(y % 10));
  if (chars === 4) return s;
  return s + SUB[Math.floor(((x % 2) * 60) / 5)]! + SUB[Math.floor(((y % 1) * 60) / 2.5)]!;
}

/** The centre of a 2-, 4- or 6-character locator (any letter case); null when it is not one. */
export function locatorCentre(raw: string): { lat: number; lon: number } | null {
  const s = raw.trim();
  if (!/^[A-Ra-r]{2}(\d{2}([A-Xa-x]{2})?)?$/.test(s)) return null;
  let lon = FIELD.indexOf(s[0]!.toUpperCase()) * 20 - 180;
  let lat = FIELD.indexOf(s[1]!.toUpperCase()) * 10 - 90;
  let w = 20,
    h = 10;
  if (s.length >= 4) {
    lon += Number(s[2]) * 2;
    lat += Number(s[3]);
    (w = 2), (h = 1);
  }
  if (s.length === 6) {
    lon += (SUB.indexOf(s[4]!.toLowerCase()) * 5) / 60;
    lat += (SUB.indexOf(s[5]!.toLowerCase()) * 2.5) / 60;
    (w = 5 / 60), (h = 2.5 / 60);
  }
  const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
  return { lat: r6(lat + h / 2), lon: r6(lon + w / 2) };
}

/** The field and the square a position lies in: the rooms it reaches. */
export function regionsOf(lat: number, lon: number): [string, string] {
  const sq = locator(lat, lon, 4);
  return [sq.slice(0, 2), sq];
}

/** A field (`FN`) or square (`FN42`) in any letter case, normalised; null when it is neither. */
export function parseRegion(raw: string): string | null {
  const s = raw.trim().toUpperCase();
  return /^[A-R]{2}([0-9]{2})?$/.test(s) ? s : null;
}

export interface RegionBox {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** The box a field or square covers (its east and north edges belong to the next one). */
export function regionBox(region: string): RegionBox {
  const west = FIELD.indexOf(region[0]!) * 20 - 180 + (region.length === 4 ? Number(region[2]) * 2 : 0);
  const south = FIELD.indexOf(region[1]!) * 10 - 90 + (region.length === 4 ? Number(region[3]) : 0);
  const w = region.length === 4 ? 2 : 20;
  const h = region.length === 4 ? 1 : 10;
  return { west, south, east: west + w, north: south + h };
}

/**
 * The squares covering a box (west > east crosses the antimeridian), or its
 * fields when that takes more than `max` squares; null when even the fields
 * number more than `max`.
 */
export function regionsCovering(box: RegionBox, max: number): string[] | null {
  const lons =
    box.west <= box.east
      ? [[box.west, box.east]]
      : [
          [box.west, 180],
          [-180, box.east],
        ];
  const cover = (w: number, h: number, name: (lat: number, lon: number) => string): string[] | null => {
    const out = new Set<string>();
    for (const [west, east] of lons as Array<[number, number]>) {
      const x0 = Math.floor((west + 180) / w);
      const x1 = Math.floor((Math.min(east, 179.99999) + 180) / w);
      const y0 = Math.floor((Math.max(box.south, -90) + 90) / h);
      const y1 = Math.floor((Math.min(box.north, 89.99999) + 90) / h);
      if ((x1 - x0 + 1) * (y1 - y0 + 1) + out.size > max) return null;
      for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) out.add(name(y * h - 90 + h / 2, x * w - 180 + w / 2));
    }
    return out.size > max ? null : [...out];
  };
  return cover(2, 1, (lat, lon) => locator(lat, lon, 4)) ?? cover(20, 10, (lat, lon) => locator(lat, lon, 2));
}
