/**
 * `svc-gateway backup FILE` and `svc-gateway restore FILE` (backup.ts).
 * Backup works while the gateway runs; restore refuses until it is stopped.
 */
import { join, resolve } from "node:path";
import type { CommandContext } from "../../hosts/command.ts";
import { backupDatabase, restoreDatabase } from "./backup.ts";
import { DB_FILE_NAME } from "./db.ts";
import { RunLockHeldError } from "./run-lock.ts";

type Out = (line: string) => void;

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

export async function backupCommand(args: string[], out: Out, err: Out, ctx: CommandContext): Promise<number> {
  if (args.length !== 1) {
    err("usage: svc-gateway backup FILE [--data DIR]   (a consistent copy, also of a running gateway)");
    return 2;
  }
  const dest = resolve(args[0]!);
  try {
    const r = await backupDatabase(join(ctx.dataDir, DB_FILE_NAME), dest);
    out(`backed up ${join(ctx.dataDir, DB_FILE_NAME)} to ${dest} (${mb(r.bytes)}, ${(r.ms / 1000).toFixed(1)} s)`);
    return 0;
  } catch (e) {
    err(`svc-gateway backup: ${(e as Error).message}`);
    return 1;
  }
}

export function restoreCommand(args: string[], out: Out, err: Out, ctx: CommandContext): number {
  if (args.length !== 1) {
    err("usage: svc-gateway restore FILE [--data DIR]   (stop the gateway first)");
    return 2;
  }
  try {
    const r = restoreDatabase(resolve(args[0]!), ctx.dataDir);
    out(`restored ${resolve(args[0]!)} (${mb(r.bytes)}, schema ${r.version}) as ${join(ctx.dataDir, DB_FILE_NAME)}`);
    if (r.previous) out(`the database it replaced is kept as ${r.previous}`);
    out("start the gateway again to serve it");
    return 0;
  } catch (e) {
    const running = e instanceof RunLockHeldError ? "; stop it first (e.g. systemctl stop svc-gateway), then restore" : "";
    err(`svc-gateway restore: ${(e as Error).message}${running}`);
    return 1;
  }
}
