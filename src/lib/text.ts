/** Bytes as text the way request bodies and catalog files need it: UTF-8 when valid, else Windows-1252. */
import { badRequest } from "./errors.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });
const latin1 = new TextDecoder("latin1");

/**
 * UTF-8 when the bytes are valid UTF-8, else Windows-1252 (WHATWG's "latin1":
 * every byte one character, 0x80-0x9F the euro sign, quotes and dashes that
 * files and tools mean by them). A BBS message forwarded on keeps its bytes
 * instead: src/bbs/text.ts decodeWireText.
 */
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
