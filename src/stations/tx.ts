/**
 * POST /api/tx/aprs: a signed-in user with a verified callsign transmits
 * through the outbox, as their active callsign. Messages get an id and are
 * retried until acked; positions and status go out once.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import type { SignedInUser } from "../accounts/caller.ts";
import { encodePosition, encodeStatus, EncodeError } from "../lib/aprs/index.ts";
import { badRequest } from "../lib/errors.ts";
import { closed } from "../lib/schema.ts";
import { enqueue, enqueueMessage, OUTBOX_ITEM } from "./outbox.ts";

/** What a transmit request answers: the line queued in the outbox. */
export const TX_QUEUED = closed({ item: OUTBOX_ITEM });

/** What a transmit request sends; the shape is checked by the schema, the fields a kind needs here. */
export const TX_BODY = closed({
  kind: t.Optional(t.Union([t.Literal("message"), t.Literal("position"), t.Literal("status")], { description: "message (default), position or status" })),
  addressee: t.Optional(t.String({ description: "a message's addressee" })),
  text: t.Optional(t.String({ description: "a message's or status's text" })),
  lat: t.Optional(t.Number({ description: "a position's latitude" })),
  lon: t.Optional(t.Number({ description: "a position's longitude" })),
  symbol: t.Optional(t.String({ description: "a position's symbol: 2 characters" })),
  comment: t.Optional(t.String({ description: "a position's comment" })),
});

export function transmit(gw: Core, user: SignedInUser, b: Static<typeof TX_BODY>): Static<typeof TX_QUEUED> {
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
