/**
 * What a subcommand is (src/hosts/cli-commands.ts lists them; each part that
 * owns one writes it in its own cli.ts): its arguments, where it prints, and
 * what it may need beyond them. Returns the process exit code.
 */
import type { LoadedConfig } from "../core/config.ts";

type Out = (line: string) => void;

/** What a command may need beyond its arguments: the data directory (--data) and the settings. */
export interface CommandContext {
  dataDir: string;
  loadConfig(): LoadedConfig;
}

export type Command = (args: string[], out: Out, err: Out, ctx: CommandContext) => Promise<number> | number;
