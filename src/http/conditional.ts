/**
 * Conditional GETs for JSON that changes seldom but is asked for often: a
 * peer reads this instance's descriptor on every pull and the registry view
 * after each pull of a peer that trusts it. The answer carries an ETag (a hash
 * of its bytes); a client that sends it back in If-None-Match gets 304 with no
 * body while nothing changed.
 */
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

/** `value` as JSON with its ETag, or 304 when the request already holds it. */
export function conditionalJson(request: Request, value: unknown): Response {
  const text = JSON.stringify(value);
  const etag = etagOf(text);
  if (ifNoneMatch(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers: { etag } });
  return new Response(text, { headers: { "content-type": "application/json", etag } });
}
