/**
 * POST /api/decode: one raw TNC2 line, as a text/plain body (raw bytes: Mic-E
 * carries control bytes and not every packet is UTF-8) or JSON {"line": "..."}.
 */
import { decode, type AprsPacket } from "../lib/aprs/index.ts";
import { badRequest, unprocessable } from "../lib/errors.ts";
import { bodyText } from "../lib/text.ts";

/** The line a decode request carries, or a 400. */
export function lineFromBody(body: unknown): string {
  let line: string;
  if (body instanceof Uint8Array || typeof body === "string") line = bodyText(body);
  else if (body && typeof body === "object" && !Array.isArray(body) && typeof (body as { line?: unknown }).line === "string")
    line = (body as { line: string }).line;
  else throw badRequest("bad_body", 'send one TNC2 line as a text/plain body, or JSON {"line": "..."}');
  line = line.replace(/\r?\n$/, "");
  if (/[\r\n]/.test(line)) throw badRequest("bad_body", "send one line at a time; /ingest takes many");
  return line;
}

export function decodeLine(line: string): AprsPacket {
  const r = decode(line);
  if (!r.ok) throw unprocessable(r.error.code, r.error.message);
  return r.packet;
}
