/**
 * How a command reaches the gateway that serves its data directory. The
 * serving gateway writes svc-gateway.control (0600: only the data directory's
 * owner reads it) with its loopback address and a token made anew at each
 * start; a command that writes while the gateway runs (e.g. `svc-gateway
 * callsign verify`) sends its change to that address with the token, rather
 * than writing under the running gateway.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const CONTROL_FILE = "svc-gateway.control";
/** the header that carries the control token */
export const CONTROL_HEADER = "x-control-token";

export interface Control {
  pid: number;
  /** the serving gateway's base URL, e.g. http://localhost:8080 */
  url: string;
  token: string;
}

/** Written by the serving gateway once it listens (it holds the run lock). */
export function writeControl(dataDir: string, url: string): void {
  const file = join(dataDir, CONTROL_FILE);
  const control: Control = { pid: process.pid, url, token: randomBytes(32).toString("base64url") };
  writeFileSync(`${file}.tmp`, JSON.stringify(control), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

export function readControl(dataDir: string): Control | null {
  try {
    const c = JSON.parse(readFileSync(join(dataDir, CONTROL_FILE), "utf8")) as Partial<Control>;
    if (typeof c.url !== "string" || typeof c.token !== "string" || c.token.length < 32 || typeof c.pid !== "number") return null;
    return c as Control;
  } catch {
    return null;
  }
}

export function removeControl(dataDir: string): void {
  rmSync(join(dataDir, CONTROL_FILE), { force: true });
}
