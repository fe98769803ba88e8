#!/usr/bin/env bun
/**
 * Builds the web app, then one self-contained executable per target into dist/:
 *   bun run build                       all targets
 *   bun build.ts --targets linux-x64    some targets
 *   bun build.ts --outdir /tmp/x
 * Cross-compiling uses the target's Bun runtime from the npm registry
 * (@oven/bun-<os>-<arch>, the same version as the pinned bun), fetched once
 * with `npm pack` into .cache/bun-runtimes; nothing else is downloaded.
 */
import { parseArgs } from "node:util";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildUi } from "./src/http/ui.ts";
import { builtFromCheckout, EMBEDDED_NAME } from "./src/tiles/archives.ts";
import bunPkg from "./node_modules/bun/package.json" with { type: "json" };

export const TARGETS = {
  "linux-x64": { bunTarget: "bun-linux-x64", pkg: "@oven/bun-linux-x64", exe: "bin/bun", suffix: "" },
  "linux-arm64": { bunTarget: "bun-linux-arm64", pkg: "@oven/bun-linux-aarch64", exe: "bin/bun", suffix: "" },
  "windows-x64": { bunTarget: "bun-windows-x64", pkg: "@oven/bun-windows-x64", exe: "bin/bun.exe", suffix: ".exe" },
  "darwin-arm64": { bunTarget: "bun-darwin-arm64", pkg: "@oven/bun-darwin-aarch64", exe: "bin/bun", suffix: "" },
} as const;
export type Target = keyof typeof TARGETS;

const ROOT = import.meta.dir;
const HOST: Target | null =
  process.platform === "linux" && process.arch === "x64" ? "linux-x64" : process.platform === "linux" && process.arch === "arm64" ? "linux-arm64" : null;

function git(...args: string[]): string | null {
  const r = Bun.spawnSync(["git", ...args], { cwd: ROOT, stderr: "ignore" });
  const out = r.stdout.toString().trim();
  return r.exitCode === 0 && out ? out : null;
}

/** The Bun runtime executable for a target: this one for the host, else from the npm registry. */
async function runtimeFor(target: Target): Promise<string> {
  if (target === HOST) return process.execPath;
  const t = TARGETS[target];
  const dir = join(ROOT, ".cache/bun-runtimes", `${t.pkg.replace("/", "-")}-${bunPkg.version}`);
  const exe = join(dir, "package", t.exe);
  if (existsSync(exe)) return exe;
  mkdirSync(dir, { recursive: true });
  const pack = Bun.spawnSync(["npm", "pack", `${t.pkg}@${bunPkg.version}`, "--pack-destination", dir, "--silent"], { cwd: dir, stderr: "pipe" });
  if (pack.exitCode !== 0) throw new Error(`npm pack ${t.pkg}@${bunPkg.version} failed:\n${pack.stderr}`);
  const tgz = pack.stdout.toString().trim().split("\n").pop()!;
  const untar = Bun.spawnSync(["tar", "xzf", join(dir, tgz), "-C", dir]);
  if (untar.exitCode !== 0 || !existsSync(exe)) throw new Error(`could not unpack ${tgz}`);
  rmSync(join(dir, tgz));
  return exe;
}

