/**
 * Box commands: work for an operator's box (the ingest box, or `local`, this
 * gateway's own radio), queued by users and the operator, leased and
 * acknowledged by the box.
 *
 *   queued --lease--> leased --ack--> acknowledged (ok true or false, with the box's result)
 *              ^          |
 *              +----------+ the lease (60 s) ran out: queued again;
 *                           after 5 leases without an ack: expired
 *
 *   enqueue(gw, "main", { kind: "beacon" }, by)    // -> BoxCommand (queued)
 *   lease(gw, "main", { limit: 10 })               // -> leased commands
 *   acknowledge(gw, "main", [{ id, ok: true, result: {...} }])
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import type { Caller } from "../accounts/caller.ts";
import { badRequest, forbidden, notFound, unauthorized } from "../lib/errors.ts";
import { isCallsign, normalizeCall } from "../lib/callsign.ts";
import { verifiedHolder } from "../accounts/users.ts";
import { isSysop } from "../accounts/caller.ts";
import { BOX_KINDS } from "./kinds.ts";
import { check, closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";

export const BOX_STATE = t.Union([t.Literal("queued"), t.Literal("leased"), t.Literal("acknowledged"), t.Literal("expired")], {
  description: "queued, leased by the box, acknowledged by it (ok true or false), or expired (leased 5 times without an ack)",
});
export type BoxState = Static<typeof BOX_STATE>;

/** A command for a box, as its log and its lease show it. */
export const BOX_COMMAND = closed({
  id: wholeNumber(),
  box: t.String({ description: "the box's id" }),
  kind: t.String({ description: "what to do (POST /api/box/{id}/command lists the kinds)" }),
  args: t.Record(t.String(), t.Unknown(), { description: "the kind's arguments, as its own schema checked them (src/box/kinds.ts): they differ per kind" }),
  transmit: t.Boolean({ description: "it puts something on the air" }),
  call: nullable(t.String(), "transmit kinds: the verified callsign the command acts as"),
  state: BOX_STATE,
  attempts: wholeNumber({ description: "times it was leased" }),
  leaseUntil: nullable(unixMs(), "while leased: when the lease runs out, unix ms"),
  ok: nullable(t.Boolean(), "once acknowledged: whether it succeeded"),
  result: t.Unknown({
    description: "what the box answered: any JSON it chose (up to 8 KiB); { error } when the command expired; null before",
  }),
  via: t.Union([t.Literal("session"), t.Literal("ingest")], { description: "who queued it: a signed-in user, or the ingest box" }),
  createdAt: unixMs(),
  leasedAt: nullable(unixMs()),
  doneAt: nullable(unixMs()),
});
export type BoxCommand = Static<typeof BOX_COMMAND>;

/** POST /api/box/{id}/command. */
export const COMMAND_QUEUED = closed({ command: BOX_COMMAND });

/** GET /api/box/{id}/commands. */
export const LEASED = closed({ commands: t.Array(BOX_COMMAND, { description: "oldest first" }) });

export const LEASE_MS = 60_000;
const MAX_LEASES = 5;
const MAX_RESULT_BYTES = 8192;
const BOX_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** The box that is this gateway's own radio. */
export const LOCAL_BOX = "local";

interface Row {
  id: number;
  box: string;
  kind: string;
  args: string;
  transmit: number;
  call: string | null;
  state: BoxState;
  attempts: number;
  leaseUntil: number | null;
  ok: number | null;
  result: string | null;
  via: "session" | "ingest";
  userId: number | null;
  createdAt: number;
  leasedAt: number | null;
  doneAt: number | null;
}

const COLS = `id, box, kind, args, transmit, call, state, attempts, lease_until AS leaseUntil, ok, result, via, user_id AS userId,
  created_at AS createdAt, leased_at AS leasedAt, done_at AS doneAt`;

