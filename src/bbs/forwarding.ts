/**
 * Forwarding sessions with partner BBSes: the Mailbox that binds the FBB
 * engine to the store, the TCP listener partners call, our calls out (over
 * TCP, or over the radio: ax25.ts), and the scheduler that offers each
 * partner what its rules route to it within its time-bands. One session per
 * partner at a time.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { closed, unixMs } from "../lib/schema.ts";
import { buildInfo } from "../lib/version.ts";
import { bbsIdentity } from "./identity.ts";
import { bidKnown, storeMessage, type Row as MessageRow } from "./messages.ts";
import { inTimeBands, partnerByCall, partnerRow, type PartnerRow } from "./partners.ts";
import { splitRouteLines, transferText } from "./text.ts";
import { LinkReader, type ByteLink } from "./fbb/link.ts";
import { runSession, SESSION_REPORT, type Mailbox, type OutgoingMessage, type SentOutcome, type SessionReport } from "./fbb/session.ts";
import { connectTcp, listenTcp, type TcpListener } from "./fbb/tcp.ts";
import { ax25Target, ax25Unavailable, connectAx25 } from "./ax25.ts";
import type { Answer } from "./fbb/proposal.ts";

/** How long we wait for the partner at any point, and for a whole session. */
const IDLE_TIMEOUT_MS = 120_000;
const SESSION_TIMEOUT_MS = 15 * 60_000;

interface ActiveSession {
  partner: string;
  role: "caller" | "answerer";
  via: string;
  startedAt: number;
  link: ByteLink;
}

export const SESSION_ROLE = t.Union([t.Literal("caller"), t.Literal("answerer")], { description: "caller: we called the partner; answerer: it called us" });

/** A finished session with a partner, as the sysop page lists it. */
export const SESSION_RECORD = closed({
  ...SESSION_REPORT.properties,
  at: unixMs("when it ended, unix ms"),
  role: SESSION_ROLE,
  via: t.String({ description: "the link it ran on, e.g. tcp 192.0.2.1:6300" }),
});
export type SessionRecord = Static<typeof SESSION_RECORD>;

export interface Forwarding {
  listener: TcpListener | null;
  active: Map<number, ActiveSession>;
  /** the latest session reports per partner id (newest last), for the sysop page */
  reports: Map<number, SessionRecord[]>;
}

declare module "../core/services.ts" {
  interface Services {
    /** FBB forwarding: the listener, the sessions running and the latest reports */
    forwarding: Forwarding;
  }
}

/** A new gateway's forwarding (src/hosts/services.ts). */
export const newForwarding = (): Forwarding => ({ listener: null, active: new Map(), reports: new Map() });

export const runtime = (gw: Core): Forwarding => gw.services.forwarding;

