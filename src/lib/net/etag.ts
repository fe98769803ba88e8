/** Entity tags of HTTP answers (RFC 9110 8.8.3): a body's tag, and whether an If-None-Match names it. */
import { createHash } from "node:crypto";

/** The ETag of a body: a quoted SHA-256 prefix, strong (the bytes are the same). */
export const etagOf = (text: string) => `"${createHash("sha256").update(text).digest("base64url").slice(0, 22)}"`;

/** Whether an If-None-Match header names `etag` (a list of tags, or `*`; weak tags match by their value). */
export function ifNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}
