/**
 * One FBB forwarding session, either side, over any ByteLink (TCP/telnet, an
 * AX.25 circuit, the ingest box's relay). The engine speaks the protocol; a
 * Mailbox decides what to offer, how to answer, and stores what arrives.
 *
 *   answering side                      calling side
 *   [SID] + prompt  ------------------>
 *                   <------------------  [SID]
 *                   <------------------  proposals FA/FB ... F> HH   (or FF)
 *   FS +-=          ------------------>
 *                   <------------------  the accepted messages (ASCII ^Z, or compressed)
 *   proposals ... F> HH (or FF) ------>  ... the turn passes after every block
 *   ... until one side has nothing after the other's FF: FQ, disconnect.
 *
 * A protocol violation ends the session with `*** <reason>` and a disconnect;
 * a message is stored whole or not at all (the Mailbox stores each one in a
 * transaction once it has arrived complete and valid).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable } from "../../lib/schema.ts";
import type { MessageType } from "../address.ts";
import { hasControlChars, normalizeNewlines, decodeWireText, encodeText, wireTitle } from "../text.ts";
import { encodeCompressed, readCompressed } from "./compressed.ts";
import { fromLatin1, LinkClosed, LinkReader, LinkTimeout, ProtocolError, type ByteLink } from "./link.ts";
import {
  blockEndMatches,
  checksumAdd,
  formatAnswers,
  formatBlockEnd,
  formatProposal,
  formatSid,
  negotiate,
  parseAnswers,
  parseProposal,
  parseSid,
  type Answer,
  type Compression,
  type Proposal,
  type Sid,
} from "./proposal.ts";

/** A message we offer. `text` is the routing lines and body, LF line ends. */
export interface OutgoingMessage {
  bid: string;
  type: MessageType;
  from: string;
  /** the @ field of the proposal */
  at: string;
  to: string;
  subject: string;
  text: string;
}

/** A message that arrived whole. */
export interface IncomingMessage extends OutgoingMessage {
  compressed: boolean;
}

export type DeliverResult = { ok: true; id?: number } | { ok: false; reason: string };

/** What became of a message offered to a partner. */
export const SENT_OUTCOME = t.Union([t.Literal("sent"), t.Literal("rejected"), t.Literal("refused"), t.Literal("error"), t.Literal("deferred")], {
  description: "sent; rejected (the partner has it); refused (it does not take it); error; deferred (offered again later)",
});
export type SentOutcome = Static<typeof SENT_OUTCOME>;

export interface Mailbox {
  /** Up to `max` messages to offer next, skipping the BIDs in `exclude`. */
  outgoing(exclude: ReadonlySet<string>, max: number): OutgoingMessage[];
  /** Our answer to one proposal (accept, reject = have it, defer, refuse, error). */
  answer(p: Proposal): Answer;
  /** Stores one complete incoming message (all or nothing); may wait for the store (its write gate). */
  deliver(m: IncomingMessage): DeliverResult | Promise<DeliverResult>;
  /** What became of a message we offered. */
  sent(bid: string, outcome: SentOutcome): void;
}

export interface SessionOptions {
  role: "caller" | "answerer";
  /** our BBS callsign */
  call: string;
  /** software version for our SID */
  version: string;
  /** offer B1 compression */
  compress: boolean;
  /** largest message accepted, bytes */
  maxMessageBytes: number;
  /** how long to wait for the other side at any point */
  idleTimeoutMs: number;
  /** the whole session may not last longer */
  sessionTimeoutMs: number;
  /** caller: the password to give at a telnet `Password :` prompt */
  password?: string | null;
  /** most bytes of messages in one proposal block (at least one message is offered) */
  blockBytes?: number;
  /** every protocol line in and out, for logs and tests */
  trace?: (dir: "<" | ">", line: string) => void;
}

/** How a forwarding session went: what it received and what it sent. */
export const SESSION_REPORT = closed({
  ok: t.Boolean({ description: "the session ran to its end" }),
  error: nullable(t.String(), "why it ended early"),
  partnerSid: nullable(t.String(), "the partner's SID, e.g. [FBB-7.00-AB1FHM$]"),
  compression: nullable(t.Union([t.Literal("none"), t.Literal("b0"), t.Literal("b1")]), "what both SIDs allowed"),
  received: t.Array(
    closed({
      bid: t.String(),
      result: t.Union([t.Literal("stored"), t.Literal("rejected"), t.Literal("refused"), t.Literal("deferred"), t.Literal("error")]),
      reason: t.Optional(t.String()),
    }),
    { description: "each message the partner proposed" },
  ),
  sent: t.Array(closed({ bid: t.String(), outcome: SENT_OUTCOME }), { description: "each message we offered" }),
});
export type SessionReport = Static<typeof SESSION_REPORT>;

