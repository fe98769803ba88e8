/**
 * A cache's gallery and stage audio, stored in SQLite (one file to back up).
 * Uploads are raw bodies with their content type; the bytes must really be
 * that type (checked by their signature), within the size limits. Owners and
 * anyone who logged the cache may upload.
 */
import { createHash } from "node:crypto";
import type { Core } from "../core/core.ts";
import { AppError, badRequest, conflict, forbidden, notFound } from "../lib/errors.ts";
import { visibleRow, isOwner } from "./cache-lookup.ts";
import type { Actor } from "./model.ts";
import type { DELETED } from "./shapes.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";

export const MEDIA_TYPES = {
  "image/jpeg": { max: 2 * 1024 * 1024, sniff: (b: Uint8Array) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  "image/png": { max: 2 * 1024 * 1024, sniff: (b: Uint8Array) => ascii(b, 1, 3) === "PNG" && b[0] === 0x89 },
  "image/gif": { max: 2 * 1024 * 1024, sniff: (b: Uint8Array) => ascii(b, 0, 6) === "GIF87a" || ascii(b, 0, 6) === "GIF89a" },
  "image/webp": { max: 2 * 1024 * 1024, sniff: (b: Uint8Array) => ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WEBP" },
  "audio/mpeg": { max: 8 * 1024 * 1024, sniff: (b: Uint8Array) => ascii(b, 0, 3) === "ID3" || (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0) },
  "audio/ogg": { max: 8 * 1024 * 1024, sniff: (b: Uint8Array) => ascii(b, 0, 4) === "OggS" },
  "audio/wav": { max: 8 * 1024 * 1024, sniff: (b: Uint8Array) => ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WAVE" },
} as const;
export type MediaType = keyof typeof MEDIA_TYPES;
export const MAX_MEDIA_BYTES = 8 * 1024 * 1024;
const MAX_MEDIA_PER_CACHE = 50;

function ascii(b: Uint8Array, at: number, n: number): string {
  return String.fromCharCode(...b.subarray(at, at + n));
}

/** A cache's picture or audio file as the API answers it (the bytes are at its url). */
export const MEDIA_JSON = closed({
  id: wholeNumber(),
  cacheId: wholeNumber(),
  type: t.String({ description: `its media type: ${Object.keys(MEDIA_TYPES).join(", ")}` }),
  size: wholeNumber({ description: "bytes" }),
  caption: nullable(t.String()),
  url: t.String({ description: "the file itself: /api/media/{id}" }),
  createdAt: unixMs(),
  by: nullable(t.String(), "who uploaded it: their callsign, when they have one"),
});
export type Media = Static<typeof MEDIA_JSON>;
/** A cache's pictures and audio files, oldest first. */
export const MEDIA_LIST = closed({ media: t.Array(MEDIA_JSON) });

const COLS = `m.id, m.cache_id AS cacheId, m.type, m.size, m.caption, m.created_at AS createdAt,
  (SELECT call FROM callsigns WHERE user_id = m.user_id AND active = 1) AS by`;

const withUrl = (m: Omit<Media, "url">): Media => ({ ...m, url: `/api/media/${m.id}` });

export function listMedia(gw: Core, cacheId: number, actor: Actor | null): Static<typeof MEDIA_LIST> {
  visibleRow(gw, cacheId, actor);
  return {
    media: (gw.db.query(`SELECT ${COLS} FROM media m WHERE m.cache_id = ? ORDER BY m.created_at, m.id`).all(cacheId) as Array<Omit<Media, "url">>).map(withUrl),
  };
}

export function uploadMedia(gw: Core, actor: Actor, cacheId: number, contentType: string, body: unknown, caption: string | undefined): Media {
  const c = visibleRow(gw, cacheId, actor);
  const userId = actor.userId!;
  const logged = gw.db.query("SELECT 1 FROM logs WHERE cache_id = ? AND user_id = ?").get(cacheId, userId);
  if (!isOwner(actor, c) && !logged) throw forbidden("the owner and those who logged this cache may add pictures", "not_allowed");
  const spec = MEDIA_TYPES[contentType as MediaType];
  if (!spec) throw new AppError(415, "unsupported_media_type", `send the file with its type: one of ${Object.keys(MEDIA_TYPES).join(", ")}`);
  if (!(body instanceof Uint8Array) || body.byteLength === 0) throw badRequest("bad_body", "the body is the file itself");
  if (body.byteLength > spec.max) throw new AppError(413, "body_too_large", `a ${contentType} file is at most ${spec.max} bytes`);
  if (!spec.sniff(body)) throw badRequest("bad_media", `the file is not a ${contentType}`);
  const n = (gw.db.query("SELECT count(*) AS n FROM media WHERE cache_id = ?").get(cacheId) as { n: number }).n;
  if (n >= MAX_MEDIA_PER_CACHE) throw conflict("too_many_media", `a cache holds at most ${MAX_MEDIA_PER_CACHE} files`);
  const sha = createHash("sha256").update(body).digest("hex");
  const id = Number(
    gw.db
      .query("INSERT INTO media (cache_id, user_id, type, bytes, size, caption, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(cacheId, userId, contentType, body, body.byteLength, caption?.trim() || null, sha, gw.clock.now()).lastInsertRowid,
  );
  return withUrl(gw.db.query(`SELECT ${COLS} FROM media m WHERE m.id = ?`).get(id) as Omit<Media, "url">);
}

/** The file itself, for GET /api/media/:id. */
export function mediaFile(gw: Core, id: number): { type: string; bytes: Uint8Array; sha256: string } {
  const r = gw.db.query("SELECT m.type, m.bytes, m.sha256 FROM media m JOIN caches c ON c.id = m.cache_id WHERE m.id = ? AND c.status <> 'draft'").get(id) as {
    type: string;
    bytes: Uint8Array;
    sha256: string;
  } | null;
  if (!r) throw notFound(`media ${id}`);
  return r;
}

export function deleteMedia(gw: Core, actor: Actor, id: number): Static<typeof DELETED> {
  const r = gw.db.query("SELECT cache_id AS cacheId, user_id AS userId FROM media WHERE id = ?").get(id) as { cacheId: number; userId: number | null } | null;
  if (!r) throw notFound(`media ${id}`);
  const c = visibleRow(gw, r.cacheId, actor);
  if (r.userId !== actor.userId && !isOwner(actor, c)) throw forbidden("only the uploader or the cache's owner may remove a file", "not_yours");
  gw.db.query("DELETE FROM media WHERE id = ?").run(id);
  return { deleted: true };
}