export async function build(opts: { targets: Target[]; outdir: string; log?: (l: string) => void }): Promise<Record<Target, string>> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const outdir = resolve(opts.outdir);
  const uiDir = join(outdir, "ui");
  rmSync(uiDir, { recursive: true, force: true });
  mkdirSync(uiDir, { recursive: true });
  for (const o of await buildUi()) await Bun.write(join(uiDir, o.name), o.blob);
  log(`ui       ${uiDir}`);
  // The built-in world basemap (zoom 0-6), embedded as tiles/world.pmtiles.
  const tilesDir = join(outdir, "tiles");
  rmSync(tilesDir, { recursive: true, force: true });
  mkdirSync(tilesDir, { recursive: true });
  const basemap = join(outdir, EMBEDDED_NAME);
  await Bun.write(basemap, await builtFromCheckout());
  log(`basemap  ${basemap} (${(statSync(basemap).size / 1e6).toFixed(2)} MB)`);

  const info = {
    commit: git("rev-parse", "HEAD"),
    tag: git("describe", "--tags", "--exact-match"),
    builtAt: new Date().toISOString(),
  };
  const compile = (target: Target, outfile: string, profile: string | null) => compileOne(target, outfile, info, [uiDir, tilesDir], profile);
  // The start-up profile (see startupProfile): from a first build for this machine, used by every target.
  const work = mkdtempSync(join(tmpdir(), "svc-build-"));
  try {
    let profile: string | null = null;
    if (HOST) {
      const first = join(work, `svc-gateway-${HOST}`);
      await compile(HOST, first, null);
      profile = await startupProfile(first, join(work, "bytecode-order.txt"));
      log(`profile  what start-up runs, recorded from a first build (${statSync(profile).size} bytes)`);
    } else {
      log("profile  none: this machine runs none of the targets, so start-up was not recorded");
    }
    const built = {} as Record<Target, string>;
    for (const target of opts.targets) {
      const outfile = join(outdir, `svc-gateway-${target}${TARGETS[target].suffix}`);
      await compile(target, outfile, profile);
      built[target] = outfile;
      log(`${target.padEnd(13)}${outfile} (${(statSync(outfile).size / 1e6).toFixed(1)} MB)`);
    }
    return built;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * JavaScriptCore's tier-up thresholds are scaled by this until start-up is
 * over: start-up runs most of its code once, and compiling it (and paging in
 * the compilers) cost more than interpreting it. The host sets the normal
 * policy back once the gateway's cron is armed, or a command begins
 * (HttpHost.startedUp).
 */
const START_UP_JIT_POLICY = 1000;

async function compileOne(target: Target, outfile: string, info: object, assets: string[], profile: string | null): Promise<void> {
  const t = TARGETS[target];
  const args = [
    "build",
    "--compile",
    "--minify",
    // Precompiled bytecode halves cold start (no parsing of the bundle at launch).
    "--bytecode",
    ...(profile ? [`--bytecode-order=${profile}`] : []),
    `--compile-jit-policy=${START_UP_JIT_POLICY}`,
    `--target=${t.bunTarget}`,
    `--compile-executable-path=${await runtimeFor(target)}`,
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    `--define=SVC_BUILD=${JSON.stringify(info)}`,
    `--define=process.env.NODE_ENV="production"`,
    ...assets.map((a) => `--asset=${a}`),
    join(ROOT, "src/main.ts"),
    `--outfile=${outfile}`,
  ];
  const r = Bun.spawnSync([process.execPath, ...args], { cwd: resolve(outfile, ".."), stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`compile for ${target} failed:\n${r.stdout}\n${r.stderr}`);
}

/**
 * Profile-guided bytecode layout: the first build is started twice on a
 * fresh data directory (the first start makes the data, so the second runs
 * an ordinary start), and the second start records which functions it runs
 * (BUN_BYTECODE_ORDER_OUT) up to its first /health and the web app's page.
 * Built with that profile, an executable keeps start-up's bytecode together
 * at the front: fewer pages read at start and kept resident when idle.
 */
async function startupProfile(exe: string, out: string): Promise<string> {
  const data = mkdtempSync(join(tmpdir(), "svc-profile-"));
  try {
    await startOnce(exe, data, {});
    await startOnce(exe, data, { BUN_BYTECODE_ORDER_OUT: out });
    if (!existsSync(out)) throw new Error(`the start-up profile run wrote no ${out}`);
    return out;
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

/** Starts `exe serve` on `data`, asks for /health and the web app's page, and stops it with SIGINT. */
async function startOnce(exe: string, data: string, env: Record<string, string>): Promise<void> {
  const proc = Bun.spawn([exe, "serve", "--data", data, "--port", "0", "--host", "127.0.0.1"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: data, LOG_LEVEL: "warn", KISS_PORTS: "off", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  try {
    let text = "";
    let url: string | undefined;
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      url = /Open (http:\/\/\S+?)\/ in your browser/.exec(text)?.[1];
      if (url) break;
    }
    if (!url) throw new Error(`the built executable did not start:\n${text}\n${await new Response(proc.stderr).text()}`);
    for (const [path, accept] of [
      ["/health", "application/json"],
      ["/", "text/html"],
    ] as const) {
      const r = await fetch(url + path, { headers: { accept } });
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`the built executable answered ${path} with ${r.status}`);
    }
    proc.kill("SIGINT");
    if ((await proc.exited) !== 0) throw new Error(`the built executable exited with ${proc.exitCode} on SIGINT`);
  } finally {
    clearTimeout(timer);
    proc.kill("SIGKILL");
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { targets: { type: "string" }, outdir: { type: "string" } } });
  const targets = (values.targets?.split(",") ?? Object.keys(TARGETS)) as Target[];
  for (const t of targets) if (!(t in TARGETS)) throw new Error(`unknown target ${t}; known: ${Object.keys(TARGETS).join(", ")}`);
  await build({ targets, outdir: values.outdir ?? join(ROOT, "dist") });
}