const SUB = 0x1a;
const MAX_PROPOSALS = 5;

export async function runSession(
  link: ByteLink,
  mailbox: Mailbox,
  opts: SessionOptions,
  reader = new LinkReader(link, opts.idleTimeoutMs),
): Promise<SessionReport> {
  const report: SessionReport = { ok: false, error: null, partnerSid: null, compression: null, received: [], sent: [] };
  const deadline = Date.now() + opts.sessionTimeoutMs;
  const trace = opts.trace ?? (() => {});
  const send = async (lines: string[], secret = false) => {
    for (const l of lines) trace(">", secret ? "(password)" : l);
    await link.write(fromLatin1(lines.map((l) => l + "\r").join("")));
  };
  const checkDeadline = () => {
    if (Date.now() > deadline) throw new ProtocolError(`the session took longer than ${Math.round(opts.sessionTimeoutMs / 1000)} s`);
  };
  const readLine = async (max = 512) => {
    checkDeadline();
    const line = await reader.readLine(max);
    trace("<", line);
    return line;
  };

  const ourSid = parseSid(formatSid(opts.version, opts.compress))!;
  /** messages sent in our last block, confirmed when the partner's next command arrives */
  let unconfirmed: string[] = [];
  const confirm = () => {
    for (const bid of unconfirmed) {
      mailbox.sent(bid, "sent");
      report.sent.push({ bid, outcome: "sent" });
    }
    unconfirmed = [];
  };

  try {
    let theirs: Sid;
    if (opts.role === "answerer") {
      await send([ourSid.raw, `${opts.call} BBS>`]);
      theirs = await awaitSid(readLine);
    } else {
      theirs = await callerHandshake(reader, opts, trace, send, checkDeadline);
      await send([ourSid.raw]);
    }
    report.partnerSid = theirs.raw;
    if (!theirs.fbb) throw new ProtocolError("this BBS forwards with the FBB protocol only (no F in your SID)");
    const compression = negotiate(ourSid, theirs);
    report.compression = compression;

    const proposed = new Set<string>();
    let myTurn = opts.role === "caller";
    let theyHaveNothing = false;
    for (;;) {
      checkDeadline();
      if (myTurn) {
        const batch = pickBlock(mailbox.outgoing(proposed, MAX_PROPOSALS), opts.blockBytes ?? 10_240);
        if (batch.length === 0) {
          if (theyHaveNothing) {
            await send(["FQ"]);
            confirm();
            report.ok = true;
            return report;
          }
          await send(["FF"]);
          myTurn = false;
          continue;
        }
        const items = batch.map((m) => {
          const bytes = encodeText(toWire(m.text, compression === "none" ? "\r" : "\r\n"));
          const proposal: Proposal = {
            kind: compression === "none" ? "FB" : "FA",
            type: m.type,
            from: m.from,
            at: m.at,
            to: m.to,
            bid: m.bid,
            size: bytes.length,
          };
          return { m, bytes, line: formatProposal(proposal) };
        });
        let sum = 0;
        for (const it of items) {
          proposed.add(it.m.bid);
          sum = checksumAdd(sum, it.line);
        }
        await send([...items.map((it) => it.line), formatBlockEnd(sum)]);
        const fs = await readCommand(readLine);
        const answers = parseAnswers(fs, items.length);
        if (!answers) throw new ProtocolError(`expected an answer to ${items.length} proposal(s), got "${fs}"`);
        for (let i = 0; i < items.length; i++) {
          const { m, bytes } = items[i]!;
          const a = answers[i]!.answer;
          if (a === "accept") {
            if (compression === "none") {
              await send([wireTitle(m.subject)]);
              await link.write(bytes);
              await link.write(Uint8Array.of(SUB, 13));
            } else {
              await link.write(encodeCompressed(wireTitle(m.subject), bytes, compression));
            }
            trace(">", `(message ${m.bid}, ${bytes.length} bytes${compression === "none" ? "" : ", compressed"})`);
            unconfirmed.push(m.bid);
          } else {
            // A resume request (!offset) is treated as "later": we never send half a message.
            const outcome: SentOutcome = a === "reject" ? "rejected" : a === "refuse" ? "refused" : a === "error" ? "error" : "deferred";
            mailbox.sent(m.bid, outcome);
            report.sent.push({ bid: m.bid, outcome });
          }
        }
        myTurn = false;
        theyHaveNothing = false;
        continue;
      }

      // Their turn: proposals, FF or FQ.
      const line = await readCommand(readLine);
      if (line === "FF") {
        confirm();
        theyHaveNothing = true;
        myTurn = true;
        continue;
      }
      if (line === "FQ") {
        confirm();
        report.ok = true;
        return report;
      }
      if (!/^F[AB]\s/.test(line)) throw new ProtocolError(`expected a proposal, FF or FQ, got "${line.slice(0, 60)}"`);
      confirm();
      const block = await readProposalBlock(line, readLine);
      const answers: Answer[] = [];
      const inBlock = new Set<string>();
      for (const p of block) {
        let a: Answer;
        if (!p.ok) a = "error";
        else if (inBlock.has(p.proposal.bid)) a = "defer";
        else if (compression === "none" && p.proposal.kind === "FA") a = "error";
        else if (compression !== "none" && p.proposal.kind === "FB")
          a = "refuse"; // a binary file, not a message
        else if (p.proposal.size > opts.maxMessageBytes) a = "refuse";
        else a = mailbox.answer(p.proposal);
        if (p.ok) inBlock.add(p.proposal.bid);
        answers.push(a);
        if (a !== "accept") {
          const result = a === "reject" ? "rejected" : a === "defer" || a === "hold" ? "deferred" : a === "refuse" ? "refused" : "error";
          report.received.push({ bid: p.ok ? p.proposal.bid : (p.bid ?? "?"), result, ...(p.ok ? {} : { reason: p.message }) });
        }
      }
      await send([formatAnswers(answers, compression === "b1")]);
      for (let i = 0; i < block.length; i++) {
        const p = block[i]!;
        if (answers[i] !== "accept" || !p.ok) continue;
        const m = await receiveMessage(reader, p.proposal, compression, opts.maxMessageBytes, trace, checkDeadline);
        const r = await mailbox.deliver(m);
        report.received.push(r.ok ? { bid: m.bid, result: "stored" } : { bid: m.bid, result: "refused", reason: r.reason });
      }
      theyHaveNothing = false;
      myTurn = true;
    }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    report.error = message;
    if (e instanceof ProtocolError) {
      try {
        await send([`*** ${message}`]);
      } catch {
        // the link may be gone already
      }
    } else if (!(e instanceof LinkClosed || e instanceof LinkTimeout || e instanceof RemoteError)) {
      throw e;
    }
    return report;
  } finally {
    link.close();
  }
}

