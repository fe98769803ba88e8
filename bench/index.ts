export {};
/**
 * `bun run bench [name...]`: runs the benchmarks and prints their figures.
 * Machines here are shared and noisy: read ratios against the reference runs
 * printed beside each figure, and repeat before trusting a small difference.
 */
const BENCHES: Record<string, () => Promise<unknown>> = {
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
  "game-mirrors": () => import("./game-mirrors.ts").then((m) => m.run()),
  "sqlite-cache": () => import("./sqlite-cache.ts").then((m) => m.run()),
  "fk-index": () => import("./fk-index.ts").then((m) => m.run()),
  svcfed: () => import("./svcfed.ts").then((m) => m.run()),
  import: () => import("./import.ts").then((m) => m.run()),
  fuzz: () => import("./fuzz.ts").then((m) => m.run()),
  hub: () => import("./hub.ts").then((m) => m.run()),
  map: () => import("./map.ts").then((m) => m.run()),
  wal: () => import("./wal.ts").then((m) => m.run()),
  "slow-3g": () => import("./slow3g.ts").then((m) => m.run()),
  runtimes: () => import("./runtimes.ts").then((m) => m.run()),
};

const wanted = process.argv.slice(2);
for (const name of wanted.length ? wanted : Object.keys(BENCHES)) {
  const b = BENCHES[name];
  if (!b) {
    console.error(`unknown bench ${name}; known: ${Object.keys(BENCHES).join(", ")}`);
    process.exit(2);
  }
  await b();
}
