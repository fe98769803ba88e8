/**
 * Map archives over HTTP: `GET /api/tiles` lists them, `GET|HEAD
 * /tiles/:name.pmtiles` serves one with byte ranges, as PMTiles readers
 * fetch the header, directories and tiles each as a range.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { errorResponse } from "../http/errors.ts";
import { parseRange } from "../lib/net/byte-range.ts";
import { ifNoneMatch } from "../lib/net/etag.ts";
import { archiveBody, listArchives, LISTING } from "./archives.ts";
import { answers, answersEmpty, answersMedia } from "../http/openapi.ts";

const PMTILES = "application/vnd.pmtiles";

async function serveArchive(dataDir: string, file: string, request: Request): Promise<Response> {
  const name = file.endsWith(".pmtiles") ? file.slice(0, -".pmtiles".length) : "";
  const a = name ? await archiveBody(dataDir, name) : null;
  if (!a) return errorResponse(404, { error: "not_found", message: `no map archive ${file}; GET /api/tiles lists them` });
  const size = a.blob.size;
  const headers: Record<string, string> = {
    "content-type": PMTILES,
    "accept-ranges": "bytes",
    etag: a.etag,
    "cache-control": "public, max-age=300",
  };
  const head = request.method === "HEAD";
  if (ifNoneMatch(request.headers.get("if-none-match"), a.etag)) return new Response(null, { status: 304, headers });
  const ifRange = request.headers.get("if-range");
  let range = parseRange(request.headers.get("range"), size);
  if (ifRange && ifRange !== a.etag) range = null;
  if (range === "unsatisfiable") {
    return errorResponse(
      416,
      { error: "range_not_satisfiable", message: `the archive has ${size} bytes` },
      { "content-range": `bytes */${size}`, etag: a.etag },
    );
  }
  if (!range) {
    headers["content-length"] = String(size);
    return new Response(head ? null : a.blob, { status: 200, headers });
  }
  headers["content-range"] = `bytes ${range.start}-${range.end}/${size}`;
  headers["content-length"] = String(range.end - range.start + 1);
  return new Response(head ? null : a.blob.slice(range.start, range.end + 1), { status: 206, headers });
}

/** `/tiles/:file`: the file name stays free text, so an unknown or malformed one is a 404 as before. */
const archiveRoute = {
  params: t.Object({ file: t.String({ description: "<name>.pmtiles, a name GET /api/tiles lists" }) }),
  detail: {
    summary: "One map archive with byte ranges, for PMTiles readers",
    description:
      "Range: bytes=a-b, a- or -n answers 206 with Content-Range; a range past the end 416; no usable Range the whole archive. " +
      "ETag on every answer (If-None-Match: 304; If-Range with another ETag: the whole archive). An unknown name is 404.",
    tags: ["Maps"],
    responses: {
      ...answersMedia("the whole archive", PMTILES),
      ...answersMedia("the range asked for (Content-Range)", PMTILES, 206),
      ...answersEmpty("not modified: the ETag matches If-None-Match", 304),
    },
  },
};

export function tilesRoutes(gw: Core, kit: RouteKit) {
  const dataDir = gw.config.dataDir;
  return kit.app
    .get(
      "/api/tiles",
      async ({ set }) => {
        set.headers["cache-control"] = "no-cache";
        return listArchives(dataDir);
      },
      {
        gate: "public",
        detail: {
          summary: "List the map archives (PMTiles) this gateway serves, for the map",
          description: "Answers { archives: [{ name, url, source, type, format, minZoom, maxZoom, bounds, bytes }], skipped: [{ file, reason }] }.",
          tags: ["Maps"],
          responses: answers("the archives, and the files skipped", LISTING),
        },
      },
    )
    .get("/tiles/:file", ({ params, request }) => serveArchive(dataDir, params.file, request), { gate: "public", ...archiveRoute })
    .head("/tiles/:file", ({ params, request }) => serveArchive(dataDir, params.file, request), { gate: "public", ...archiveRoute });
}
