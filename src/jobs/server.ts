/**
 * The scheduled tasks of what only a server host runs (Bun, Node): the radio
 * ports' tick, FBB forwarding to partners, file backups of the database.
 * src/hosts/gateway.ts registers them; a Workers runtime has none of these parts.
 */
import type { Core } from "../core/core.ts";
import type { Scheduler } from "./scheduler.ts";
import { forwardDue } from "../bbs/forwarding.ts";
import { radioTick } from "../radio-node/radio.ts";
import { scheduledBackup } from "./backup.ts";

export function registerServerJobs(gw: Core, scheduler: Scheduler): void {
  scheduler.add({
    name: "radio",
    schedule: "* * * * *",
    description: "radio ports: counter samples; the SVCB1 beacon, the station's own beacons and telemetry, NODES broadcast and radio sync when they are due",
    run: () => radioTick(gw),
  });
  scheduler.add({
    name: "bbs-forward",
    schedule: "* * * * *",
    description: "call forwarding partners that have mail waiting (or are polled), within their time-bands and intervals",
    run: () => forwardDue(gw),
  });
  scheduler.add({
    name: "backup",
    schedule: "23 * * * *",
    description: "copy the database to BACKUP_DIR every BACKUP_INTERVAL_HOURS, keeping BACKUP_KEEP copies (no-op unless set)",
    run: () => scheduledBackup(gw),
  });
}
