import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const BUN = process.execPath;
export const MAIN = join(ROOT, "src/main.ts");
