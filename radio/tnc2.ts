/**
 * TNC2 monitor text for APRS UI frames: `SRC>DST,DIGI1,DIGI2*:info`.
 * A `*` follows the last digipeater that has repeated the frame; every
 * digipeater before it has repeated it too. The info field is bytes (APRS is
 * not always UTF-8), so text travels as bytes here and converts both ways
 * byte for byte. Only UI frames with PID 0xF0 and H bits set on a prefix of
 * the path convert. The command/response bits and the reserved address bits
 * mean nothing to APRS and have no TNC2 spelling: an AX.25 v1 frame (both C
 * bits clear, or both set as Direwolf 1.6 beacons), a response, reserved bits
 * other than 11 convert like a v2 command, as Direwolf, aprx and APRS-IS take
 * them; `{ exact: true }` refuses them (text that must give the same frame
 * back).
 */
import { formatAddress, parseAddress } from "./address.ts";
import { fail, ok, type Result } from "./errors.ts";
import { MAX_DIGIS, PID_NONE, type Ax25Frame, type Digipeater } from "./frame.ts";

const enc = new TextEncoder();
/** Longest possible header: two addresses and 8 digipeaters of `CALLSS-15*`. */
const MAX_HEADER = 9 + 1 + 9 + MAX_DIGIS * 11;

export interface Tnc2Options {
  /** Refuse frames whose C or reserved bits the text cannot give back (not a v2 command, reserved bits not 11). */
  exact?: boolean;
}

/** The frame as TNC2 text bytes. Frames TNC2 cannot express are refused (with `exact`, also those it cannot express exactly). */
export function formatTnc2(f: Ax25Frame, opts: Tnc2Options = {}): Result<Uint8Array> {
  if (f.type !== "UI" || (f.pid ?? PID_NONE) !== PID_NONE)
    return fail("tnc2-not-ui", `only UI frames with PID 0xF0 have a TNC2 form (this is ${f.type}${f.pid !== undefined ? ` PID 0x${f.pid.toString(16)}` : ""})`);
  if (opts.exact) {
    if (f.cr !== "command") return fail("tnc2-not-ui", `a ${f.cr} UI frame has no exact TNC2 form`);
    const all = [f.dest, f.src, ...f.path];
    if (all.some((a) => a.rr !== undefined && a.rr !== 3)) return fail("tnc2-not-ui", "reserved address bits have no exact TNC2 form");
  }
  const lastRepeated = f.path.findLastIndex((d) => d.repeated);
  if (f.path.some((d, i) => !d.repeated && i < lastRepeated)) return fail("tnc2-not-ui", "a path with a gap in its repeated bits has no TNC2 form");
  let head = `${formatAddress(f.src)}>${formatAddress(f.dest)}`;
  f.path.forEach((d, i) => (head += `,${formatAddress(d)}${i === lastRepeated ? "*" : ""}`));
  const h = enc.encode(head + ":");
  const out = new Uint8Array(h.length + f.info.length);
  out.set(h);
  out.set(f.info, h.length);
  return ok(out);
}

/**
 * Parses TNC2 text (bytes, or a string that is encoded as UTF-8) into a UI
 * frame. Everything after the first `:` is the info field, byte for byte.
 */
export function parseTnc2(line: Uint8Array | string): Result<Ax25Frame> {
  const bytes = typeof line === "string" ? enc.encode(line) : line;
  const colon = bytes.indexOf(0x3a);
  if (colon < 0) return fail("tnc2-syntax", "no ':' between header and info");
  if (colon > MAX_HEADER) return fail("tnc2-syntax", `header longer than ${MAX_HEADER} characters`);
  // the header is ASCII by construction; anything else fails the address checks below
  const head = String.fromCharCode(...bytes.subarray(0, colon));
  const gt = head.indexOf(">");
  if (gt < 0) return fail("tnc2-syntax", "no '>' after the source");
  const src = parseAddress(head.slice(0, gt));
  if (!src.ok) return src;
  const parts = head.slice(gt + 1).split(",");
  const dest = parseAddress(parts[0]!);
  if (!dest.ok) return dest;
  const hops = parts.slice(1);
  if (hops.length > MAX_DIGIS) return fail("tnc2-syntax", `${hops.length} digipeaters; AX.25 allows ${MAX_DIGIS}`);
  const lastStar = hops.findLastIndex((h) => h.endsWith("*"));
  const path: Digipeater[] = [];
  for (const [i, hop] of hops.entries()) {
    const star = hop.endsWith("*");
    if (star && i !== lastStar) return fail("tnc2-syntax", `only the last repeated digipeater carries a '*' (${hop})`);
    const a = parseAddress(star ? hop.slice(0, -1) : hop);
    if (!a.ok) return a;
    path.push({ ...a.value, repeated: i <= lastStar });
  }
  return ok({
    dest: dest.value,
    src: src.value,
    path,
    cr: "command",
    type: "UI",
    pf: false,
    pid: PID_NONE,
    info: bytes.slice(colon + 1),
  });
}