/** The store seen by one session with one partner. */
export function partnerMailbox(gw: Core, partner: PartnerRow, via: "fbb" | "box"): Mailbox {
  return {
    outgoing(exclude, max) {
      const rows = gw.db
        .query(
          `SELECT m.* FROM bbs_queue q JOIN bbs_messages m ON m.id = q.message_id
           WHERE q.partner_id = ? AND q.state = 'pending' AND m.killed_at IS NULL
           ORDER BY CASE m.type WHEN 'B' THEN 1 ELSE 0 END, q.queued_at, m.id LIMIT ?`,
        )
        .all(partner.id, max + exclude.size) as Array<Pick<MessageRow, "bid" | "type" | "from_call" | "to_call" | "at_bbs" | "subject" | "body" | "route">>;
      return rows
        .filter((r) => !exclude.has(r.bid) && partner.types.includes(r.type))
        .slice(0, max)
        .map(
          (r): OutgoingMessage => ({
            bid: r.bid,
            type: r.type,
            from: r.from_call,
            to: r.to_call,
            at: r.at_bbs ?? partner.call,
            subject: r.subject,
            text: transferText(r.route ? r.route.split("\n") : [], r.body),
          }),
        );
    },
    answer(p): Answer {
      if (bidKnown(gw, p.bid)) return "reject";
      if (p.size > gw.config.bbsMaxMessageBytes) return "refuse";
      return "accept";
    },
    async deliver(m) {
      const { route, body } = splitRouteLines(m.text);
      // through the store's write gate: a RESTART checkpoint holds the message rather than SQLite's busy handler
      const r = await gw.writeGate.run(() =>
        storeMessage(gw, {
          type: m.type,
          bid: m.bid,
          from: m.from,
          to: m.to,
          at: m.at,
          subject: m.subject,
          body,
          route,
          origin: via,
          receivedFrom: partner.call,
        }),
      );
      return r.ok ? { ok: true, id: r.id } : { ok: false, reason: r.message };
    },
    sent(bid, outcome: SentOutcome) {
      const now = gw.clock.now();
      const state = outcome === "deferred" ? "pending" : outcome;
      gw.db
        .query(
          `UPDATE bbs_queue SET state = ?, attempts = attempts + 1, updated_at = ?
           WHERE partner_id = ? AND message_id = (SELECT id FROM bbs_messages WHERE bid = ?)`,
        )
        .run(state, now, partner.id, bid);
    },
  };
}

/** Runs one session with a known partner over a link, recording the outcome on the partner. */
export async function runPartnerSession(
  gw: Core,
  partner: PartnerRow,
  link: ByteLink,
  role: "caller" | "answerer",
  opts: { reader?: LinkReader; via?: "fbb" | "box"; trace?: (dir: "<" | ">", line: string) => void } = {},
): Promise<SessionReport> {
  const rt = runtime(gw);
  const me = bbsIdentity(gw.config);
  if (!me) {
    link.close();
    return failed("this BBS has no callsign: set BBS_HA (or FED_APRS_CALL)");
  }
  if (rt.active.has(partner.id)) {
    await link.write(new TextEncoder().encode(`*** ${me.call} is already in a session with ${partner.call}\r`));
    link.close();
    return failed(`already in a session with ${partner.call}`);
  }
  const now = gw.clock.now();
  rt.active.set(partner.id, { partner: partner.call, role, via: link.description, startedAt: now, link });
  if (role === "caller") gw.db.query("UPDATE bbs_partners SET last_attempt_at = ? WHERE id = ?").run(now, partner.id);
  let report: SessionReport;
  try {
    report = await runSession(
      link,
      partnerMailbox(gw, partner, opts.via ?? "fbb"),
      {
        role,
        call: me.call,
        version: buildInfo().version,
        compress: partner.protocol === "fbb-b1",
        maxMessageBytes: gw.config.bbsMaxMessageBytes,
        idleTimeoutMs: IDLE_TIMEOUT_MS,
        sessionTimeoutMs: SESSION_TIMEOUT_MS,
        password: partner.password,
        trace: opts.trace ?? ((dir, line) => gw.log.debug("bbs", `${partner.call} ${dir} ${line}`)),
      },
      opts.reader,
    );
  } catch (e) {
    report = failed(`internal error: ${(e as Error).message}`);
    gw.log.error("bbs", `session with ${partner.call} failed`, { error: String((e as Error)?.stack ?? e) });
  } finally {
    rt.active.delete(partner.id);
  }
  const end = gw.clock.now();
  gw.db
    .query("UPDATE bbs_partners SET last_success_at = CASE WHEN ?1 THEN ?2 ELSE last_success_at END, last_error = ?3 WHERE id = ?4")
    .run(report.ok ? 1 : 0, end, report.error, partner.id);
  const list = rt.reports.get(partner.id) ?? [];
  list.push({ ...report, at: end, role, via: link.description });
  rt.reports.set(partner.id, list.slice(-10));
  const stored = report.received.filter((r) => r.result === "stored").length;
  const sent = report.sent.filter((s) => s.outcome === "sent").length;
  gw.log.info(
    "bbs",
    `session with ${partner.call} (${role}, ${link.description}) ${report.ok ? "done" : "ended: " + report.error}; received ${stored}, sent ${sent}`,
  );
  return report;
}

