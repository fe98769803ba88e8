/** The cache record the federation benches publish and apply. */
import { cacheToWire } from "../../src/lib/fed/bodies.ts";

/** The i-th bench cache's record body: spread over the world, with a hint and `description`. */
export function benchCacheBody(i: number, description = "A short walk from the car park along the river. Bring a pen; the log is small.") {
  return cacheToWire({
    name: `Bench cache number ${i}`,
    type: "traditional",
    size: "small",
    difficulty: 1 + (i % 9) / 2,
    terrain: 1 + ((i >> 3) % 9) / 2,
    lat: -60 + ((i * 7919) % 1_200_000) / 10_000,
    lon: -180 + ((i * 104729) % 3_600_000) / 10_000,
    status: "active",
    hint: "Under the third stone from the left, behind the bench.",
    description,
    ownerCall: "N0OWN",
    placedAt: 1_600_000_000_000 + i * 1000,
  });
}
