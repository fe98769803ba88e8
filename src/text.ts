/** Bytes as text the way APRS and catalogs need it: UTF-8 when valid, else Latin-1, byte for byte. */
import { badRequest } from "./errors.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });
const latin1 = new TextDecoder("latin1");

/** UTF-8 when the bytes are valid UTF-8, else Latin-1 (every byte one character). */
export function decodeText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return latin1.decode(bytes);
  }
}

/** A request body (raw bytes or a string) as text; any other body is a 400. */
export function bodyText(body: unknown): string {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return decodeText(body);
  throw badRequest("bad_body", "expected a text body");
}
