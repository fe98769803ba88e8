/**
 * A radio box for a gateway somewhere else (`svc-gateway box --gateway URL`):
 * the executable beside a TNC, carrying the radio for a hosted gateway that
 * has none. It holds no database and serves nothing; over HTTPS with the
 * gateway's ingest secret it
 *
 *   heard     posts every APRS frame its radio hears to `POST /ingest`
 *             (as the box's radio heard it, `igate` = RADIO_CALL), in
 *             batches, each line with the time it was heard;
 *   outbox    leases due lines from `GET /outbox?by=box:ID`, puts them on
 *             the air with RADIO_PATH and reports them with `POST /outbox/ack`;
 *   commands  leases its box commands (`GET /api/box/ID/commands`), carries
 *             out the ones a box without a database can (ping, status,
 *             ports, mheard, ui) and acknowledges each, the others as failed.
 *
 * Heard lines wait in a spool file until the gateway has them, so a box that
 * loses its uplink, or is killed, sends them when it is back.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Logger } from "../lib/log.ts";
import { decodeText } from "../lib/text.ts";
import { TokenBucket } from "../radio-node/tx.ts";
import { formatAddress, formatTnc2, parseTnc2, PID_NONE, type Radio } from "../../radio/index.ts";

export interface RemoteBoxOptions {
  /** the gateway's base URL, e.g. https://caches.example.org */
  gateway: string;
  /** INGEST_SECRET of that gateway */
  secret: string;
  /** this box's id in the gateway's box commands (e.g. shack) */
  id: string;
  radio: Radio;
  /** RADIO_CALL: the IGate name the gateway records for what the box heard */
  call: string | null;
  /** RADIO_PATH for what the box transmits */
  path: readonly string[];
  /** RADIO_TX_PER_MINUTE: the box's transmit budget */
  txPerMinute: number;
  /** a file the heard lines wait in until the gateway has them */
  spoolFile: string;
  log: Logger;
  /** how often the outbox and the commands are asked for, ms (default 2000) */
  pollMs?: number;
  now?: () => number;
}

interface Heard {
  line: string;
  heardAt: number;
}

const MAX_BATCH = 500;
/** A box offline for days keeps at most this many heard lines (the oldest go first). */
const MAX_SPOOL = 50_000;
/** A box command's result stays small: the gateway caps it at 16 KB. */
const MAX_HEARD_LIST = 100;

/** The running box; `stop()` ends its loops (the radio is the caller's). */
export class RemoteBox {
  readonly stats = { heard: 0, posted: 0, transmitted: 0, failedTx: 0, commands: 0, lastPostAt: null as number | null, lastError: null as string | null };
  private spool: Heard[] = [];
  private heardBy = new Map<string, { call: string; port: string; count: number; lastAt: number }>();
  private bucket: TokenBucket;
  private timers: Array<ReturnType<typeof setInterval>> = [];
  private offs: Array<() => void> = [];
  private busy = { post: false, poll: false };
  private now: () => number;
  private base: string;

  constructor(private o: RemoteBoxOptions) {
    this.now = o.now ?? Date.now;
    this.base = o.gateway.replace(/\/+$/, "");
    this.bucket = new TokenBucket(o.txPerMinute, this.now());
    this.spool = readSpool(o.spoolFile);
  }

  start(): this {
    this.offs.push(this.o.radio.onUi((f, port) => this.heard(f, port)));
    const poll = this.o.pollMs ?? 2000;
    this.timers.push(setInterval(() => void this.flush(), Math.min(1000, poll)));
    this.timers.push(setInterval(() => void this.pollOnce(), poll));
    if (this.spool.length) this.o.log.info("box", `${this.spool.length} heard lines from before wait in the spool`);
    return this;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    for (const off of this.offs) off();
    await this.flush();
  }

