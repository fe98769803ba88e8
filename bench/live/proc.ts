/** CPU seconds (user + system) and resident memory of a process, from /proc (Linux). */
import { readFileSync } from "node:fs";

const TICKS = 100; // USER_HZ on Linux

export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / TICKS;
}

/** Resident set size now and at its peak, MiB. */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(s)?.[1] ?? NaN);
  return { rss: Math.round(kb("VmRSS") / 1024), peak: Math.round(kb("VmHWM") / 1024) };
}
