/**
 * Deleting a user row (what an account erase ends with) cascades into every
 * table that references users. Without an index on the referencing column
 * SQLite scans the whole table for each deleted user. This bench fills
 * 20,000 users with 200,000 device keys and 200,000 ratings, then deletes
 * 200 users one by one, on the schema before migration 19 (no index on
 * device_keys.user_id, ratings.user_id, ...) and on the current one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS, openStore } from "../src/core/store/db.ts";
import { table } from "./lib/stats.ts";

function deleteUsers(upTo: number): number {
  const dir = mkdtempSync(join(tmpdir(), "bench-fk-"));
  const db = openStore(join(dir, "fk.db"), { upTo });
  const U = 20_000;
  db.transaction(() => {
    const u = db.query("INSERT INTO users (id, created_at) VALUES (?, 0)");
    const c = db.query(
      "INSERT INTO caches (id, owner_call, name, type, size, difficulty, terrain, lat, lon, status, placed_at, created_at, updated_at) VALUES (?, 'N0BEN', 'c', 'traditional', 'small', 1, 1, 0, 0, 'active', 0, 0, 0)",
    );
    const k = db.query("INSERT INTO device_keys (user_id, call, public_key, created_at) VALUES (?, 'N0BEN', ?, 0)");
    const r = db.query("INSERT INTO ratings (cache_id, user_id, stars, created_at) VALUES (?, ?, 3, 0)");
    for (let i = 1; i <= U; i++) u.run(i);
    for (let i = 1; i <= 10; i++) c.run(i);
    for (let i = 0; i < 200_000; i++) k.run(1 + (i % U), `key-${i}`);
    for (let i = 0; i < 200_000; i++) r.run(1 + Math.floor(i / U), 1 + (i % U));
  })();
  const del = db.query("DELETE FROM users WHERE id = ?");
  const t = performance.now();
  for (let i = 1; i <= 200; i++) del.run(i * 97);
  const ms = performance.now() - t;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

export async function run() {
  const before = deleteUsers(18);
  const after = deleteUsers(MIGRATIONS.length);
  console.log("\nDELETE of 200 users (cascading into 200,000 device keys and 200,000 ratings)");
  console.log(
    table([
      { schema: "before migration 19 (no FK indexes)", ms: before.toFixed(1), perUserMs: (before / 200).toFixed(2) },
      { schema: `current (migration ${MIGRATIONS.length})`, ms: after.toFixed(1), perUserMs: (after / 200).toFixed(3) },
      { schema: "ratio", ms: (before / after).toFixed(0) + "x", perUserMs: "" },
    ]),
  );
}

if (import.meta.main) await run();
