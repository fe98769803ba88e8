/**
 * The BBS's forwarding path, against references in the same run:
 *  1. LZHUF (our codec, FBB's B/B1 compression) encode and decode MB/s and
 *     the compressed size, beside fflate's deflate (level 6) on the same text;
 *  2. a whole FBB session between two engines over an in-memory link, 200
 *     messages of ~2 KB each way: messages/s, and the bytes on the wire with
 *     B1 against ASCII (what a 1200-baud circuit would carry, in minutes).
 * Targets: LZHUF decode well above radio speeds (> 5 MB/s); B1 wire bytes
 * < 60 % of ASCII for ordinary mail.
 */
import { deflateSync, inflateSync } from "fflate";
import { lzhufDecode, lzhufEncode } from "../src/bbs/fbb/lzhuf.ts";
import { linkPair, type ByteLink } from "../src/bbs/fbb/link.ts";
import { runSession, type Mailbox, type OutgoingMessage } from "../src/bbs/fbb/session.ts";
import { meanMs, median, table } from "./lib/stats.ts";

const WORDS =
  "the net meets tonight on the repeater at twenty hundred local all stations welcome please check in with your call and location antenna tips balun dipole coax loss weather report rain expected tomorrow contest results field day club meeting agenda minutes".split(
    " ",
  );

/** Mail-like text: lines of words, a few numbers, repeated phrases as real bulletins have. */
function text(bytes: number, seed: number): Uint8Array {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff), s);
  let out = "";
  while (out.length < bytes) {
    let line = "";
    while (line.length < 60) line += WORDS[rnd() % WORDS.length] + (rnd() % 9 === 0 ? ` ${rnd() % 1000}` : "") + " ";
    out += line.trimEnd() + "\r\n";
  }
  return new TextEncoder().encode(out.slice(0, bytes));
}

const time = meanMs;

function codecBench() {
  const rows: Array<Record<string, string | number>> = [];
  for (const size of [2048, 65536]) {
    const input = text(size, size);
    const z = lzhufEncode(input);
    const d = deflateSync(input, { level: 6 });
    const mb = size / 1e6;
    const enc = median([0, 1, 2].map(() => time(() => lzhufEncode(input))));
    const dec = median([0, 1, 2].map(() => time(() => lzhufDecode(z, size))));
    const denc = median([0, 1, 2].map(() => time(() => deflateSync(input, { level: 6 }))));
    const ddec = median([0, 1, 2].map(() => time(() => inflateSync(d))));
    rows.push({
      codec: "lzhuf (ours)",
      input: size,
      "compressed %": ((100 * z.length) / size).toFixed(1),
      "encode MB/s": (mb / (enc / 1000)).toFixed(1),
      "decode MB/s": (mb / (dec / 1000)).toFixed(1),
    });
    rows.push({
      codec: "deflate-6 (fflate, reference)",
      input: size,
      "compressed %": ((100 * d.length) / size).toFixed(1),
      "encode MB/s": (mb / (denc / 1000)).toFixed(1),
      "decode MB/s": (mb / (ddec / 1000)).toFixed(1),
    });
  }
  console.log("LZHUF against deflate on mail-like text");
  console.log(table(rows));
}

/** A mailbox with `n` messages to send and a sink for what arrives. */
function mailbox(prefix: string, n: number): Mailbox & { got: number } {
  const outgoing: OutgoingMessage[] = Array.from({ length: n }, (_, i) => ({
    bid: `${i}_${prefix}`,
    type: "P",
    from: prefix,
    at: "N0BBS",
    to: "N0ABC",
    subject: `Message ${i} from ${prefix}`,
    text: new TextDecoder().decode(text(2000, i + prefix.length * 7919)).replace(/\r\n/g, "\n"),
  }));
  const done = new Set<string>();
  const box = {
    got: 0,
    outgoing: (exclude: ReadonlySet<string>, max: number) => outgoing.filter((m) => !done.has(m.bid) && !exclude.has(m.bid)).slice(0, max),
    answer: () => "accept" as const,
    deliver: () => {
      box.got++;
      return { ok: true as const };
    },
    sent: (bid: string) => void done.add(bid),
  };
  return box;
}

/** Counts the bytes one side writes. */
function counting(link: ByteLink): ByteLink & { written: number } {
  const c = {
    written: 0,
    description: link.description,
    read: () => link.read(),
    write: (b: Uint8Array) => {
      c.written += b.length;
      return link.write(b);
    },
    close: () => link.close(),
  };
  return c;
}

async function session(compress: boolean, n: number) {
  const [x, y] = linkPair();
  const a = counting(x);
  const b = counting(y);
  const ma = mailbox("N0AAA", n);
  const mb = mailbox("N0BBB", n);
  const opts = { call: "N0AAA", version: "0.1", compress, maxMessageBytes: 65536, idleTimeoutMs: 30_000, sessionTimeoutMs: 600_000 };
  const t = performance.now();
  const [ra, rb] = await Promise.all([runSession(a, ma, { ...opts, role: "caller" }), runSession(b, mb, { ...opts, call: "N0BBB", role: "answerer" })]);
  const ms = performance.now() - t;
  if (!ra.ok || !rb.ok || ma.got !== n || mb.got !== n) throw new Error(`session failed: ${ra.error ?? rb.error}`);
  return { ms, wire: a.written + b.written };
}

async function sessionBench() {
  const n = 200;
  const rows: Array<Record<string, string | number>> = [];
  const ascii = await session(false, n);
  const b1 = await session(true, n);
  const minutes = (bytes: number) => ((bytes * 8) / 1200 / 60).toFixed(0);
  rows.push({
    mode: "ASCII (reference)",
    messages: 2 * n,
    "messages/s": Math.round((2 * n) / (ascii.ms / 1000)),
    "wire KB": Math.round(ascii.wire / 1024),
    "vs ASCII": "1.00",
    "min at 1200 bd": minutes(ascii.wire),
  });
  rows.push({
    mode: "B1 compressed",
    messages: 2 * n,
    "messages/s": Math.round((2 * n) / (b1.ms / 1000)),
    "wire KB": Math.round(b1.wire / 1024),
    "vs ASCII": (b1.wire / ascii.wire).toFixed(2),
    "min at 1200 bd": minutes(b1.wire),
  });
  console.log("\nOne FBB session, 200 messages of ~2 KB each way, two engines in memory");
  console.log(table(rows));
}

export async function run() {
  console.log("== bbs");
  codecBench();
  await sessionBench();
}

if (import.meta.main) await run();
