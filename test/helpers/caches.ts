/** Caches made through the API, as their owner hides them. */
import { expect } from "bun:test";
import type { Running } from "./gateway.ts";
import type { TestUser } from "./accounts.ts";

/** What the API answers for a cache just hidden. */
export interface HiddenCache {
  id: number;
  gid: string;
  code: string;
}

/**
 * `by` hides a cache on `g` through POST /api/caches: a traditional, small,
 * D2/T2 one unless `fields` say otherwise. Expects 201.
 */
export async function hideCache(g: Running, by: TestUser, fields: { name: string; lat: number; lon: number } & Record<string, unknown>): Promise<HiddenCache> {
  const r = await g.post("/api/caches", { type: "traditional", size: "small", difficulty: 2, terrain: 2, ...fields }, { headers: { cookie: by.cookie } });
  expect(r.status).toBe(201);
  return (await r.json()) as HiddenCache;
}