function failed(error: string): SessionReport {
  return { ok: false, error, partnerSid: null, compression: null, received: [], sent: [] };
}

/** Calls a tcp or ax25 partner now (the scheduler, or the sysop's "forward now"). */
export async function callPartner(gw: Core, partnerId: number): Promise<SessionReport> {
  const p = partnerRow(gw, partnerId);
  if (!p) return failed(`no partner ${partnerId}`);
  if (p.transport === "box") return failed(`${p.call} is reached through the ingest box, which carries its sessions`);
  if (p.transport === "tcp" && (!p.host || !p.port)) return failed(`${p.call} has no host and port to call`);
  if (runtime(gw).active.has(p.id)) return failed(`already in a session with ${p.call}`);
  let link: ByteLink;
  try {
    link = p.transport === "ax25" ? await connectAx25(gw, p) : await connectTcp(p.host!, p.port!, 30_000);
  } catch (e) {
    const error = `cannot connect to ${p.transport === "ax25" ? ax25Target(p) : `${p.host}:${p.port}`}: ${(e as Error).message}`;
    gw.db.query("UPDATE bbs_partners SET last_attempt_at = ?, last_error = ? WHERE id = ?").run(gw.clock.now(), error, p.id);
    return failed(error);
  }
  return runPartnerSession(gw, p, link, "caller");
}

/** Tells a caller we do not forward with it (`*** reason`) and hangs up. */
export async function refuseCall(gw: Core, link: ByteLink, why: string): Promise<SessionReport> {
  await link.write(new TextEncoder().encode(`*** ${why}\r`));
  link.close();
  gw.log.info("bbs", `refused a forwarding call on ${link.description}: ${why}`);
  return failed(why);
}

/**
 * Answers a partner that called our TCP port. It identifies itself first, the
 * way FBB does with a `V <call> [password]` line in its forward.sys (sent at
 * once, without a line end); without that, we ask `Callsign :` after 2 s.
 */
async function answerTcp(gw: Core, link: ByteLink): Promise<SessionReport> {
  const reader = new LinkReader(link, IDLE_TIMEOUT_MS);
  const write = (s: string) => link.write(new TextEncoder().encode(s));
  const refuse = (why: string) => refuseCall(gw, link, why);
  try {
    let ident = await reader.readGreeting(2000, 500);
    if (ident === null) {
      await write("Callsign : ");
      ident = await reader.readGreeting(60_000, 1000);
    }
    const words = (ident ?? "").trim().split(/\s+/);
    const call = words[0] ?? "";
    const partner = call ? partnerByCall(gw, call) : null;
    if (!partner) return await refuse(`${call || "a caller that gave no callsign"} is not a forwarding partner of this BBS`);
    if (partner.password) {
      let given = words[1] ?? null;
      if (given === null) {
        await write("Password : ");
        given = ((await reader.readGreeting(60_000, 1000)) ?? "").trim();
      }
      if (given !== partner.password) return await refuse("wrong password");
    }
    if (!partner.enabled) return await refuse(`forwarding with ${partner.call} is switched off here`);
    return await runPartnerSession(gw, partner, link, "answerer", { reader });
  } catch (e) {
    link.close();
    return failed(`identification failed: ${(e as Error).message}`);
  }
}

/** Starts listening for partner BBSes on BBS_FBB_PORT (when set). */
export function startBbs(gw: Core): void {
  const port = gw.config.bbsFbbPort;
  if (port === null) return;
  const rt = runtime(gw);
  if (rt.listener) return;
  rt.listener = listenTcp(gw.config.host, port, (link) => {
    void answerTcp(gw, link);
  });
  gw.onStop(() => stopBbs(gw));
  gw.log.info("bbs", `listening for FBB forwarding on ${gw.config.host}:${rt.listener.port}`);
}