/** The partner reported an error (`*** ...`) and will disconnect. */
class RemoteError extends Error {
  override name = "RemoteError";
}

/** Next protocol line: skips blank and comment (;) lines; `***` is the partner giving up. */
async function readCommand(readLine: (max?: number) => Promise<string>): Promise<string> {
  for (let skipped = 0; skipped < 50; skipped++) {
    const line = (await readLine()).trim();
    if (line === "" || line.startsWith(";")) continue;
    if (line.startsWith("***")) throw new RemoteError(`the partner said: ${line}`);
    return line;
  }
  throw new ProtocolError("too many lines without a protocol command");
}

async function awaitSid(readLine: (max?: number) => Promise<string>): Promise<Sid> {
  for (let i = 0; i < 20; i++) {
    const line = (await readLine()).trim();
    if (line.startsWith("***")) throw new RemoteError(`the partner said: ${line}`);
    const sid = parseSid(line);
    if (sid) return sid;
  }
  throw new ProtocolError("no SID received");
}

/**
 * Calling side: answers telnet `Callsign :` / `Password :` prompts, then waits
 * for the partner's SID and its prompt (a line ending in `>`).
 */
async function callerHandshake(
  reader: LinkReader,
  opts: SessionOptions,
  trace: (dir: "<" | ">", line: string) => void,
  send: (lines: string[], secret?: boolean) => Promise<void>,
  checkDeadline: () => void,
): Promise<Sid> {
  let sid: Sid | null = null;
  for (let i = 0; i < 100; i++) {
    checkDeadline();
    const piece = await reader.readGreeting(opts.idleTimeoutMs, 700, 1024);
    if (piece === null) throw new LinkTimeout(`no greeting from the partner within ${Math.round(opts.idleTimeoutMs / 1000)} s`);
    const text = piece.replace(/[\x00-\x08\xff\xfb-\xfe]/g, "").trim();
    trace("<", text);
    if (/(callsign|login)\s*:?\s*$/i.test(text)) await send([opts.call]);
    else if (/password\s*:?\s*$/i.test(text)) await send([opts.password ?? ""], true);
    else if (/\(y\/n\)\s*\??\s*$/i.test(text)) throw new ProtocolError("the partner does not know us as a BBS (it offers a read-only login)");
    else if (text.startsWith("***")) throw new RemoteError(`the partner said: ${text}`);
    else {
      for (const l of text.split(/\r?\n|\r/)) sid ??= parseSid(l);
      if (sid && text.endsWith(">")) return sid;
    }
  }
  throw new ProtocolError("no SID and prompt from the partner");
}

