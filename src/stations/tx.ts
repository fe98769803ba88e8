/**
 * POST /api/tx/aprs: a signed-in user with a verified callsign transmits
 * through the outbox, as their active callsign. Messages get an id and are
 * retried until acked; positions and status go out once.
 */
import type { Gateway } from "../gateway.ts";
import type { SignedInUser } from "../accounts/caller.ts";
import { encodePosition, encodeStatus, EncodeError } from "../aprs/index.ts";
import { badRequest } from "../errors.ts";
import { enqueue, enqueueMessage, type OutboxItem } from "./outbox.ts";

export function transmit(gw: Gateway, user: SignedInUser, body: unknown): { item: OutboxItem } {
  if (!body || typeof body !== "object" || Array.isArray(body) || body instanceof Uint8Array) {
    throw badRequest("bad_body", 'expected {"addressee", "text"}, {"kind": "position", "lat", "lon", ...} or {"kind": "status", "text"}');
  }
  const b = body as Record<string, unknown>;
  const src = user.call!;
  const kind = b.kind ?? "message";
  try {
    if (kind === "message") {
      if (typeof b.addressee !== "string" || typeof b.text !== "string") throw badRequest("invalid", "a message needs addressee and text");
      return { item: enqueueMessage(gw, { src, addressee: b.addressee, text: b.text, userId: user.id }) };
    }
    if (kind === "position") {
      if (typeof b.lat !== "number" || typeof b.lon !== "number") throw badRequest("invalid", "a position needs lat and lon");
      if (b.symbol !== undefined && typeof b.symbol !== "string") throw badRequest("invalid", "symbol is 2 characters");
      if (b.comment !== undefined && typeof b.comment !== "string") throw badRequest("invalid", "comment is text");
      const line = encodePosition({
        src,
        lat: b.lat,
        lon: b.lon,
        symbol: b.symbol as string | undefined,
        comment: b.comment as string | undefined,
        messaging: true,
      });
      return { item: enqueue(gw, { kind: "position", src, line, userId: user.id }) };
    }
    if (kind === "status") {
      if (typeof b.text !== "string") throw badRequest("invalid", "a status needs text");
      return { item: enqueue(gw, { kind: "status", src, line: encodeStatus({ src, text: b.text }), userId: user.id }) };
    }
  } catch (e) {
    if (e instanceof EncodeError) throw badRequest(e.code, e.message);
    throw e;
  }
  throw badRequest("invalid", "kind is message, position or status");
}
