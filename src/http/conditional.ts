/**
 * Conditional GETs for JSON that changes seldom but is asked for often: a
 * peer reads this instance's descriptor on every pull and the registry view
 * after each pull of a peer that trusts it. The answer carries an ETag (a hash
 * of its bytes); a client that sends it back in If-None-Match gets 304 with no
 * body while nothing changed.
 */
import { etagOf, ifNoneMatch } from "../lib/net/etag.ts";

/** `value` as JSON with its ETag, or 304 when the request already holds it. */
export function conditionalJson(request: Request, value: unknown): Response {
  const text = JSON.stringify(value);
  const etag = etagOf(text);
  if (ifNoneMatch(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers: { etag } });
  return new Response(text, { headers: { "content-type": "application/json", etag } });
}
