/** The map tiles an area needs, for a same-origin `/tiles/{z}/{x}/{y}` tile URL template. */

/** At most this many tiles in one saved area. */
export const MAX_TILES = 3000;
/** Deeper zoom levels saved below the current one. */
export const EXTRA_ZOOMS = 3;

/** Tile URLs of the box at zooms z..z+EXTRA_ZOOMS, for a same-origin /tiles/{z}/{x}/{y} template. */
export function tileUrls(template: string, bounds: { west: number; south: number; east: number; north: number }, z0: number, maxZoom = 16): string[] {
  if (!template.startsWith("/tiles/") || !/\{z\}/.test(template) || !/\{x\}/.test(template) || !/\{y\}/.test(template)) return [];
  const out: string[] = [];
  const lat2y = (lat: number, n: number) =>
    Math.floor(((1 - Math.log(Math.tan((lat * Math.PI) / 180) + 1 / Math.cos((lat * Math.PI) / 180)) / Math.PI) / 2) * n);
  const lon2x = (lon: number, n: number) => Math.floor(((lon + 180) / 360) * n);
  for (let z = Math.max(0, Math.floor(z0)); z <= Math.min(maxZoom, Math.floor(z0) + EXTRA_ZOOMS); z++) {
    const n = 2 ** z;
    const clampLat = (v: number) => Math.max(-85.0511, Math.min(85.0511, v));
    const x0 = Math.max(0, lon2x(bounds.west, n));
    const x1 = Math.min(n - 1, lon2x(bounds.east, n));
    const y0 = Math.max(0, lat2y(clampLat(bounds.north), n));
    const y1 = Math.min(n - 1, lat2y(clampLat(bounds.south), n));
    for (let x = x0; x <= x1; x++)
      for (let y = y0; y <= y1; y++)
        out.push(template.replace("{z}", String(z)).replace("{x}", String(x)).replace("{y}", String(y)).replace("{s}", "a").replace("{r}", ""));
    if (out.length > MAX_TILES) break;
  }
  return out.slice(0, MAX_TILES);
}
