/** Helpers every route file shares to read its parameters and bodies. */
import { t } from "elysia";
import { AppError, badRequest } from "../lib/errors.ts";
import { mediaType } from "./body.ts";
import { CBOR_TYPE, MAX_PAGE_BYTES } from "../lib/fed/page.ts";
import { MAX_CLUSTER_CELLS } from "../stations/registry.ts";

/** An optional whole-number query parameter. */
function intParam(v: string | undefined, name: string): number | undefined {
  if (v === undefined || v === "") return undefined;
  if (!/^-?\d{1,15}$/.test(v)) throw badRequest("invalid", `${name} must be a whole number`);
  return Number(v);
}

/** A CBOR request body: the right content type and bytes, or 415/400. */
export function cborBody(request: Request, body: unknown): Uint8Array {
  if (mediaType(request.headers.get("content-type")) !== CBOR_TYPE) throw new AppError(415, "unsupported_media_type", `send the page as ${CBOR_TYPE}`);
  if (!(body instanceof Uint8Array) || body.length === 0) throw badRequest("bad_body", "expected a CBOR sync page");
  return body;
}

/**
 * The options of a route that takes one CBOR sync page: capped at a page's
 * size, another content type refused (415) before the body is read or checked
 * against the schema, documented as CBOR. Read the body with `cborBody`.
 */
export const cborPageRoute = <R>(o: { body: string; summary: string; tags: string[]; responses: R }) => ({
  bodyLimit: MAX_PAGE_BYTES,
  accepts: CBOR_TYPE,
  body: t.Uint8Array({ description: o.body }),
  detail: { summary: o.summary, bodyType: CBOR_TYPE, tags: o.tags, responses: o.responses },
});

/** The `cells` of a clustered map answer: clusters along the box's longer side, 4-64. */
export function cellsParam(v: string | undefined): number | undefined {
  const n = intParam(v, "cells");
  if (n !== undefined && (n < 4 || n > MAX_CLUSTER_CELLS)) throw badRequest("invalid", `cells is 4 to ${MAX_CLUSTER_CELLS}`);
  return n;
}
