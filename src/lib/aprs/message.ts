/**
 * Messages `:ADDRESSEE:text{id`, acks `ackid`, rejects `rejid`, bulletins
 * (BLN0-9), announcements (BLNA-Z), directed queries (`?APRSP`) and the
 * telemetry definition messages addressed to the station they describe.
 */
import type { AprsPacket } from "./types.ts";
import { cleanText, fail } from "./util.ts";
import { parseTelemetryDefinitions } from "./telemetry.ts";

export function parseMessage(p: AprsPacket, s: string, i: number): void {
  // s[i] is ':'
  if (s.length < i + 11 || s.charCodeAt(i + 10) !== 58) fail("bad_message", "a message is :ADDRESSEE: with the addressee padded to 9 characters");
  const addressee = s.slice(i + 1, i + 10).trimEnd();
  if (addressee.length === 0) fail("bad_message", "the message has no addressee");
  p.addressee = addressee;
  let text = s.slice(i + 11);
  const head = text.slice(0, 5);
  if (head === "PARM." || head === "UNIT." || head === "EQNS." || head === "BITS.") {
    p.type = "telemetry-definitions";
    p.telemetryDefinitions = parseTelemetryDefinitions(head, text.slice(5));
    return;
  }
  const lower3 = text.slice(0, 3);
  if ((lower3 === "ack" || lower3 === "rej") && /^[A-Za-z0-9]{1,5}(\}[A-Za-z0-9]{0,5})?\s*$/.test(text.slice(3))) {
    p.type = lower3 === "ack" ? "ack" : "rej";
    p.msgId = text.slice(3).trim().split("}")[0]!;
    return;
  }
  // Message number: {id or reply-ack {id}ack, at the end.
  const brace = text.lastIndexOf("{");
  if (brace >= 0) {
    const m = /^\{([A-Za-z0-9]{1,5})(?:\}([A-Za-z0-9]{0,5}))?\s*$/.exec(text.slice(brace));
    if (m) {
      p.msgId = m[1]!;
      if (m[2]) p.replyAck = m[2];
      text = text.slice(0, brace);
    }
  }
  const t = cleanText(text) ?? "";
  p.text = t;
  if (addressee.startsWith("BLN") && addressee.length >= 4) {
    const c = addressee.charCodeAt(3);
    p.type = addressee.length === 4 && c >= 65 && c <= 90 ? "announcement" : "bulletin";
  } else if (addressee.startsWith("NWS-") || addressee.startsWith("NWS_")) {
    p.type = "bulletin";
  } else if (t.startsWith("?") && p.msgId === undefined) {
    p.type = "query";
  } else {
    p.type = "message";
  }
}
