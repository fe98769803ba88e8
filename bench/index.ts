export {};
/**
 * `bun run bench [name...]`: runs the benchmarks and prints their figures.
 * Machines here are shared and noisy: read ratios against the reference runs
 * printed beside each figure, and repeat before trusting a small difference.
 */
const BENCHES: Record<string, (args: string[]) => Promise<unknown>> = {
  startup: () => import("./startup.ts").then((m) => m.run()),
  offline: () => import("./offline.ts").then((m) => m.run()),
  bbs: () => import("./bbs.ts").then((m) => m.run()),
  prune: () => import("./prune.ts").then((m) => m.run()),
  aprs: () => import("./aprs.ts").then((m) => m.run()),
  "radio-link": () => import("./radio-link.ts").then((m) => m.run()),
  "radio-sync": () => import("./radio-sync.ts").then((m) => m.run()),
  accounts: () => import("./accounts.ts").then((m) => m.run()),
  fed: () => import("./fed.ts").then((m) => m.run()),
  sync: () => import("./sync.ts").then((m) => m.run()),
  live: () => import("./live.ts").then((m) => m.run()),
  game: () => import("./game.ts").then((m) => m.run()),
  attributes: () => import("./attributes.ts").then((m) => m.run()),
  "game-mirrors": () => import("./game-mirrors.ts").then((m) => m.run()),
  "sqlite-cache": () => import("./sqlite-cache.ts").then((m) => m.run()),
  "fk-index": () => import("./fk-index.ts").then((m) => m.run()),
  svcfed: () => import("./svcfed.ts").then((m) => m.run()),
  import: () => import("./import.ts").then((m) => m.run()),
  bodies: () => import("./bodies.ts").then((m) => m.run()),
  search: () => import("./search.ts").then((m) => m.run()),
  digipeat: () => import("./digipeat.ts").then((m) => m.run()),
  igate: () => import("./igate.ts").then((m) => m.run()),
  "radio-play": () => import("./radio-play.ts").then((m) => m.run()),
  fuzz: () => import("./fuzz.ts").then((m) => m.run()),
  hub: () => import("./hub.ts").then((m) => m.run()),
  map: () => import("./map.ts").then((m) => m.run()),
  wal: () => import("./wal.ts").then((m) => m.run()),
  "slow-3g": () => import("./slow3g.ts").then((m) => m.run()),
  runtimes: () => import("./runtimes.ts").then((m) => m.run()),
  tls: () => import("./tls.ts").then((m) => m.run()),
  // hours of mixed load against a gateway process: `bun run bench soak --hours 2 --every-min 5`
  soak: (args) => import("./soak.ts").then((m) => m.run(args)),
};

// bench names, then options for them (from the first --option on)
const argv = process.argv.slice(2);
const firstOption = argv.findIndex((a) => a.startsWith("--"));
const wanted = firstOption < 0 ? argv : argv.slice(0, firstOption);
const options = firstOption < 0 ? [] : argv.slice(firstOption);
// the soak runs for hours: only when named
for (const name of wanted.length ? wanted : Object.keys(BENCHES).filter((b) => b !== "soak")) {
  const b = BENCHES[name];
  if (!b) {
    console.error(`unknown bench ${name}; known: ${Object.keys(BENCHES).join(", ")}`);
    process.exit(2);
  }
  await b(options);
}