function stopBbs(gw: Core): void {
  const rt = runtime(gw);
  rt.listener?.stop();
  rt.listener = null;
  for (const s of rt.active.values()) s.link.close();
}

/** The port partner BBSes call, once listening. */
export function fbbPort(gw: Core): number | null {
  return runtime(gw).listener?.port ?? null;
}

export interface ForwardRun {
  partner: string;
  result: "called" | "skipped";
  why?: string;
  ok?: boolean;
  error?: string | null;
  received?: number;
  sent?: number;
}

/**
 * The scheduled task: calls every enabled tcp or ax25 partner that is inside one of
 * its time-bands, whose interval has passed since our last call, and that has
 * mail waiting (or is polled). Partners are called in parallel, except
 * that ax25 partners are called one at a time.
 */
export async function forwardDue(gw: Core): Promise<ForwardRun[]> {
  const now = gw.clock.now();
  const rows = gw.db.query("SELECT * FROM bbs_partners WHERE enabled = 1 ORDER BY call").all() as PartnerRow[];
  const runs: Array<Promise<ForwardRun>> = [];
  let onAir: Promise<unknown> = Promise.resolve();
  for (const p of rows) {
    const skip = (why: string) => runs.push(Promise.resolve({ partner: p.call, result: "skipped", why }));
    if (p.transport === "box") {
      skip("the ingest box carries its sessions");
      continue;
    }
    const radioProblem = p.transport === "ax25" ? ax25Unavailable(gw) : null;
    if (radioProblem) {
      skip(radioProblem);
      continue;
    }
    if (!inTimeBands(JSON.parse(p.time_bands) as string[], now)) {
      skip("outside its time-bands");
      continue;
    }
    // (a clock stepped back past the last attempt does not hold the next one until it catches up)
    if (p.last_attempt_at !== null && now >= p.last_attempt_at && now - p.last_attempt_at < p.interval_min * 60_000 - 5_000) {
      skip("its interval has not passed");
      continue;
    }
    const pending = (
      gw.db
        .query(
          "SELECT count(*) AS n FROM bbs_queue q JOIN bbs_messages m ON m.id = q.message_id WHERE q.partner_id = ? AND q.state = 'pending' AND m.killed_at IS NULL AND instr(?, m.type) > 0",
        )
        .get(p.id, p.types) as { n: number }
    ).n;
    if (pending === 0 && !p.poll) {
      skip("nothing to send");
      continue;
    }
    if (runtime(gw).active.has(p.id)) {
      skip("already in a session");
      continue;
    }
    // calls over the radio go one after another: they share the channel
    let call: Promise<SessionReport>;
    if (p.transport === "ax25") onAir = call = onAir.catch(() => {}).then(() => callPartner(gw, p.id));
    else call = callPartner(gw, p.id);
    runs.push(
      call.then((r) => ({
        partner: p.call,
        result: "called" as const,
        ok: r.ok,
        error: r.error,
        received: r.received.filter((x) => x.result === "stored").length,
        sent: r.sent.filter((x) => x.outcome === "sent").length,
      })),
    );
  }
  return Promise.all(runs);
}

/** A session with a partner under way. */
export const SESSION_STATUS = closed({
  partner: t.String({ description: "the partner BBS's callsign" }),
  role: SESSION_ROLE,
  via: t.String({ description: "the link it runs on" }),
  startedAt: unixMs(),
});
export type SessionStatus = Static<typeof SESSION_STATUS>;

export function activeSessions(gw: Core): SessionStatus[] {
  return [...runtime(gw).active.values()].map((s) => ({ partner: s.partner, role: s.role, via: s.via, startedAt: s.startedAt }));
}

/** The last sessions with a partner, newest last (kept in memory, up to 10). */
export function recentSessions(gw: Core, partnerId: number): SessionRecord[] {
  return runtime(gw).reports.get(partnerId) ?? [];
}
