/**
 * Subcommands beyond serve/keygen/check, added by the parts that own them
 * (e.g. `frame verify`). Each returns the process exit code.
 */
type Out = (line: string) => void;
export type Command = (args: string[], out: Out, err: Out) => Promise<number> | number;

export const extraCommands: Record<string, Command> = {};
