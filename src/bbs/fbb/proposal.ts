/**
 * The text lines of FBB forwarding: the SID, proposals (FA/FB), the end of a
 * proposal block with its checksum (F>), and the answer (FS). Pure.
 *
 *   [FBB-7.0.11-AB1FHM$]                       SID: F = FBB protocol, B/B1 = compressed
 *   FA P N0SYS N0GW N0GW 101_N0FBB 43          type from @bbs to bid size
 *   F> 07                                      two's complement of the bytes above, CRs included
 *   FS +-=                                     one answer per proposal
 */
import { checkBid, checkRoute, checkTo, isMessageType, type MessageType } from "../address.ts";

export interface Sid {
  raw: string;
  name: string;
  version: string;
  flags: string;
  /** speaks the FBB protocol (F) */
  fbb: boolean;
  /** compressed forwarding version 0 (B) */
  b0: boolean;
  /** compressed forwarding version 1 (B1) */
  b1: boolean;
  /** hierarchical addresses (H) */
  hierarchical: boolean;
  /** BIDs ($) */
  bids: boolean;
}

/** Parses `[NAME-VERSION-FLAGS]`; null when the line is not a SID. */
export function parseSid(line: string): Sid | null {
  const m = /^\[([A-Za-z0-9_]+)-(.*)-([A-Za-z0-9$]*)\]\s*$/.exec(line.trim());
  if (!m) return null;
  const flags = m[3]!.toUpperCase();
  const b1 = flags.includes("B1");
  return {
    raw: line.trim(),
    name: m[1]!,
    version: m[2]!,
    flags,
    fbb: flags.includes("F"),
    b0: flags.includes("B"),
    b1,
    hierarchical: flags.includes("H"),
    bids: flags.includes("$"),
  };
}

/** Our SID: B1 compression only when the partner is configured for it. */
export function formatSid(version: string, compressed: boolean): string {
  return `[SVC-${version.replace(/[^0-9A-Za-z.]/g, "")}-${compressed ? "B1" : ""}FHM$]`;
}

export type Compression = "none" | "b0" | "b1";

/** What both SIDs allow: B1, else B (version 0), else plain ASCII. */
export function negotiate(ours: Sid, theirs: Sid): Compression {
  if (ours.b1 && theirs.b1) return "b1";
  if (ours.b0 && theirs.b0) return "b0";
  return "none";
}

export interface Proposal {
  /** FA: compressed ASCII message; FB: uncompressed (or, when compressing, a binary file) */
  kind: "FA" | "FB";
  type: MessageType;
  from: string;
  /** the @ field: the route or flood area */
  at: string;
  to: string;
  bid: string;
  size: number;
}

export type ProposalParse = { ok: true; proposal: Proposal } | { ok: false; message: string; bid: string | null };

/** Parses one proposal line. A malformed one is refused with its BID when it has one. */
export function parseProposal(line: string): ProposalParse {
  const f = line.trim().split(/\s+/);
  const kind = f[0];
  if (kind !== "FA" && kind !== "FB") return { ok: false, message: `"${line}" is not a proposal`, bid: null };
  const bid = f.length >= 6 ? checkBid(f[5]) : null;
  const bad = (message: string): ProposalParse => ({ ok: false, message, bid: bid?.ok ? bid.value : null });
  if (f.length !== 7) return bad(`a proposal has 7 fields, "${line}" has ${f.length}`);
  const type = f[1]!.toUpperCase();
  if (!isMessageType(type)) return bad(`message type "${f[1]}" is not P, B or T`);
  const from = f[2]!.toUpperCase();
  if (!/^[A-Z0-9]{1,6}(?:-[0-9]{1,2})?$/.test(from)) return bad(`"${f[2]}" is not a sender`);
  const at = checkRoute(f[3]!);
  if (!at.ok) return bad(at.message);
  const to = checkTo(f[4]!, type);
  if (!to.ok) return bad(to.message);
  if (!bid || !bid.ok) return bad(bid ? bid.message : "the proposal has no BID");
  if (!/^\d{1,9}$/.test(f[6]!)) return bad(`size "${f[6]}" is not a number`);
  return { ok: true, proposal: { kind, type, from: from.replace(/-\d+$/, ""), at: at.value, to: to.value, bid: bid.value, size: Number(f[6]) } };
}

export function formatProposal(p: Proposal): string {
  return `${p.kind} ${p.type} ${p.from} ${p.at} ${p.to} ${p.bid} ${p.size}`;
}

/** Adds the bytes of one proposal line (and its CR) to a running sum. */
export function checksumAdd(sum: number, line: string): number {
  for (let i = 0; i < line.length; i++) sum += line.charCodeAt(i) & 0xff;
  return (sum + 13) & 0xff;
}

/** `F> HH` for a running sum. */
export function formatBlockEnd(sum: number): string {
  return `F> ${(-sum & 0xff).toString(16).toUpperCase().padStart(2, "0")}`;
}

/** Checks `F>` / `F> HH` against the sum of the proposal lines; the checksum is optional. */
export function blockEndMatches(line: string, sum: number): boolean {
  const m = /^F>\s*([0-9A-Fa-f]{1,2})?\s*$/.exec(line);
  if (!m) return false;
  if (m[1] === undefined) return true;
  return ((parseInt(m[1], 16) + sum) & 0xff) === 0;
}

export type Answer = "accept" | "reject" | "defer" | "hold" | "refuse" | "error" | "resume";

export interface AnswerItem {
  answer: Answer;
  /** byte offset for a resume request (`!n` / `An`) */
  offset?: number;
}

/** Parses `FS ...` into one answer per proposal; null when malformed. */
export function parseAnswers(line: string, count: number): AnswerItem[] | null {
  const m = /^FS\s+(\S+)\s*$/.exec(line);
  if (!m) return null;
  const s = m[1]!;
  const out: AnswerItem[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!.toUpperCase();
    switch (c) {
      case "+":
      case "Y":
        out.push({ answer: "accept" });
        break;
      case "-":
      case "N":
        out.push({ answer: "reject" });
        break;
      case "=":
      case "L":
        out.push({ answer: "defer" });
        break;
      case "H":
        out.push({ answer: "hold" });
        break;
      case "R":
        out.push({ answer: "refuse" });
        break;
      case "E":
        out.push({ answer: "error" });
        break;
      case "!":
      case "A": {
        const d = /^\d+/.exec(s.slice(i + 1));
        if (!d) return null;
        out.push({ answer: "resume", offset: Number(d[0]) });
        i += d[0].length;
        break;
      }
      default:
        return null;
    }
  }
  return out.length === count ? out : null;
}

/** `FS ...` for our answers: + - = always; R and E only to a partner that speaks B1. */
export function formatAnswers(answers: Answer[], extended: boolean): string {
  const ch = (a: Answer) => {
    switch (a) {
      case "accept":
        return "+";
      case "defer":
        return "=";
      case "refuse":
        return extended ? "R" : "-";
      case "error":
        return extended ? "E" : "-";
      default:
        return "-";
    }
  };
  return "FS " + answers.map(ch).join("");
}
