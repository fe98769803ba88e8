/**
 * The layering of docs/architecture.md, checked on every import of the tree:
 * an import that runs upward fails here, naming the file and the line.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { ROOT } from "./helpers/paths.ts";

type Layer = "host" | "http" | "domain" | "core" | "library" | "ui";

const isRouteFile = (f: string) => /(^|\/)(routes|[a-z0-9-]+-routes)\.ts$/.test(f);

/**
 * Which layer a file of the tree belongs to (docs/architecture.md): the first
 * folder under src/ says it (lib, core, hosts, http; every other folder is a
 * domain), with two kinds of file that sit in a domain's folder by design: its
 * routes (routes.ts, *-routes.ts: http) and its command line (cli.ts: host).
 */
export function layerOf(f: string): Layer {
  if (f.startsWith("ui/")) return "ui";
  if (f.startsWith("radio/") || f.startsWith("src/lib/")) return "library";
  if (f === "src/main.ts" || f.startsWith("src/hosts/") || /^src\/.+\/cli\.ts$/.test(f)) return "host";
  if (f.startsWith("src/http/") || isRouteFile(f)) return "http";
  if (f.startsWith("src/core/")) return "core";
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

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?["']([^"']+)["']|(?:import|require)\(\s*["']([^"']+)["']\s*\)/g;

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
  // Only hosts and the HTTP layer name the Gateway (src/hosts/gateway-core.ts), even as a type: domain services take the Core.
  if ((i.to === "src/hosts/gateway.ts" || i.to === "src/hosts/gateway-core.ts") && i.typeOnly && a === "http") return null;
  // The web app shares the server's types, and its pure libraries (the APRS encoder, Maidenhead), never other code.
  if (a === "ui" && b !== "ui" && b !== "library") return i.typeOnly ? null : "the web app imports server code (only `import type` may cross)";
  if (a === "library" && i.from.startsWith("radio/") && !i.to.startsWith("radio/")) return "radio/ is a library of its own: it imports nothing of src/";
  if (!MAY_IMPORT[a].includes(b)) return `${a} imports ${b}`;
  // Route files take shared helpers from src/http/, not from another domain's routes.
  if (isRouteFile(i.to) && i.from !== "src/http/routes.ts" && dirname(i.to) !== dirname(i.from)) return "a route file imports another domain's routes";
  return null;
}

/**
 * The imports a file runs: what Bun loads, read by Bun's own transpiler.
 * `import type`, `export type` and an import whose names are used only as
 * types are erased, so they are not edges; a dynamic `import()` is one (a
 * lazy import does not untie a knot, it hides it).
 */
const transpilers = {
  ts: new Bun.Transpiler({ loader: "ts", trimUnusedImports: true }),
  tsx: new Bun.Transpiler({ loader: "tsx", trimUnusedImports: true }),
};
export function runtimeImportsOf(file: string, text = readFileSync(join(ROOT, file), "utf8")): string[] {
  const t = file.endsWith(".tsx") ? transpilers.tsx : transpilers.ts;
  // (Bun's scan leaves out require() calls: a module loaded when first needed, like the route files, is one too)
  const required = [...text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!);
  return [...t.scan(text).imports.map((i) => i.path), ...required]
    .filter((path) => path.startsWith("."))
    .map((path) => normalize(join(dirname(file), path)).replaceAll("\\", "/"));
}

/**
 * Every runtime import cycle of a graph, one per knot (a strongly connected
 * set of files, Tarjan): the knot's files and one loop through them, as
 * `a.ts -> b.ts -> a.ts`.
 */
export function importCycles(graph: Map<string, string[]>): { files: string[]; loop: string }[] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const knots: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const knot: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      knot.push(w);
    } while (w !== v);
    if (knot.length > 1 || graph.get(v)?.includes(v)) knots.push(knot.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return knots.map((files) => ({ files, loop: loopThrough(graph, files) }));
}