  private heard(f: Parameters<Parameters<Radio["onUi"]>[0]>[0], port: string): void {
    const call = formatAddress(f.src);
    const h = this.heardBy.get(call) ?? { call, port, count: 0, lastAt: 0 };
    h.count++;
    h.lastAt = this.now();
    h.port = port;
    this.heardBy.set(call, h);
    if ((f.pid ?? PID_NONE) !== PID_NONE) return;
    const tnc2 = formatTnc2(f);
    if (!tnc2.ok) return;
    const entry = { line: decodeText(tnc2.value), heardAt: this.now() };
    this.stats.heard++;
    this.spool.push(entry);
    if (this.spool.length > MAX_SPOOL) {
      this.spool.splice(0, this.spool.length - MAX_SPOOL);
      writeSpool(this.o.spoolFile, this.spool);
    } else appendFileSync(this.o.spoolFile, JSON.stringify(entry) + "\n");
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(this.base + path, {
      method,
      headers: { "x-ingest-secret": this.o.secret, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (!res.ok) throw Object.assign(new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`), { status: res.status });
    return text ? JSON.parse(text) : null;
  }

  /** Posts what waits in the spool, a batch at a time; what the gateway refuses as bad is dropped, what failed in transit waits. */
  async flush(): Promise<void> {
    if (this.busy.post) return;
    this.busy.post = true;
    try {
      while (this.spool.length) {
        const batch = this.spool.slice(0, MAX_BATCH);
        try {
          const q = this.o.call ? `?igate=${encodeURIComponent(this.o.call)}` : "";
          await this.call("POST", `/ingest${q}`, { packets: batch });
          this.stats.posted += batch.length;
          this.stats.lastPostAt = this.now();
        } catch (e) {
          const status = (e as { status?: number }).status;
          this.stats.lastError = (e as Error).message;
          if (status === undefined || status >= 500 || status === 401 || status === 403 || status === 429) {
            this.o.log.warn("box", `the gateway did not take ${batch.length} heard lines; they wait`, { error: (e as Error).message });
            return;
          }
          this.o.log.error("box", `the gateway refused ${batch.length} heard lines as bad; dropped`, { error: (e as Error).message });
        }
        this.spool.splice(0, batch.length);
        writeSpool(this.o.spoolFile, this.spool);
      }
    } finally {
      this.busy.post = false;
    }
  }

  /** One round: the outbox, then the box commands. */
  async pollOnce(): Promise<void> {
    if (this.busy.poll) return;
    this.busy.poll = true;
    try {
      await this.outbox();
      await this.commands();
    } catch (e) {
      this.stats.lastError = (e as Error).message;
      this.o.log.warn("box", "the gateway did not answer", { error: (e as Error).message });
    } finally {
      this.busy.poll = false;
    }
  }

  private connected(): boolean {
    return this.o.radio.ports.some((p) => p.port.status().connected);
  }

  /** Puts one TNC2 line on the air with the box's path; an error says why not. */
  private transmit(line: string): string | null {
    const r = parseTnc2(line);
    if (!r.ok) return `not a TNC2 line: ${r.error.message}`;
    if (!this.bucket.take(this.now())) return "the box's transmit budget (RADIO_TX_PER_MINUTE) is spent";
    const n = this.o.radio.sendUi({ src: r.value.src, dest: r.value.dest, via: [...this.o.path], info: r.value.info });
    return n > 0 ? null : "no radio port took the frame";
  }

  private async outbox(): Promise<void> {
    if (!this.connected()) return;
    const room = this.bucket.available(this.now());
    if (room < 1) return;
    const { items } = (await this.call("GET", `/outbox?by=${encodeURIComponent(`box:${this.o.id}`)}&limit=${Math.min(room, 20)}`)) as {
      items: Array<{ id: number; line: string }>;
    };
    if (!items.length) return;
    const sent: number[] = [];
    const failed: Array<{ id: number; error: string }> = [];
    for (const item of items) {
      const error = this.transmit(item.line);
      if (error) failed.push({ id: item.id, error });
      else sent.push(item.id);
    }
    this.stats.transmitted += sent.length;
    this.stats.failedTx += failed.length;
    await this.call("POST", "/outbox/ack", { sent, failed });
  }

  private run(kind: string, args: Record<string, unknown>): unknown {
    switch (kind) {
      case "ping":
        return { pong: this.now() };
      case "ports":
        return { ports: this.o.radio.status().map((p) => ({ id: p.id, state: p.state, connected: p.connected, rx: p.framesIn, tx: p.framesOut })) };
      case "status":
        return {
          call: this.o.call,
          ports: this.o.radio.status().map((p) => ({ id: p.id, state: p.state, framesIn: p.framesIn, framesOut: p.framesOut })),
          box: { ...this.stats, waiting: this.spool.length },
        };
      case "mheard": {
        const limit = Math.min(typeof args.limit === "number" ? args.limit : MAX_HEARD_LIST, MAX_HEARD_LIST);
        const list = [...this.heardBy.values()].filter((h) => args.port === undefined || h.port === args.port);
        return { heard: list.sort((a, b) => b.lastAt - a.lastAt).slice(0, limit) };
      }
      case "ui": {
        const error = this.transmit(String(args.line));
        if (error) throw new Error(error);
        this.stats.transmitted++;
        return { sent: true };
      }
      default:
        throw new Error(`a radio box carries APRS only; "${kind}" needs the gateway's own radio`);
    }
  }

  private async commands(): Promise<void> {
    const { commands } = (await this.call("GET", `/api/box/${encodeURIComponent(this.o.id)}/commands?limit=10`)) as {
      commands: Array<{ id: number; kind: string; args: Record<string, unknown> }>;
    };
    if (!commands.length) return;
    const acks = commands.map((c) => {
      this.stats.commands++;
      try {
        return { id: c.id, ok: true, result: this.run(c.kind, c.args ?? {}) };
      } catch (e) {
        return { id: c.id, ok: false, result: { error: (e as Error).message } };
      }
    });
    await this.call("POST", `/api/box/${encodeURIComponent(this.o.id)}/commands/ack`, { acks });
  }
}

function readSpool(file: string): Heard[] {
  if (!existsSync(file)) return [];
  const out: Heard[] = [];
  for (const l of readFileSync(file, "utf8").split("\n")) {
    if (!l.trim()) continue;
    try {
      const h = JSON.parse(l) as Heard;
      if (typeof h.line === "string" && typeof h.heardAt === "number") out.push(h);
    } catch {
      // a line cut short by a kill mid-write: the rest of the spool still counts
    }
  }
  return out;
}

/** Rewrites the spool whole (write a copy, then rename), so a kill leaves the old or the new one. */
function writeSpool(file: string, list: Heard[]): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, list.map((h) => JSON.stringify(h) + "\n").join(""));
  renameSync(tmp, file);
}
