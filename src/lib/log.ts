/** Line-oriented logging to stderr: `time level area message {fields}`. */
export type Level = "debug" | "info" | "warn" | "error";
const RANK: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(area: string, msg: string, fields?: Record<string, unknown>): void;
  info(area: string, msg: string, fields?: Record<string, unknown>): void;
  warn(area: string, msg: string, fields?: Record<string, unknown>): void;
  error(area: string, msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: Level = "info", write: (line: string) => void = (l) => process.stderr.write(l + "\n")): Logger {
  const min = RANK[level];
  const emit = (lv: Level, area: string, msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lv] < min) return;
    const extra = fields && Object.keys(fields).length ? " " + JSON.stringify(fields) : "";
    write(`${new Date().toISOString()} ${lv.padEnd(5)} ${area}: ${msg}${extra}`);
  };
  return {
    debug: (a, m, f) => emit("debug", a, m, f),
    info: (a, m, f) => emit("info", a, m, f),
    warn: (a, m, f) => emit("warn", a, m, f),
    error: (a, m, f) => emit("error", a, m, f),
  };
}
