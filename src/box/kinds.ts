/**
 * What a box can be told to do. Transmit kinds put something on the air and
 * need a verified callsign to act as; read-only kinds need only a session.
 * Each kind's arguments are a closed schema, checked when the command is
 * enqueued (never when a box leases it), so a box only ever sees commands it
 * can carry out.
 */
import { t } from "elysia";
import type { TObject } from "@sinclair/typebox";
import { badRequest } from "../lib/errors.ts";
import { closed } from "../lib/schema.ts";
import { parseTnc2, formatAddress } from "../../radio/index.ts";

export interface BoxKind {
  transmit: boolean;
  /** one line for docs/api.md */
  doc: string;
  /** the arguments it takes: another is refused by name (src/lib/schema.ts) */
  args: TObject;
  /** what the schema cannot say; `call` is the verified callsign a transmit kind acts as */
  finish?(args: Record<string, unknown>, call: string | null): void;
}

const NONE = closed({});

export const BOX_KINDS: Record<string, BoxKind> = {
  ping: { transmit: false, doc: "answer with the box's time", args: NONE },
  status: { transmit: false, doc: "report the box's state (radio ports, queues)", args: NONE },
  ports: { transmit: false, doc: "report the radio ports and their counters", args: NONE },
  mheard: {
    transmit: false,
    doc: "report the stations heard (`port`, `limit` optional)",
    args: closed({
      port: t.Optional(t.String({ maxLength: 200, description: "a radio port id" })),
      limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, description: "how many stations, 1-1000" })),
    }),
  },
  beacon: { transmit: true, doc: "send this instance's SVCB1 presence beacon now", args: NONE },
  nodes: { transmit: true, doc: "broadcast this node's NODES now", args: NONE },
  sync: {
    transmit: true,
    doc: "pull from a peer over a radio circuit now (`peer`: its instance id)",
    args: closed({ peer: t.String({ pattern: "^[a-z0-9][a-z0-9.-]{0,62}$", description: "an instance id" }) }),
  },
  ui: {
    transmit: true,
    doc: "send one UI frame: `line` is TNC2 text whose source is the verified callsign (the path is the box's)",
    args: closed({ line: t.String({ maxLength: 600, description: "a TNC2 line (SRC>DEST:info)" }) }),
    finish(args, call) {
      const r = parseTnc2(args.line as string);
      if (!r.ok) throw badRequest("bad_line", r.error.message);
      if (formatAddress(r.value.src) !== call) throw badRequest("bad_source", `the line must come from ${call}, the callsign you transmit as`);
      if (r.value.info.length > 256) throw badRequest("bad_line", "the info field is longer than 256 bytes");
    },
  },
};