function view(r: Row): BoxCommand {
  return {
    id: r.id,
    box: r.box,
    kind: r.kind,
    args: JSON.parse(r.args),
    transmit: r.transmit === 1,
    call: r.call,
    state: r.state,
    attempts: r.attempts,
    leaseUntil: r.leaseUntil,
    ok: r.ok === null ? null : r.ok === 1,
    result: r.result === null ? null : JSON.parse(r.result),
    via: r.via,
    createdAt: r.createdAt,
    leasedAt: r.leasedAt,
    doneAt: r.doneAt,
  };
}

/** A box id from a path: 1-32 of a-z 0-9 _ -. */
export function boxId(raw: string): string {
  const id = decodeURIComponent(raw).toLowerCase();
  if (!BOX_ID.test(id)) throw badRequest("invalid", "a box id is 1-32 of a-z 0-9 _ -");
  return id;
}

/**
 * Enqueues a command from a request body `{"kind", "args"?}` (or with the args
 * inline). A transmit kind acts as the caller's verified active callsign; the
 * ingest box names it in `call`, and it must be verified on this instance.
 */
export function enqueue(gw: Core, box: string, body: { kind: string; args?: Record<string, unknown>; [k: string]: unknown }, caller: Caller): BoxCommand {
  const kindName = body.kind;
  const kind = BOX_KINDS[kindName]!;
  const rawArgs = body.args === undefined ? Object.fromEntries(Object.entries(body).filter(([k]) => k !== "kind")) : body.args;
  let call: string | null = null;
  if (kind.transmit) {
    const u = caller.user;
    if (u && !caller.ingest) {
      if (!u.call || !u.verified)
        throw forbidden("a transmit command needs a verified callsign: verify your active callsign with the APRS challenge first", "callsign_not_verified");
      call = u.call;
    } else {
      const named = rawArgs.call ?? body.call;
      if (typeof named !== "string" || !isCallsign(named))
        throw badRequest("invalid", "the ingest box names the verified callsign a transmit command acts as: call");
      call = normalizeCall(named);
      if (verifiedHolder(gw.db, call) === null) throw forbidden(`${call} is not a verified callsign on this instance`, "callsign_not_verified");
    }
  } else if (!caller.user && !caller.ingest) throw unauthorized();
  // `call` names who acts (above), not an argument of the kind
  const { call: _named, ...given } = rawArgs;
  const args = check(kind.args, given, body.args === undefined ? "body" : "body.args");
  kind.finish?.(args, call);
  const now = gw.clock.now();
  const id = Number(
    gw.db
      .query("INSERT INTO box_commands (box, kind, args, transmit, call, user_id, via, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(
        box,
        kindName,
        JSON.stringify(args),
        kind.transmit ? 1 : 0,
        call,
        caller.ingest ? null : (caller.user?.id ?? null),
        caller.ingest ? "ingest" : "session",
        now,
      ).lastInsertRowid,
  );
  return get(gw, id)!;
}

function get(gw: Core, id: number): BoxCommand | null {
  const r = gw.db.query(`SELECT ${COLS} FROM box_commands WHERE id = ?`).get(id) as Row | null;
  return r && view(r);
}

/**
 * Leases the box's due commands, oldest first: queued ones, and leased ones
 * whose lease ran out (they were queued again). A command leased MAX_LEASES
 * times without an ack expires instead.
 */
/** Who enqueued a command (null: the ingest secret, or an erased account). */
export function commandUser(gw: Core, id: number): number | null {
  const row = gw.db.query("SELECT user_id AS userId FROM box_commands WHERE id = ?").get(id) as { userId: number | null } | null;
  return row?.userId ?? null;
}

