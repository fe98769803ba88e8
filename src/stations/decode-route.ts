/**
 * POST /api/decode: one raw TNC2 line, as a text/plain body (raw bytes: Mic-E
 * carries control bytes and not every packet is UTF-8) or JSON {"line": "..."}.
 */
import { t } from "elysia";
import { decode, type AprsPacket } from "../lib/aprs/index.ts";
import { badRequest, unprocessable } from "../lib/errors.ts";
import { check, closed } from "../lib/schema.ts";
import { bodyText } from "../lib/text.ts";

/** The JSON form of a decode request. */
export const DECODE_LINE = closed({ line: t.String({ description: "one TNC2 line" }) }, { description: 'JSON {"line": "..."}' });

/**
 * The line a decode request carries, or a 400. The route takes any body (text
 * arrives as raw bytes): a JSON body is checked here against DECODE_LINE, so a
 * failure names its field (a union of the two kinds at the route could only say
 * "body").
 */
export function lineFromBody(body: unknown): string {
  let line: string;
  if (body instanceof Uint8Array || typeof body === "string") line = bodyText(body);
  else line = check(DECODE_LINE, body, "body").line;
  line = line.replace(/\r?\n$/, "");
  if (/[\r\n]/.test(line)) throw badRequest("bad_body", "send one line at a time; /ingest takes many");
  return line;
}

export function decodeLine(line: string): AprsPacket {
  const r = decode(line);
  if (!r.ok) throw unprocessable(r.error.code, r.error.message);
  return r.packet;
}
