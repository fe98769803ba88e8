/**
 * The `local` box: this gateway's own radio carrying out box commands, through
 * the same queue, leases and log as a remote box (so the web app's transmit
 * form and the operator's log work the same either way). A `ui` line goes
 * into the APRS outbox, so it keeps the channel's rate limits.
 */
import type { Core } from "../core/core.ts";
import { acknowledge, commandUser, lease, LOCAL_BOX, type Ack, type BoxCommand } from "../box/service.ts";
import { listPorts } from "../stations/ports.ts";
import { enqueue } from "../stations/outbox.ts";
import { mheard } from "./heard.ts";
import { broadcastNodes, sendBeacon } from "./broadcasts.ts";
import type { GatewayRadio } from "./running-radio.ts";
import { syncOverRadio } from "./sync.ts";

type Runner = (gw: Core, gr: GatewayRadio, c: BoxCommand) => unknown | Promise<unknown>;

/** What each kind does here; a kind without a runner is acknowledged as failed. */
const LOCAL_RUNNERS: Record<string, Runner> = {
  ping: (gw) => ({ pong: gw.clock.now() }),
  status: (gw, gr) => ({
    call: gw.config.radioCall,
    ports: gr.radio.status().map((p) => ({ id: p.id, state: p.state, framesIn: p.framesIn, framesOut: p.framesOut })),
    tx: gr.tx.stats,
    outbox: gw.db.query("SELECT state, count(*) AS n FROM aprs_outbox GROUP BY state ORDER BY state").all(),
  }),
  ports: (gw) => ({ ports: listPorts(gw) }),
  mheard: (gw, _gr, c) => ({ heard: mheard(gw, c.args as { port?: string; limit?: number }) }),
  beacon: (gw, gr) => {
    const b = sendBeacon(gw, gr);
    if (!b) throw new Error("not sent: RADIO_CALL is not verified, the instance is unsigned, or the transmit budget is spent");
    gr.schedule.beaconAt = gw.clock.now();
    return b;
  },
  nodes: (gw, gr) => {
    if (!gr.netrom) throw new Error("this station is no NET/ROM node (set NODE_ALIAS)");
    const frames = broadcastNodes(gw, gr);
    if (!frames) throw new Error("not sent: RADIO_CALL is not verified, or the transmit budget is spent");
    gr.schedule.nodesAt = gw.clock.now();
    return { frames };
  },
  sync: async (gw, _gr, c) => {
    const r = await syncOverRadio(gw, c.args.peer as string);
    if (!r.ok) throw new Error(`${r.error!.code}: ${r.error!.message}`);
    return { applied: r.applied, received: r.received, bytes: r.bytes };
  },
  ui: (gw, _gr, c) => {
    // The line is the sender's own: it shows in their GET /api/tx/aprs with its state (queued, sent, failed).
    const item = enqueue(gw, { kind: "raw", src: c.call!, line: c.args.line as string, userId: commandUser(gw, c.id) });
    return { outboxId: item.id };
  },
};

/** Leases the local box's due commands, runs them, acknowledges each. */
export async function runLocalBox(gw: Core, gr: GatewayRadio): Promise<number> {
  const commands = lease(gw, LOCAL_BOX, { limit: 10 });
  for (const c of commands) {
    const run = LOCAL_RUNNERS[c.kind];
    let ack: Ack;
    try {
      if (!run) throw new Error(`this gateway cannot carry out "${c.kind}"`);
      ack = { id: c.id, ok: true, result: (await run(gw, gr, c)) ?? null };
    } catch (e) {
      ack = { id: c.id, ok: false, result: { error: (e as Error).message } };
    }
    acknowledge(gw, LOCAL_BOX, [ack]);
  }
  return commands.length;
}