export function lease(gw: Core, box: string, opts: { limit?: number } = {}): BoxCommand[] {
  const now = gw.clock.now();
  const limit = Math.min(Math.max(opts.limit ?? 10, 1), 100);
  return gw.db.transaction(() => {
    // expired leases go back to queued, or expire for good
    gw.db
      .query(
        `UPDATE box_commands SET state = CASE WHEN attempts >= ?3 THEN 'expired' ELSE 'queued' END, lease_until = NULL,
           done_at = CASE WHEN attempts >= ?3 THEN ?2 ELSE NULL END,
           result = CASE WHEN attempts >= ?3 THEN json_object('error', 'not acknowledged after ' || attempts || ' leases') ELSE result END
         WHERE box = ?1 AND state = 'leased' AND lease_until <= ?2`,
      )
      .run(box, now, MAX_LEASES);
    const ids = gw.db.query("SELECT id FROM box_commands WHERE box = ? AND state = 'queued' ORDER BY id LIMIT ?").all(box, limit) as Array<{ id: number }>;
    const upd = gw.db.query("UPDATE box_commands SET state = 'leased', attempts = attempts + 1, lease_until = ?, leased_at = ? WHERE id = ?");
    for (const { id } of ids) upd.run(now + LEASE_MS, now, id);
    return ids.map(({ id }) => get(gw, id)!);
  })();
}

export interface Ack {
  id: number;
  ok?: boolean;
  result?: unknown;
}

/** The most acks one request carries. */
export const MAX_ACKS = 100;

/** Checks the size of each ack's result (their shape is checked at the route). */
export function parseAcks(list: Ack[]): Ack[] {
  return list.map((a, i) => {
    if (a.result !== undefined && JSON.stringify(a.result).length > MAX_RESULT_BYTES)
      throw badRequest("invalid", `acks[${i}].result is larger than ${MAX_RESULT_BYTES} bytes`);
    return { id: a.id, ok: a.ok, result: a.result };
  });
}

/**
 * The box reports commands done (ok, the default) or failed. Only the box's
 * own leased commands move; an ack that arrives after the lease ran out still
 * counts if nobody leased the command again. Acking twice changes nothing.
 */
/** POST /api/box/{id}/commands/ack. */
export const ACKNOWLEDGED = closed({
  acknowledged: wholeNumber({ description: "commands that moved to acknowledged (an ack repeated or too late counts 0)" }),
});

export function acknowledge(gw: Core, box: string, acks: Ack[]): Static<typeof ACKNOWLEDGED> {
  const now = gw.clock.now();
  let n = 0;
  const upd = gw.db.query(
    "UPDATE box_commands SET state = 'acknowledged', ok = ?, result = ?, lease_until = NULL, done_at = ? WHERE id = ? AND box = ? AND state = 'leased'",
  );
  gw.db.transaction(() => {
    for (const a of acks) n += upd.run(a.ok === false ? 0 : 1, a.result === undefined ? null : JSON.stringify(a.result), now, a.id, box).changes;
  })();
  return { acknowledged: n };
}

/**
 * The box's command log, newest first. The operator (sysop or the ingest
 * box) sees every command; anyone else signed in sees their own.
 */
/** GET /api/box/{id}/log. */
export const COMMAND_LOG = closed({ box: t.String({ description: "the box's id" }), commands: t.Array(BOX_COMMAND, { description: "newest first" }) });

export function commandLog(gw: Core, box: string, caller: Caller, opts: { limit?: number; before?: number } = {}): Static<typeof COMMAND_LOG> {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 500);
  const before = opts.before ?? Number.MAX_SAFE_INTEGER;
  const all = isSysop(gw, caller);
  if (!all && !caller.user) throw unauthorized();
  const rows = gw.db
    .query(`SELECT ${COLS} FROM box_commands WHERE box = ?1 AND id < ?2 AND (?3 OR user_id = ?4) ORDER BY id DESC LIMIT ?5`)
    .all(box, before, all ? 1 : 0, caller.user?.id ?? -1, limit) as Row[];
  return { box, commands: rows.map(view) };
}

/** One command of a box (for its log and tests). */
export function boxCommand(gw: Core, box: string, id: number): BoxCommand {
  const c = get(gw, id);
  if (!c || c.box !== box) throw notFound(`command ${id} of box ${box}`);
  return c;
}
