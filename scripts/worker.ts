#!/usr/bin/env bun
/**
 * The gateway on a Workers runtime: `npm run start:worker` (flags after `--`:
 * `--port N`, `--host H`, `--data DIR` where miniflare keeps the Durable
 * Object's SQLite; settings from the environment, as for `npm start`).
 *
 * 1. Bun bundles src/hosts/worker.ts for workerd into .cache/worker/ (ES
 *    module; node: built-ins come from the runtime's nodejs_compat, and
 *    `import.meta.dir` is written in as each source file's folder as for Node).
 * 2. miniflare (a dev dependency; workerd from the npm registry) runs it with
 *    the settings of wrangler.toml: the GATEWAY Durable Object on SQLite
 *    storage, nodejs_compat, and the cron trigger, which miniflare does not
 *    fire by itself: it is fired here every minute, as Cloudflare would.
 * wrangler (`wrangler dev`, `wrangler deploy`) reads wrangler.toml and the
 * same bundle.
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { BunPlugin } from "bun";
import { ROOT, sourceDirs } from "./source-dirs.ts";
import { buildInfo, type EmbeddedBuild } from "../src/lib/version.ts";
import type { Miniflare, MiniflareOptions } from "miniflare";

export const WORKER_BUNDLE = join(ROOT, ".cache/worker/svc-gateway.mjs");
/** wrangler.toml's compatibility date and flags: the runtime's behaviour the bundle is built for */
export const COMPATIBILITY_DATE = "2026-04-01";
export const COMPATIBILITY_FLAGS = ["nodejs_compat"];


let webApp: Promise<string> | null = null;

/**
 * `svc:web-app`: the web app Bun builds and the world basemap, as base64 in a
 * module of the bundle (a worker has no files to read them from). Made before
 * the bundle is (a build cannot run inside another's plugin), once a process.
 */
function webAppSource(): Promise<string> {
  webApp ??= (async () => {
    const { buildUi } = await import("../src/http/ui.ts");
    const { builtFromCheckout } = await import("../src/tiles/archives.ts");
    const b64 = async (blob: Blob) => Buffer.from(await blob.arrayBuffer()).toString("base64");
    const ui = await Promise.all((await buildUi()).map(async (f) => ({ name: f.name, type: f.blob.type, b64: await b64(f.blob) })));
    return `export const ui = ${JSON.stringify(ui)};\nexport const world = ${JSON.stringify(await b64(await builtFromCheckout()))};\n`;
  })();
  return webApp;
}

const webAppModule = (contents: string): BunPlugin => ({
  name: "svc:web-app",
  setup(build) {
    build.onResolve({ filter: /^svc:web-app$/ }, () => ({ path: "web-app", namespace: "svc" }));
    build.onLoad({ filter: /.*/, namespace: "svc" }, () => ({ contents, loader: "js" }));
  },
});

/** The checkout's commit and tag (read from git here, at bundle time) for the bundle. */
function workerBuild(): EmbeddedBuild {
  const b = buildInfo();
  return { commit: b.commit, tag: b.tag, builtAt: new Date().toISOString(), executable: false };
}

/** Bundles a worker entry for workerd (the gateway's by default); returns the bundle's path. */
export async function buildWorkerBundle(entry = join(ROOT, "src/hosts/worker.ts"), out = WORKER_BUNDLE): Promise<string> {
  const r = await Bun.build({
    entrypoints: [entry],
    target: "node",
    format: "esm",
    outdir: dirname(out),
    naming: out.slice(dirname(out).length + 1),
    plugins: [sourceDirs, webAppModule(await webAppSource())],
    // the runtime's modules stay imports; bun:sqlite is named (never loaded) by the Bun driver the store defaults to on Bun
    external: ["cloudflare:*", "bun:*"],
    define: {
      "process.env.NODE_ENV": '"production"',
      // Bun's Node output asks createRequire(import.meta.url) for CommonJS packages' require(); workerd gives modules no URL
      "import.meta.url": '"file:///svc-gateway.mjs"',
      // what /.well-known/source and /source name: a worker cannot ask git, so the checkout's commit and tag go in, as build.ts puts them in the executable
      SVC_BUILD: JSON.stringify(workerBuild()),
    },
  });
  if (!r.success) throw new Error("the worker bundle failed:\n" + r.logs.map(String).join("\n"));
  return out;
}

export interface WorkerRun {
  port?: number;
  host?: string;
  /** the settings (the worker's variables) */
  env?: Record<string, string>;
  /** where miniflare keeps the Durable Object's SQLite; in memory without one */
  persistTo?: string;
}

/** miniflare's options for the bundle: what wrangler.toml says, plus where to listen. */
export function workerOptions(bundle: string, run: WorkerRun = {}): MiniflareOptions {
  return {
    modules: true,
    scriptPath: bundle,
    modulesRoot: dirname(bundle),
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: COMPATIBILITY_FLAGS,
    durableObjects: { GATEWAY: { className: "GatewayObject", useSQLite: true } },
    bindings: run.env ?? {},
    port: run.port ?? 8080,
    host: run.host ?? "127.0.0.1",
    ...(run.persistTo ? { durableObjectsPersist: run.persistTo } : {}),
  } as MiniflareOptions;
}

/** Fires the worker's cron trigger once, as of `at` (the trigger's scheduled time); resolves once the handler has run. */
export async function fireScheduled(mf: Miniflare, at: Date): Promise<void> {
  // miniflare's Fetcher type (workers-types) is not installed: the part used here
  const worker = (await mf.getWorker()) as unknown as { scheduled(o: { cron: string; scheduledTime: Date }): Promise<unknown> };
  await worker.scheduled({ cron: "* * * * *", scheduledTime: at });
}

/** Fires the worker's cron trigger every minute, on the minute, as the Workers platform does; returns a stop function. */
export function fireCron(mf: Miniflare, onError: (e: unknown) => void = () => {}): () => void {
  let timer: ReturnType<typeof setTimeout>;
  const next = () => {
    timer = setTimeout(async () => {
      try {
        await fireScheduled(mf, new Date(Math.floor(Date.now() / 60_000) * 60_000));
      } catch (e) {
        onError(e);
      }
      next();
    }, 60_000 - (Date.now() % 60_000));
  };
  next();
  return () => clearTimeout(timer);
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

if (import.meta.main) {
  const { Miniflare } = await import("miniflare");
  const args = process.argv.slice(2);
  const bundle = await buildWorkerBundle();
  const data = flag(args, "--data") ?? join(ROOT, "svc-data/worker");
  mkdirSync(data, { recursive: true });
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => /^[A-Z][A-Z0-9_]*$/.test(k) && v !== undefined)) as Record<string, string>;
  const port = Number(flag(args, "--port") ?? process.env.PORT ?? 8080);
  const mf = new Miniflare(workerOptions(bundle, { port, host: flag(args, "--host") ?? "127.0.0.1", env, persistTo: data }));
  // SIGINT/SIGTERM: miniflare's own exit hook stops workerd and ends the process (128 + the signal)
  const url = await mf.ready;
  fireCron(mf, (e) => console.error("cron:", e));
  console.log(`svc-gateway is running on workerd at ${url} (data in ${data})`);
}
