/**
 * POST /api/tx/aprs: a signed-in user with a verified callsign transmits
 * through the outbox, as their active callsign. Messages get an id and are
 * retried until acked; positions and status go out once.
 */
import type { Core } from "../core/core.ts";
import type { SignedInUser } from "../accounts/caller.ts";
import { encodePosition, encodeStatus, EncodeError } from "../lib/aprs/index.ts";
import { badRequest } from "../lib/errors.ts";
import { enqueue, enqueueMessage, type OutboxItem } from "./outbox.ts";

/** What a transmit request sends; the shape is checked at the route, the fields a kind needs here. */
export interface TxBody {
  kind?: "message" | "position" | "status";
  addressee?: string;
  text?: string;
  lat?: number;
  lon?: number;
  symbol?: string;
  comment?: string;
}

export function transmit(gw: Core, user: SignedInUser, b: TxBody): { item: OutboxItem } {
  const src = user.call!;
  const kind = b.kind ?? "message";
  try {
    if (kind === "message") {
      if (b.addressee === undefined || b.text === undefined) throw badRequest("invalid", "a message needs addressee and text");
      return { item: enqueueMessage(gw, { src, addressee: b.addressee, text: b.text, userId: user.id }) };
    }
    if (kind === "position") {
      if (b.lat === undefined || b.lon === undefined) throw badRequest("invalid", "a position needs lat and lon");
      const line = encodePosition({
        src,
        lat: b.lat,
        lon: b.lon,
        symbol: b.symbol,
        comment: b.comment,
        messaging: true,
      });
      return { item: enqueue(gw, { kind: "position", src, line, userId: user.id }) };
    }
    if (kind === "status") {
      if (b.text === undefined) throw badRequest("invalid", "a status needs text");
      return { item: enqueue(gw, { kind: "status", src, line: encodeStatus({ src, text: b.text }), userId: user.id }) };
    }
  } catch (e) {
    if (e instanceof EncodeError) throw badRequest(e.code, e.message);
    throw e;
  }
  throw badRequest("invalid", "kind is message, position or status");
}