type ParsedProposal = ReturnType<typeof parseProposal>;

async function readProposalBlock(first: string, readLine: (max?: number) => Promise<string>): Promise<ParsedProposal[]> {
  const out: ParsedProposal[] = [];
  let sum = 0;
  let line = first;
  for (;;) {
    if (/^F[AB]\s/.test(line)) {
      if (out.length >= MAX_PROPOSALS * 2) throw new ProtocolError("too many proposals in one block");
      sum = checksumAdd(sum, line);
      out.push(parseProposal(line));
    } else if (line.startsWith("F>")) {
      if (!blockEndMatches(line, sum)) throw new ProtocolError("checksum error in the proposal block");
      if (out.length === 0) throw new ProtocolError("an empty proposal block");
      return out;
    } else if (line.trim() !== "" && !line.startsWith(";")) {
      throw new ProtocolError(`expected a proposal or F>, got "${line.slice(0, 60)}"`);
    }
    line = (await readLine()).trim();
  }
}

async function receiveMessage(
  reader: LinkReader,
  p: Proposal,
  compression: Compression,
  maxBytes: number,
  trace: (dir: "<" | ">", line: string) => void,
  checkDeadline: () => void,
): Promise<IncomingMessage> {
  checkDeadline();
  let subject: string;
  let text: string;
  if (compression === "none") {
    subject = decodeWireText(fromLatin1(await reader.readLine(256))).trim();
    const raw = await reader.readUntil(SUB, maxBytes + 1024);
    await skipRestOfLine(reader);
    text = decodeWireText(raw);
  } else {
    const m = await readCompressed(reader, compression, maxBytes + 1024);
    subject = decodeWireText(new Uint8Array([...m.title].map((c) => c.charCodeAt(0) & 0xff))).trim();
    text = decodeWireText(m.text);
  }
  text = normalizeNewlines(text);
  trace("<", `(message ${p.bid}, ${text.length} characters${compression === "none" ? "" : ", compressed"})`);
  if (encodeText(text).length > maxBytes) throw new ProtocolError(`message ${p.bid} is larger than ${maxBytes} bytes`);
  if (subject === "") subject = "(no subject)";
  if (hasControlChars(subject)) throw new ProtocolError(`message ${p.bid} has control characters in its title`);
  return { bid: p.bid, type: p.type, from: p.from, at: p.at, to: p.to, subject, text, compressed: compression !== "none" };
}

/** After ^Z: the rest of that line (normally just CR or CRLF). */
async function skipRestOfLine(reader: LinkReader): Promise<void> {
  const rest = await reader.readLine(256);
  if (rest.trim() !== "") throw new ProtocolError("text after the end of a message (^Z) on the same line");
}

/** Text with LF line ends to the wire's line ends. */
function toWire(text: string, eol: string): string {
  const t = text.endsWith("\n") ? text : text + "\n";
  return eol === "\n" ? t : t.replace(/\n/g, eol);
}

function pickBlock(list: OutgoingMessage[], maxBytes: number): OutgoingMessage[] {
  const out: OutgoingMessage[] = [];
  let total = 0;
  for (const m of list) {
    const n = m.text.length;
    if (out.length > 0 && total + n > maxBytes) break;
    out.push(m);
    total += n;
  }
  return out;
}
