/**
 * Subcommands beyond serve/keygen/check, added by the parts that own them
 * (e.g. `frame verify`). Each returns the process exit code.
 */
import type { Command } from "./command.ts";
import { callsignCommand } from "../accounts/cli.ts";
import { frameCommand, keyCommand, relayCommand } from "../fed/cli.ts";
import { backupCommand, restoreCommand } from "../core/store/cli.ts";

export const extraCommands: Record<string, Command> = {
  callsign: callsignCommand,
  frame: frameCommand,
  key: keyCommand,
  relay: relayCommand,
  backup: backupCommand,
  restore: restoreCommand,
};
