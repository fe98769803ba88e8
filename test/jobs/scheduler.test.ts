import { describe, expect, test } from "bun:test";
import { Scheduler } from "../../src/jobs/scheduler.ts";
import { createLogger } from "../../src/lib/log.ts";
import { startInProcess } from "../helpers/gateway.ts";
import { waitFor } from "../helpers/wait.ts";

describe("scheduler", () => {
  test("the gateway registers every scheduled task of the spec on one cron", async () => {
    const g = await startInProcess();
    const names = g.gw.scheduler.list().map((j) => j.name);
    expect(names.sort()).toEqual([
      "backup",
      "bbs-forward",
      "clock-check",
      "events-archive",
      "federation-pull",
      "hub-push",
      "prune",
      "radio",
      "relay-spoke",
      "watch-digests",
    ]);
    g.gw.scheduler.start();
    for (const j of g.gw.scheduler.list()) expect(j.nextRunAt).toBeGreaterThan(Date.now());
    await g.stop();
  });

  test("a serving gateway arms its cron a second after HTTP answers; stopped before that, nothing is left armed", async () => {
    const g = await startInProcess();
    g.gw.scheduler.start(300);
    expect(g.gw.scheduler.list().every((j) => j.nextRunAt === null)).toBe(true);
    await waitFor(() => g.gw.scheduler.list().every((j) => (j.nextRunAt ?? 0) > Date.now()), "the cron to be armed", { timeoutMs: 3000 });
    g.gw.scheduler.stop();
    g.gw.scheduler.start(200);
    g.gw.scheduler.stop();
    await Bun.sleep(400);
    expect(g.gw.scheduler.list().every((j) => j.nextRunAt === null)).toBe(true);
    await g.stop();
  });

  test("a task never overlaps itself and a failure is recorded, not thrown into the cron", async () => {
    const lines: string[] = [];
    const s = new Scheduler(createLogger("error", (l) => lines.push(l)));
    let running = 0;
    let maxRunning = 0;
    s.add({
      name: "slow",
      schedule: "* * * * * *",
      description: "",
      run: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await Bun.sleep(50);
        running--;
        return "done";
      },
    });
    s.add({ name: "bad", schedule: "0 0 1 1 *", description: "", run: () => Promise.reject(new Error("boom")) });
    const [a, b] = await Promise.all([s.runNow("slow"), s.runNow("slow")]);
    expect([a, b]).toContain("done");
    expect([a, b]).toContainEqual({ skipped: "already running" });
    expect(maxRunning).toBe(1);
    await expect(s.runNow("bad")).rejects.toThrow("boom");
    const bad = s.list().find((j) => j.name === "bad")!;
    expect(bad.lastError).toBe("boom");
    expect(lines.join("\n")).toContain("bad failed");
  });

  test("cron ticks run the task", async () => {
    const s = new Scheduler(createLogger("error"));
    let runs = 0;
    s.add({ name: "tick", schedule: "* * * * * *", description: "", run: () => void runs++ });
    s.start();
    await Bun.sleep(2300);
    s.stop();
    expect(runs).toBeGreaterThanOrEqual(1);
  });
});