/** The shortest way from a knot's first file back to itself, within the knot. */
function loopThrough(graph: Map<string, string[]>, knot: string[]): string {
  const start = knot[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of graph.get(v) ?? []) {
      if (!knot.includes(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start].join(" -> ");
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return knot.join(", ");
}

describe("layers", () => {
  test("the import reader sees the tree (a control: these imports exist)", () => {
    expect(TREE.length).toBeGreaterThan(200);
    expect(ALL.some((i) => i.from === "src/http/gates.ts" && i.to === "src/accounts/caller.ts")).toBe(true);
    expect(ALL.some((i) => i.from === "ui/account/verify.tsx" && i.to === "src/accounts/verify-aprs.ts" && i.typeOnly)).toBe(true);
    expect(layerOf("src/lib/fed/cbor.ts")).toBe("library");
    expect(layerOf("src/fed/sync.ts")).toBe("domain");
    expect(layerOf("src/game/routes.ts")).toBe("http");
    // and it would catch an upward import
    expect(problem({ from: "src/game/caches.ts", to: "src/http/gates.ts", line: 1, typeOnly: true })).toBe("domain imports http");
    expect(problem({ from: "src/lib/aprs/decode.ts", to: "src/stations/ingest.ts", line: 1, typeOnly: false })).toBe("library imports domain");
  });

  test("the first folder under src/ says the layer: lib, core, http, hosts, or a domain; the Bun entry is the one file at the top", () => {
    const top = readdirSync(join(ROOT, "src"), { withFileTypes: true });
    expect(top.filter((e) => !e.isDirectory()).map((e) => e.name)).toEqual(["main.ts"]);
    const folders = top.filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders).toEqual(expect.arrayContaining(["lib", "core", "http", "hosts"]));
    // a domain folder holds domain code, its routes and its command line, and nothing of another layer
    for (const f of TREE.filter((f) => f.startsWith("src/") && !/^src\/(lib|core|http|hosts)\//.test(f) && f !== "src/main.ts"))
      expect([f, layerOf(f)]).toEqual([f, isRouteFile(f) ? "http" : /\/cli\.ts$/.test(f) ? "host" : "domain"]);
  });

  test("no import runs upward (docs/architecture.md)", () => {
    const bad = ALL.map((i) => ({ i, why: problem(i) }))
      .filter((x) => x.why)
      .map((x) => `${x.i.from}:${x.i.line} -> ${relative(".", x.i.to)}: ${x.why}`);
    expect(bad).toEqual([]);
  });

  test("only hosts and the HTTP layer name the Gateway, even as a type: domain services take the Core", () => {
    // a control: a domain module's type import of the Gateway is refused
    expect(problem({ from: "src/radio-node/radio.ts", to: "src/hosts/gateway.ts", line: 1, typeOnly: true })).toBe("domain imports host");
    expect(problem({ from: "src/radio-node/routes.ts", to: "src/hosts/gateway.ts", line: 1, typeOnly: true })).toBeNull();
    const naming = TREE.filter(
      (f) =>
        !["host", "http", "ui"].includes(layerOf(f)) &&
        /\bGateway\b(?!Events)/.test(readFileSync(join(ROOT, f), "utf8").replace(/\/\/.*|\/\*[\s\S]*?\*\//g, "")),
    );
    expect(naming).toEqual([]);
  });
  test("a domain's routes receive the Core and what src/http/routes.ts hands them, not the Gateway", () => {
    const names = (text: string) => /\bGateway\b(?!Events)/.test(text.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ""));
    // a control: the reader sees a route file that takes the gateway, and not one that takes the kit
    expect(names('import type { Gateway } from "../http/gateway.ts";\nexport function xRoutes(gw: Gateway) {}')).toBe(true);
    expect(names("export function xRoutes(gw: Core, kit: RouteKit) {}")).toBe(false);
    const routeFiles = TREE.filter((f) => isRouteFile(f) && !f.startsWith("src/http/"));
    expect(routeFiles.length).toBeGreaterThan(20);
    expect(routeFiles.filter((f) => names(readFileSync(join(ROOT, f), "utf8")))).toEqual([]);
  });
});

describe("per-gateway state", () => {
  test("no module keeps a gateway's state in a table keyed by the gateway: it is a service the composition root builds (src/core/services.ts)", () => {
    const keeps = (text: string) => /new Weak(Map|Set)<\s*(Core|Gateway\w*)\b/.test(text);
    // a control: the reader sees a table, and not one keyed by something else (a database's statements)
    expect(keeps("const rooms = new WeakMap<Core, LiveRooms>();")).toBe(true);
    expect(keeps("const stopped = new WeakSet<Core>();")).toBe(true);
    expect(keeps("const cache = new WeakMap<Database, Statements>();")).toBe(false);
    expect(TREE.filter((f) => keeps(readFileSync(join(ROOT, f), "utf8")))).toEqual([]);
  });
});

describe("one source for each body rule", () => {
  /** Where an object schema may keep members it does not declare, and why. */
  const OPEN_ON_PURPOSE: Record<string, string> = {
    "src/accounts/model.ts": "a signed body is verified over every member it has; WebAuthn's JSON is the browser's",
    "src/fed/network-routes.ts": "a peer's notify ping: a newer peer may add members, and an older gateway still pulls it",
    "src/stations/own-routes.ts": "a weather station's push: its query carries parameters this gateway does not read",
    "src/http/ui.ts": "the web app's address: a query beyond the map's view is the app's own (or a link's tracking), and passes",
  };
  const opens = (text: string) => /additionalProperties:\s*true/.test(text) || /\bbody:\s*(t\.Partial\()?t\.Object\(/.test(text);
  const refusesByHand = (text: string) => /unknown field|is not a field/.test(text.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ""));

  test("the readers see an open schema and a hand-written list of fields (a control)", () => {
    expect(opens("const open = { additionalProperties: true };")).toBe(true);
    expect(opens("    body: t.Object({ name: t.String() }),")).toBe(true);
    expect(opens("    body: t.Partial(t.Object(FIELDS)),")).toBe(true);
    expect(opens("    body: closed({ name: t.String() }),")).toBe(false);
    expect(refusesByHand('if (!FIELDS.includes(k)) throw badRequest("invalid", "unknown field " + k);')).toBe(true);
    expect(refusesByHand("// the schema refuses an unknown field")).toBe(false);
  });

  test("request bodies are closed schemas: no route body is an open object, and no service lists its fields by hand", () => {
    const src = TREE.filter((f) => f.startsWith("src/"));
    expect(src.filter((f) => !OPEN_ON_PURPOSE[f] && opens(readFileSync(join(ROOT, f), "utf8")))).toEqual([]);
    // the schema check (lib/schema.ts) words an unknown member; a federation record's layout (lib/fed/) is not a request schema
    const handLists = src.filter((f) => !/^src\/(lib\/schema\.ts|lib\/fed\/)/.test(f) && refusesByHand(readFileSync(join(ROOT, f), "utf8")));
    expect(handLists).toEqual([]);
  });
});

describe("no import cycles", () => {
  test("the cycle finder sees a loop and ignores what Bun erases (a control)", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts", "d.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", []],
    ]);
    expect(importCycles(graph)).toEqual([{ files: ["a.ts", "b.ts", "c.ts"], loop: "a.ts -> b.ts -> c.ts -> a.ts" }]);
    const text = `import type { A } from "./a.ts";\nimport { type B } from "./b.ts";\nimport { C } from "./c.ts";\nimport { D } from "./d.ts";\nexport type { E } from "./e.ts";\nexport { F } from "./f.ts";\nconst c: C = D;\nawait import("./g.ts");\nconst h = () => require("./h.ts");\n`;
    expect(runtimeImportsOf("src/x/y.ts", text)).toEqual(["src/x/d.ts", "src/x/f.ts", "src/x/g.ts", "src/x/h.ts"]);
  });

  test("no file of src/, radio/ or ui/ imports itself through others at run time", () => {
    const graph = new Map(TREE.map((f) => [f, runtimeImportsOf(f).filter((to) => TREE.includes(to))]));
    // a control: the reader sees runtime imports
    expect(graph.get("src/http/gates.ts")).toContain("src/accounts/caller.ts");
    expect(importCycles(graph).map((c) => `${c.loop} (knot: ${c.files.join(", ")})`)).toEqual([]);
  });

  test("nor through types: no file names a type of a module that leads back to it", () => {
    const graph = new Map<string, string[]>(TREE.map((f) => [f, []]));
    for (const i of ALL) if (graph.has(i.to)) graph.get(i.from)!.push(i.to);
    // a control: the reader sees type-only imports (radio/link.ts takes only types from radio/circuit.ts)
    expect(ALL.find((i) => i.from === "radio/link.ts" && i.to === "radio/circuit.ts")?.typeOnly).toBe(true);
    expect(importCycles(graph).map((c) => `${c.loop} (knot: ${c.files.join(", ")})`)).toEqual([]);
  });
});

/** The Bun APIs a file calls in code (comments and types stripped by Bun's transpiler). */
export function bunApisOf(file: string, text = readFileSync(join(ROOT, file), "utf8")): string[] {
  const js = (file.endsWith(".tsx") ? transpilers.tsx : transpilers.ts).transformSync(text);
  return [...new Set([...js.matchAll(/\bBun\.[A-Za-z]+|\btypeof Bun\b|["']bun:[a-z]+["']/g)].map((m) => m[0].replaceAll("'", '"')))];
}

describe("where the code names Bun", () => {
  test("the reader sees a call and not a comment (a control)", () => {
    expect(bunApisOf("src/x.ts", "// Bun.sleep here\n/** Bun.file */\nawait Bun.sleep(1);\nif (typeof Bun !== 'undefined') {}\n")).toEqual([
      "Bun.sleep",
      "typeof Bun",
    ]);
    expect(bunApisOf("src/x.ts", "import type { Database } from 'bun:sqlite';\nconst d: Database = null!;\n")).toEqual([]);
  });

  test("docs/architecture.md lists exactly the modules that call Bun's own API", () => {
    const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
    const section = doc.split("### Where the code names Bun")[1]!.split(/\n#{2,3} /)[0]!;
    const listed = [...section.matchAll(/^- `([^`]+\.tsx?)`:/gm)].map((m) => m[1]!).sort();
    const naming = TREE.filter((f) => !f.endsWith(".d.ts") && bunApisOf(f).length > 0).sort();
    // a control: the reader finds the Bun host
    expect(naming).toContain("src/hosts/bun.ts");
    expect({ inCodeNotListed: naming.filter((f) => !listed.includes(f)), listedNotInCode: listed.filter((f) => !naming.includes(f)) }).toEqual({
      inCodeNotListed: [],
      listedNotInCode: [],
    });
  });
});
