#!/usr/bin/env bun
/**
 * The gateway on Node: `npm run start:node` (flags after `--`, as for
 * `npm start`: `npm run start:node -- --port 9000`).
 *
 * 1. Bun bundles src/hosts/node-main.ts for Node into .cache/node/ (the
 *    source is TypeScript with Bun's text and JSON imports, which Node's type
 *    stripping does not run; one bundle also starts faster). `import.meta.dir`
 *    becomes each source file's folder, so the data directory and everything
 *    else found beside the source are where `npm start` finds them. Bun also
 *    builds the web app into .cache/node/ui/ beside it (ui/index.json lists
 *    the files and their types) and the world basemap into world.pmtiles, as
 *    build.ts embeds both in the executable.
 * 2. A Node with node:sqlite (22.16 or newer): $SVC_NODE, else `node` on PATH
 *    if new enough, else node-<os>-<arch>@NODE_VERSION from the npm registry,
 *    fetched once with `npm pack` into .cache/node-runtimes (as build.ts
 *    fetches Bun runtimes): no dependency in package.json for a 190 MB binary
 *    only this command uses.
 * 3. Runs the bundle on it, passing signals on and its exit code back.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT, sourceDirs } from "./source-dirs.ts";
import { buildUi } from "../src/http/ui.ts";
import { builtFromCheckout } from "../src/tiles/archives.ts";

export const NODE_VERSION = "26.12.1";
export const NODE_BUNDLE = join(ROOT, ".cache/node/svc-gateway.mjs");


/** Bundles the Node entry; returns the bundle's path. */
export async function buildNodeBundle(): Promise<string> {
  const r = await Bun.build({
    entrypoints: [join(ROOT, "src/hosts/node-main.ts")],
    target: "node",
    format: "esm",
    outdir: dirname(NODE_BUNDLE),
    naming: "svc-gateway.mjs",
    plugins: [sourceDirs],
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!r.success) throw new Error("the Node bundle failed:\n" + r.logs.map(String).join("\n"));
  await writeUi(join(dirname(NODE_BUNDLE), "ui"));
  // the built-in world basemap, as build.ts embeds it in the executable
  writeFileSync(join(dirname(NODE_BUNDLE), "world.pmtiles"), new Uint8Array(await (await builtFromCheckout()).arrayBuffer()));
  return NODE_BUNDLE;
}

/** The web app, built by Bun, as files beside the Node bundle (src/hosts/node.ts reads them back). */
async function writeUi(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const files: Array<{ name: string; type: string }> = [];
  for (const o of await buildUi()) {
    const path = join(dir, o.name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, new Uint8Array(await o.blob.arrayBuffer()));
    files.push({ name: o.name, type: o.blob.type });
  }
  writeFileSync(join(dir, "index.json"), JSON.stringify(files));
}

function nodeVersion(exe: string): number[] | null {
  const r = spawnSync(exe, ["--version"], { encoding: "utf8" });
  const m = r.status === 0 ? /^v(\d+)\.(\d+)/.exec(r.stdout) : null;
  return m ? [Number(m[1]), Number(m[2])] : null;
}

const hasSqlite = (v: number[] | null) => !!v && (v[0]! > 22 || (v[0] === 22 && v[1]! >= 16));

/** A Node whose node:sqlite needs no flag and returns rows as arrays with their column names (22.16 or newer). */
export function nodeRuntime(log: (l: string) => void = () => {}): string {
  if (process.env.SVC_NODE) return process.env.SVC_NODE;
  if (hasSqlite(nodeVersion("node"))) return "node";
  const os = process.platform === "win32" ? "win" : process.platform;
  const arch = process.arch;
  const pkg = `node-${os}-${arch}`;
  const dir = join(ROOT, ".cache/node-runtimes", `${pkg}-${NODE_VERSION}`);
  const exe = join(dir, "package/bin/node");
  if (existsSync(exe)) return exe;
  log(`fetching ${pkg}@${NODE_VERSION} from the npm registry (the node on PATH is older than 22.16)`);
  mkdirSync(dir, { recursive: true });
  const pack = spawnSync("npm", ["pack", `${pkg}@${NODE_VERSION}`, "--pack-destination", dir, "--silent"], { cwd: dir, encoding: "utf8" });
  if (pack.status !== 0) throw new Error(`npm pack ${pkg}@${NODE_VERSION} failed:\n${pack.stderr}`);
  const tgz = pack.stdout.trim().split("\n").pop()!;
  const untar = spawnSync("tar", ["xzf", join(dir, tgz), "-C", dir]);
  if (untar.status !== 0 || !existsSync(exe)) throw new Error(`could not unpack ${tgz}`);
  rmSync(join(dir, tgz));
  return exe;
}

/** The command that runs the gateway on Node: [node, flags..., bundle]. */
export function nodeCommand(node: string, bundle: string): string[] {
  // node:sqlite says it is experimental once per start; the gateway's own log says which host runs
  return [node, "--disable-warning=ExperimentalWarning", bundle];
}

if (import.meta.main) {
  const bundle = await buildNodeBundle();
  const node = nodeRuntime((l) => console.error(l));
  const child = Bun.spawn([...nodeCommand(node, bundle), ...process.argv.slice(2)], { stdio: ["inherit", "inherit", "inherit"] });
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, () => child.kill(sig));
  process.exit(await child.exited);
}
