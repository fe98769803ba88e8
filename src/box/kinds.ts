/**
 * What a box can be told to do. Transmit kinds put something on the air and
 * need a verified callsign to act as; read-only kinds need only a session.
 * Each kind checks its arguments when it is enqueued (never when a box
 * leases it), so a box only ever sees commands it can carry out.
 */
import { badRequest } from "../lib/errors.ts";
import { parseTnc2, formatAddress } from "../../radio/index.ts";

export interface BoxKind {
  transmit: boolean;
  /** one line for docs/api.md */
  doc: string;
  /** checks and normalises the arguments; `call` is the verified callsign a transmit kind acts as */
  args(raw: Record<string, unknown>, call: string | null): Record<string, unknown>;
}

const none = (raw: Record<string, unknown>) => {
  const extra = Object.keys(raw).filter((k) => k !== "call");
  if (extra.length) throw badRequest("invalid", `this command takes no arguments (got ${extra.join(", ")})`);
  return {};
};

export const BOX_KINDS: Record<string, BoxKind> = {
  ping: { transmit: false, doc: "answer with the box's time", args: none },
  status: { transmit: false, doc: "report the box's state (radio ports, queues)", args: none },
  ports: { transmit: false, doc: "report the radio ports and their counters", args: none },
  mheard: {
    transmit: false,
    doc: "report the stations heard (`port`, `limit` optional)",
    args(raw) {
      const out: Record<string, unknown> = {};
      if (raw.port !== undefined) {
        if (typeof raw.port !== "string" || raw.port.length > 200) throw badRequest("invalid", "port is a radio port id");
        out.port = raw.port;
      }
      if (raw.limit !== undefined) {
        if (!Number.isInteger(raw.limit) || (raw.limit as number) < 1 || (raw.limit as number) > 1000) throw badRequest("invalid", "limit is 1-1000");
        out.limit = raw.limit;
      }
      return out;
    },
  },
  beacon: { transmit: true, doc: "send this instance's SVCB1 presence beacon now", args: none },
  nodes: { transmit: true, doc: "broadcast this node's NODES now", args: none },
  sync: {
    transmit: true,
    doc: "pull from a peer over a radio circuit now (`peer`: its instance id)",
    args(raw) {
      if (typeof raw.peer !== "string" || !/^[a-z0-9][a-z0-9.-]{0,62}$/.test(raw.peer)) throw badRequest("invalid", "peer is an instance id");
      return { peer: raw.peer };
    },
  },
  ui: {
    transmit: true,
    doc: "send one UI frame: `line` is TNC2 text whose source is the verified callsign (the path is the box's)",
    args(raw, call) {
      if (typeof raw.line !== "string" || raw.line.length > 600) throw badRequest("invalid", "line is a TNC2 line (SRC>DEST:info)");
      const r = parseTnc2(raw.line);
      if (!r.ok) throw badRequest("bad_line", r.error.message);
      if (formatAddress(r.value.src) !== call) throw badRequest("bad_source", `the line must come from ${call}, the callsign you transmit as`);
      if (r.value.info.length > 256) throw badRequest("bad_line", "the info field is longer than 256 bytes");
      return { line: raw.line };
    },
  },
};
