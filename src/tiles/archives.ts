/**
 * The map archives this gateway serves: the built-in world basemap (embedded
 * in the executable by build.ts; built once into .cache/ when run from a
 * checkout) and the operator's PMTiles files in `<data>/tiles/`. Each is
 * listed with what its header says: bounds, zoom range, vector or raster.
 */
import { createHash } from "node:crypto";
import { closeSync, openAsBlob, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { AppError } from "../lib/errors.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, wholeNumber } from "../lib/schema.ts";
import { HEADER_BYTES, PmtilesError, readHeader, TILE_TYPE_NAMES, type Header } from "./pmtiles.ts";

export const WORLD = "world";
export const EMBEDDED_NAME = "tiles/world.pmtiles";
/** Archive file names the route accepts: no paths, no hidden files. */
const ARCHIVE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** A map archive as GET /api/tiles lists it. */
export const ARCHIVE_INFO = closed({
  name: t.String({ description: "its name: the file is <name>.pmtiles" }),
  url: t.String({ description: "where it is served with byte ranges, e.g. /tiles/world.pmtiles" }),
  source: t.Union([t.Literal("built-in"), t.Literal("data")], { description: "built-in: the world basemap; data: a file in <data>/tiles/" }),
  type: t.Union([t.Literal("vector"), t.Literal("raster")]),
  format: t.Union(
    TILE_TYPE_NAMES.map((n) => t.Literal(n)),
    { description: "the tiles' format, from the archive's header" },
  ),
  minZoom: wholeNumber(),
  maxZoom: wholeNumber(),
  bounds: t.Tuple([t.Number(), t.Number(), t.Number(), t.Number()], { description: "[west, south, east, north], degrees" }),
  bytes: wholeNumber({ description: "the archive's size" }),
});
export type ArchiveInfo = Static<typeof ARCHIVE_INFO>;

/** GET /api/tiles. */
export const LISTING = closed({
  archives: t.Array(ARCHIVE_INFO, { description: "the built-in basemap first (unless a data file replaces it), then the operator's" }),
  skipped: t.Array(closed({ file: t.String(), reason: t.String() }), { description: "files in the tiles folder that are not usable archives, and why" }),
});
export type Listing = Static<typeof LISTING>;

export interface ArchiveBody {
  blob: Blob;
  etag: string;
  info: ArchiveInfo;
}

function info(name: string, source: ArchiveInfo["source"], h: Header, bytes: number): ArchiveInfo {
  return {
    name,
    url: `/tiles/${name}.pmtiles`,
    source,
    type: h.tileType === "mvt" ? "vector" : "raster",
    format: h.tileType,
    minZoom: h.minZoom,
    maxZoom: h.maxZoom,
    bounds: h.bounds.map((x) => Math.round(x * 1e5) / 1e5) as ArchiveInfo["bounds"],
    bytes,
  };
}

// ---- the built-in world basemap ------------------------------------------------

let world: Promise<ArchiveBody> | null = null;

/** The built-in basemap: embedded in the executable, or built from the checkout (cached in .cache/). */
export function worldArchive(): Promise<ArchiveBody> {
  world ??= loadWorld().catch((e) => {
    world = null;
    throw e;
  });
  return world;
}

let prebuiltWorld: string | Blob | null = null;

/**
 * A host without Bun serves the basemap Bun built beforehand: Node from this
 * file (scripts/node.ts writes it beside its bundle), a worker from the bytes
 * its bundle carries (scripts/worker.ts).
 */
export function usePrebuiltWorld(file: string | Blob): void {
  prebuiltWorld = file;
  world = null;
}

/** A file as a Blob read on demand (byte ranges read only their bytes): Bun's file blob, or Node's. */
async function fileBlob(path: string): Promise<Blob> {
  return typeof Bun !== "undefined" ? Bun.file(path) : await openAsBlob(path);
}

async function loadWorld(): Promise<ArchiveBody> {
  let blob: Blob;
  if (prebuiltWorld) blob = typeof prebuiltWorld === "string" ? await fileBlob(prebuiltWorld) : prebuiltWorld;
  else if (typeof Bun === "undefined")
    throw new AppError(503, "unavailable", "the built-in basemap was not built for this gateway (on Node, start it with npm run start:node)");
  else blob = Bun.embeddedFiles.find((f) => (f as Blob & { name: string }).name === EMBEDDED_NAME) ?? (await builtFromCheckout());
  const bytes = new Uint8Array(await blob.arrayBuffer());
  const h = readHeader(bytes);
  const hash = typeof Bun !== "undefined" ? Bun.hash(bytes).toString(36) : createHash("sha256").update(bytes).digest("base64url").slice(0, 16);
  return { blob, etag: `"w-${hash}"`, info: info(WORLD, "built-in", h, bytes.length) };
}

/** The world basemap built from this checkout's sources, kept in .cache/ under a hash of the builder. */
export async function builtFromCheckout(): Promise<Blob> {
  const root = resolve(import.meta.dir, "../..");
  const sources = ["src/tiles/world-basemap.ts", "src/tiles/mvt.ts", "src/tiles/clip.ts", "src/tiles/pmtiles.ts"];
  let key = 0n;
  for (const s of sources) key ^= BigInt(Bun.hash(await Bun.file(join(root, s)).bytes()));
  const file = Bun.file(join(root, ".cache", `world-basemap-${key.toString(36)}.pmtiles`));
  if (await file.exists()) return file;
  // In a child process: building takes seconds of CPU that must not stall this gateway's requests.
  const tmp = `${file.name}.tmp-${process.pid}`;
  const child = Bun.spawn([process.execPath, join(root, "src/tiles/world-basemap.ts"), tmp], { cwd: root, stdout: "ignore", stderr: "pipe" });
  if ((await child.exited) !== 0) throw new Error(`building the world basemap failed: ${await new Response(child.stderr).text()}`);
  const fs = await import("node:fs");
  fs.renameSync(tmp, file.name!);
  // earlier builds of older builder sources
  for (const old of fs.readdirSync(join(root, ".cache"))) {
    if (/^world-basemap-[a-z0-9]+\.pmtiles$/.test(old) && join(root, ".cache", old) !== file.name) fs.rmSync(join(root, ".cache", old), { force: true });
  }
  return Bun.file(file.name!);
}

// ---- the operator's archives ------------------------------------------------------

const headerCache = new Map<string, { stamp: string; header: Header | string }>();

function readFileHeader(path: string, stamp: string): Header | string {
  const hit = headerCache.get(path);
  if (hit?.stamp === stamp) return hit.header;
  let header: Header | string;
  try {
    const buf = new Uint8Array(HEADER_BYTES);
    const fd = openSync(path, "r");
    try {
      readSync(fd, buf, 0, HEADER_BYTES, 0);
    } finally {
      closeSync(fd);
    }
    header = readHeader(buf);
  } catch (e) {
    header = e instanceof PmtilesError ? e.message : `cannot read: ${(e as Error).message}`;
  }
  headerCache.set(path, { stamp, header });
  return header;
}

export function tilesDir(dataDir: string): string {
  return join(dataDir, "tiles");
}

type DataListing = Listing & { files: Map<string, { path: string; etag: string }> };
const recent = new Map<string, { at: number; listing: DataListing }>();

/** The operator's archives in `<data>/tiles/`, looked at again after a second (a map view asks for many ranges). */
export function dataArchives(dataDir: string): DataListing {
  const hit = recent.get(dataDir);
  if (hit && Date.now() - hit.at < 1000) return hit.listing;
  const listing = scanDataArchives(dataDir);
  recent.set(dataDir, { at: Date.now(), listing });
  return listing;
}

/** Headers are read again only when a file's size or time changes. */
function scanDataArchives(dataDir: string): DataListing {
  const dir = tilesDir(dataDir);
  const archives: ArchiveInfo[] = [];
  const skipped: Listing["skipped"] = [];
  const files = new Map<string, { path: string; etag: string }>();
  let names: string[] = [];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith(".pmtiles"))
      .sort();
  } catch {
    // no tiles folder: only the built-in basemap
  }
  for (const file of names) {
    const name = file.slice(0, -".pmtiles".length);
    if (!ARCHIVE_NAME.test(name)) {
      skipped.push({ file, reason: "name must be letters, digits, '.', '_' or '-'" });
      continue;
    }
    const path = join(dir, file);
    let st;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const stamp = `${st.size.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}`;
    const h = readFileHeader(path, stamp);
    if (typeof h === "string") {
      skipped.push({ file, reason: h });
      continue;
    }
    archives.push(info(name, "data", h, st.size));
    files.set(name, { path, etag: `"${stamp}"` });
  }
  return { archives, skipped, files };
}

/** Every archive the map can draw: the built-in basemap first, then the operator's (one named like it replaces it). */
export async function listArchives(dataDir: string): Promise<Listing> {
  const data = dataArchives(dataDir);
  const archives = data.files.has(WORLD) ? [] : [(await worldArchive()).info];
  return { archives: [...archives, ...data.archives], skipped: data.skipped };
}

/** The bytes of one archive by name, or null. */
export async function archiveBody(dataDir: string, name: string): Promise<ArchiveBody | null> {
  if (!ARCHIVE_NAME.test(name)) return null;
  const data = dataArchives(dataDir);
  const f = data.files.get(name);
  if (f) return { blob: await fileBlob(f.path), etag: f.etag, info: data.archives.find((a) => a.name === name)! };
  if (name === WORLD) return worldArchive();
  return null;
}
