/**
 * Subcommands beyond serve/keygen/check, added by the parts that own them
 * (e.g. `frame verify`). Each returns the process exit code.
 */
import type { LoadedConfig } from "../core/config.ts";
import { callsignCommand } from "../accounts/cli.ts";
import { frameCommand, keyCommand, relayCommand } from "../fed/cli.ts";
import { backupCommand, restoreCommand } from "../core/store/cli.ts";

type Out = (line: string) => void;

/** What a command may need beyond its arguments: the data directory (--data) and the settings. */
export interface CommandContext {
  dataDir: string;
  loadConfig(): LoadedConfig;
}

export type Command = (args: string[], out: Out, err: Out, ctx: CommandContext) => Promise<number> | number;

export const extraCommands: Record<string, Command> = {
  callsign: callsignCommand,
  frame: frameCommand,
  key: keyCommand,
  relay: relayCommand,
  backup: backupCommand,
  restore: restoreCommand,
};
