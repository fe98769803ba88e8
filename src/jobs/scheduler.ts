/**
 * One cron for every scheduled task (croner). A task never overlaps itself;
 * a failure is logged and recorded, and the next tick runs as usual.
 */
import { Cron } from "croner";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs } from "../lib/schema.ts";
import type { Logger } from "../lib/log.ts";
import { CLOCK_REFUSED } from "../system/clock-sanity.ts";
import type { WriteGate } from "../core/store/write-gate.ts";

export interface Job {
  name: string;
  /** cron expression (seconds field optional) */
  schedule: string;
  description: string;
  run(): Promise<unknown> | unknown;
}

/** A job as GET /api/admin/jobs lists it. */
export const JOB_STATUS = closed({
  name: t.String(),
  schedule: t.String({ description: "cron expression (seconds field optional)" }),
  description: t.String(),
  running: t.Boolean(),
  lastStartedAt: nullable(unixMs()),
  lastFinishedAt: nullable(unixMs()),
  lastResult: t.Unknown({
    description: "the last run's result, as the job reports it (each job its own shape: prune counts, a backup's file, a pull's summary...); null before a run",
  }),
  lastError: nullable(t.String(), "the last run's failure; null after a run that succeeded"),
  nextRunAt: nullable(unixMs(), "null while the schedule is not armed"),
});
export type JobStatus = Static<typeof JOB_STATUS>;

/** GET /api/admin/jobs */
export const JOB_LIST = closed({ jobs: t.Array(JOB_STATUS) });

/** POST /api/admin/jobs/:name/run: the run's result, or its failure. */
export const JOB_RUN = closed({
  job: t.String(),
  result: t.Unknown({ description: "what the job answered (its own shape); { skipped } when it was already running; null when it failed" }),
  error: nullable(t.String(), "the failure, as GET /api/admin/jobs records it"),
});

interface Entry {
  job: Job;
  cron: Cron | null;
  status: JobStatus;
}

export class Scheduler {
  private entries = new Map<string, Entry>();
  private started = false;
  private arming: ReturnType<typeof setTimeout> | null = null;
  /** `gate`: a job starts once the store's write gate lets writes go ahead (not during a RESTART checkpoint) */
  constructor(
    private log: Logger,
    private gate: WriteGate | null = null,
  ) {}

  add(job: Job): void {
    if (this.entries.has(job.name)) throw new Error(`job ${job.name} is registered twice`);
    const entry: Entry = {
      job,
      cron: null,
      status: {
        name: job.name,
        schedule: job.schedule,
        description: job.description,
        running: false,
        lastStartedAt: null,
        lastFinishedAt: null,
        lastResult: null,
        lastError: null,
        nextRunAt: null,
      },
    };
    this.entries.set(job.name, entry);
    if (this.started) this.schedule(entry);
  }

  /**
   * Arms every task; with `afterMs`, that long from now. A serving gateway
   * answers its first request before it arms the cron (croner's first
   * next-run sums, with the time zone's rules loaded for local time, cost
   * about 25 ms on a 2-core machine). Every task runs on minutes or hours: a
   * second's wait skips at most the first run of a task due every minute.
   * `armed` is called once every task is armed.
   */
  start(afterMs = 0, armed?: () => void): void {
    if (this.started || this.arming) return;
    if (afterMs > 0) {
      this.arming = setTimeout(() => {
        this.arming = null;
        this.start(0, armed);
      }, afterMs);
      return;
    }
    this.started = true;
    for (const e of this.entries.values()) this.schedule(e);
    armed?.();
  }

  stop(): void {
    if (this.arming) clearTimeout(this.arming);
    this.arming = null;
    this.started = false;
    for (const e of this.entries.values()) {
      e.cron?.stop();
      e.cron = null;
    }
  }

  /** Runs a job now (if it is not already running) and returns its result. */
  async runNow(name: string): Promise<unknown> {
    const e = this.entries.get(name);
    if (!e) throw new Error(`no job named ${name}`);
    return this.execute(e);
  }

  /**
   * Runs, one after the other, every job whose schedule fell due after `from`
   * and up to `to` (unix ms): the cron of a host that is woken from outside
   * (a Workers runtime's cron trigger) rather than keeping timers. A job due
   * several times in the window runs once (a step forward of the clock runs
   * no backlog); a window the clock stepped back over is the last minute
   * before `to`. Returns the names it ran.
   */
  async runDue(from: number, to: number): Promise<string[]> {
    // the clock stepped back since the last call: what fell due in the last minute, not nothing until it catches up
    if (from >= to) from = to - 60_000;
    const ran: string[] = [];
    for (const e of this.entries.values()) {
      const next = new Cron(e.job.schedule, { paused: true }).nextRun(new Date(from));
      if (!next || next.getTime() > to) continue;
      ran.push(e.job.name);
      await this.execute(e).catch(() => {});
    }
    return ran;
  }

  list(): JobStatus[] {
    return [...this.entries.values()].map((e) => ({
      ...e.status,
      nextRunAt: e.cron?.nextRun()?.getTime() ?? null,
    }));
  }

  private schedule(e: Entry): void {
    e.cron = new Cron(e.job.schedule, { protect: true, catch: true }, async () => {
      await this.execute(e).catch(() => {});
    });
  }

  private async execute(e: Entry): Promise<unknown> {
    if (e.status.running) return { skipped: "already running" };
    e.status.running = true;
    e.status.lastStartedAt = Date.now();
    try {
      await this.gate?.wait();
      const result = await e.job.run();
      e.status.lastResult = result ?? null;
      e.status.lastError = null;
      return result;
    } catch (err) {
      e.status.lastError = String((err as Error)?.message ?? err);
      // refused for a clock that is not set: system/clock-sanity.ts logged why, once
      if ((err as { code?: string })?.code !== CLOCK_REFUSED) this.log.error("jobs", `${e.job.name} failed`, { error: e.status.lastError });
      throw err;
    } finally {
      e.status.running = false;
      e.status.lastFinishedAt = Date.now();
    }
  }
}
