/**
 * The gateway's map archives (GET /api/tiles) as Leaflet layers, read with
 * byte ranges from /tiles/<name>.pmtiles: vector archives drawn by
 * protomaps-leaflet in the Protomaps light style (the built-in world basemap
 * uses the same schema), raster archives as images. They need nothing but
 * this gateway.
 */
import L from "leaflet";
import { PMTiles } from "pmtiles";
import { leafletLayer } from "protomaps-leaflet";
import { api, firstAnswer } from "../api.ts";

export interface ArchiveInfo {
  name: string;
  url: string;
  source: "built-in" | "data";
  type: "vector" | "raster";
  format: string;
  minZoom: number;
  maxZoom: number;
  bounds: [number, number, number, number];
  bytes: number;
}

export interface TileListing {
  archives: ArchiveInfo[];
  skipped: Array<{ file: string; reason: string }>;
}

let listing: Promise<TileListing> | null = null;
export const tileListing = () =>
  (listing ??= firstAnswer("/api/tiles", () => api<TileListing>("/api/tiles")).catch((e) => {
    listing = null;
    throw e;
  }));

/** Ocean colour of the style: the world basemap only has land, the rest is sea. */
const SEA = "#80deea";

const toLatLngBounds = (b: ArchiveInfo["bounds"]) => L.latLngBounds([b[1], b[0]], [b[3], b[2]]);

/** Raster PMTiles: each tile read from the archive and shown as an image. */
class RasterArchiveLayer extends L.GridLayer {
  constructor(
    private archive: PMTiles,
    options: L.GridLayerOptions,
  ) {
    super(options);
  }

  override createTile(coords: L.Coords, done: L.DoneCallback): HTMLElement {
    const img = document.createElement("img");
    img.alt = "";
    this.archive
      .getZxy(coords.z, coords.x, coords.y)
      .then((t) => {
        if (!t) return done(undefined, img);
        const url = URL.createObjectURL(new Blob([t.data]));
        img.onload = () => {
          URL.revokeObjectURL(url);
          done(undefined, img);
        };
        img.onerror = () => done(new Error("bad tile image"), img);
        img.src = url;
      })
      .catch((e: Error) => done(e, img));
    return img;
  }
}

/** One layer for an archive. */
export function archiveLayer(a: ArchiveInfo): L.GridLayer {
  const world = a.source === "built-in";
  const bounds = world ? undefined : toLatLngBounds(a.bounds);
  const attribution = world ? "Natural Earth, GeoNames" : undefined;
  if (a.type === "raster") {
    return new RasterArchiveLayer(new PMTiles(a.url), {
      // not far below its own zooms: that would fetch its many small tiles for a big view
      minZoom: Math.max(0, a.minZoom - 2),
      minNativeZoom: a.minZoom,
      maxNativeZoom: a.maxZoom,
      maxZoom: 22,
      bounds,
      attribution,
      className: `archive-${a.name}`,
    });
  }
  const layer = leafletLayer({
    url: new PMTiles(a.url),
    flavor: "light",
    lang: "en",
    maxDataZoom: a.maxZoom,
    bounds,
    attribution: attribution ?? '<a href="https://protomaps.com">Protomaps</a> © <a href="https://openstreetmap.org/copyright">OpenStreetMap</a>',
    className: `archive-${a.name}`,
  } as any) as unknown as L.GridLayer & { backgroundColor?: string };
  // Only the world basemap paints a background (the sea); extracts draw over it.
  layer.backgroundColor = world ? SEA : undefined;
  return layer;
}

/** Adds every archive, the world first (lowest); resolves with what was added. */
export async function addArchiveLayers(map: L.Map): Promise<ArchiveInfo[]> {
  const { archives } = await tileListing();
  const ordered = [...archives].sort((a, b) => Number(b.source === "built-in") - Number(a.source === "built-in"));
  for (const a of ordered) archiveLayer(a).addTo(map);
  return ordered;
}
