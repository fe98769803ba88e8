/**
 * The layering of docs/architecture.md, checked on every import of the tree:
 * an import that runs upward fails here, naming the file and the line.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { ROOT } from "./helpers/paths.ts";

type Layer = "host" | "http" | "domain" | "core" | "library" | "ui";

const FED_CODEC = ["cbor", "record", "ed25519", "compress", "page", "bodies", "keys", "endpoints", "caps"].map((n) => `src/fed/${n}.ts`);
const LEAVES = ["errors", "callsign", "log", "maidenhead", "text", "secret", "version", "production", "types.d"].map((n) => `src/${n}.ts`);
const HOSTS = ["src/main.ts", "src/cli.ts", "src/cli-commands.ts", "src/gateway.ts", "src/gateway-core.ts"];

const isRouteFile = (f: string) => /(^|\/)(routes|[a-z0-9-]+-routes)\.ts$/.test(f);

/** Which layer a file of the tree belongs to (docs/architecture.md). */
export function layerOf(f: string): Layer {
  if (f.startsWith("ui/")) return "ui";
  if (f.startsWith("radio/") || f.startsWith("src/aprs/") || f.startsWith("src/net/") || FED_CODEC.includes(f) || LEAVES.includes(f)) return "library";
  if (HOSTS.includes(f) || f.startsWith("src/hosts/") || /^src\/[a-z0-9-]+\/cli\.ts$/.test(f)) return "host";
  if (f.startsWith("src/http/") || isRouteFile(f)) return "http";
  if (f.startsWith("src/store/") || f === "src/config.ts" || f === "src/events.ts") return "core";
  return "domain";
}

/** What each layer may import (besides itself, npm packages and node: modules). */
const MAY_IMPORT: Record<Layer, Layer[]> = {
  host: ["host", "http", "domain", "core", "library"],
  http: ["http", "domain", "core", "library"],
  domain: ["domain", "core", "library"],
  core: ["core", "library"],
  library: ["library"],
  ui: ["ui", "library"],
};

interface Import {
  from: string;
  to: string;
  line: number;
  typeOnly: boolean;
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...files(rel));
    else if (/\.(ts|tsx)$/.test(name)) out.push(rel);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const out: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[3] ?? m[4]!;
    if (!spec.startsWith(".")) continue;
    const to = normalize(join(dirname(file), spec)).replaceAll("\\", "/");
    const line = text.slice(0, m.index! + m[0].length).split("\n").length;
    out.push({ from: file, to, line, typeOnly: !!m[2] });
  }
  return out;
}

const TREE = [...files("src"), ...files("radio"), ...files("ui")];
const ALL = TREE.flatMap(importsOf).filter((i) => /\.(ts|tsx)$/.test(i.to));

/** Why an import breaks the layering, or null. */
function problem(i: Import): string | null {
  const a = layerOf(i.from);
  const b = layerOf(i.to);
  // Everyone may name the Gateway type; only hosts use the composition root's values.
  if ((i.to === "src/gateway.ts" || i.to === "src/gateway-core.ts") && i.typeOnly) return null;
  // The web app shares the server's types, and its pure libraries (the APRS encoder, Maidenhead), never other code.
  if (a === "ui" && b !== "ui" && b !== "library") return i.typeOnly ? null : "the web app imports server code (only `import type` may cross)";
  if (a === "library" && i.from.startsWith("radio/") && !i.to.startsWith("radio/")) return "radio/ is a library of its own: it imports nothing of src/";
  if (!MAY_IMPORT[a].includes(b)) return `${a} imports ${b}`;
  // Route files take shared helpers from src/http/, not from another domain's routes.
  if (isRouteFile(i.to) && i.from !== "src/http/routes.ts" && dirname(i.to) !== dirname(i.from)) return "a route file imports another domain's routes";
  return null;
}

describe("layers", () => {
  test("the import reader sees the tree (a control: these imports exist)", () => {
    expect(TREE.length).toBeGreaterThan(200);
    expect(ALL.some((i) => i.from === "src/http/gates.ts" && i.to === "src/accounts/caller.ts")).toBe(true);
    expect(ALL.some((i) => i.from === "ui/account/verify.tsx" && i.to === "src/accounts/verify-aprs.ts" && i.typeOnly)).toBe(true);
    expect(layerOf("src/fed/cbor.ts")).toBe("library");
    expect(layerOf("src/fed/sync.ts")).toBe("domain");
    expect(layerOf("src/game/routes.ts")).toBe("http");
    // and it would catch an upward import
    expect(problem({ from: "src/game/caches.ts", to: "src/http/gates.ts", line: 1, typeOnly: true })).toBe("domain imports http");
    expect(problem({ from: "src/aprs/decode.ts", to: "src/stations/ingest.ts", line: 1, typeOnly: false })).toBe("library imports domain");
  });

  test("no import runs upward (docs/architecture.md)", () => {
    const bad = ALL.map((i) => ({ i, why: problem(i) }))
      .filter((x) => x.why)
      .map((x) => `${x.i.from}:${x.i.line} -> ${relative(".", x.i.to)}: ${x.why}`);
    expect(bad).toEqual([]);
  });
});
