/**
 * The operator's view of the running process and its jobs: GET /api/admin/runtime
 * (memory, descriptors, WAL, event-loop delay), GET /api/admin/jobs and
 * POST /api/admin/jobs/:name/run, each refused to anyone but a sysop.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";

const INGEST = "ingest-secret-0123456789";
const sysop = { "x-ingest-secret": INGEST };
let g: Running;
beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST, ADMIN_CALLSIGNS: "N0OPS" });
});
afterAll(() => g.stop());

test("the runtime figures: refused without sysop, then memory, descriptors, WAL and the loop's delay since the last read", async () => {
  const anon = await g.get("/api/admin/runtime");
  expect(anon.status).toBe(401);
  const user = signedInUser(g.gw, "N0USR", { verified: true });
  const plain = await g.get("/api/admin/runtime", { headers: { cookie: user.cookie } });
  expect(plain.status).toBe(403);
  expect((await plain.json()).error).toBe("not_sysop");

  const first = await (await g.get("/api/admin/runtime", { headers: sysop })).json();
  expect(first).toMatchObject({ pid: process.pid });
  // the loop monitor is the process's: null only if nothing read it before (another test file in this process may have)
  expect(first.eventLoop === null || typeof first.eventLoop.p99Ms === "number").toBe(true);
  expect(first.rssMb).toBeGreaterThan(10);
  // the resident set in its two parts (Linux): files' pages and the process's own memory, read together
  expect(first.rssFileMb).toBeGreaterThan(1);
  expect(first.rssAnonMb).toBeGreaterThan(1);
  expect(Math.abs(first.rssFileMb + first.rssAnonMb - first.rssMb)).toBeLessThan(first.rssMb * 0.1);
  expect(first.heapUsedMb).toBeGreaterThan(0);
  // what JavaScriptCore's heap spans holds what is used in it
  expect(first.heapCapacityMb).toBeGreaterThanOrEqual(first.heapUsedMb * 0.9);
  // the governor's own collections (system/heap-governor.ts): a count, none asked by a gateway that is not serving
  expect(Number.isInteger(first.heapCollections) && first.heapCollections >= 0).toBe(true);
  expect(first.openFds).toBeGreaterThan(2);
  expect(first.walBytes).toBeGreaterThanOrEqual(0);
  await Bun.sleep(100);
  const second = await (await g.get("/api/admin/runtime", { headers: sysop })).json();
  expect(second.eventLoop.p99Ms).toBeGreaterThanOrEqual(0);
  expect(second.eventLoop.maxMs).toBeGreaterThanOrEqual(second.eventLoop.p99Ms);
  expect(second.collected).toBe(false);
  // ?gc: a full collection first, so reads compare what stays live
  const collected = await (await g.get("/api/admin/runtime?gc=1", { headers: sysop })).json();
  expect(collected.collected).toBe(true);
  expect(collected.heapUsedMb).toBeGreaterThan(0);
  expect((await g.get("/api/admin/runtime?gc=1")).status).toBe(401);
});

test("jobs: listed and run now by a sysop; an unknown job is 404; anyone else is refused and nothing runs", async () => {
  const before = await (await g.get("/api/admin/jobs", { headers: sysop })).json();
  const prune = before.jobs.find((j: { name: string }) => j.name === "prune");
  expect(prune).toMatchObject({ schedule: "7 * * * *", lastStartedAt: null });

  expect((await g.post("/api/admin/jobs/prune/run", {})).status).toBe(401);
  expect((await g.get("/api/admin/jobs")).status).toBe(401);
  const still = await (await g.get("/api/admin/jobs", { headers: sysop })).json();
  expect(still.jobs.find((j: { name: string }) => j.name === "prune").lastStartedAt).toBeNull();

  const missing = await g.post("/api/admin/jobs/nope/run", {}, { headers: sysop });
  expect(missing.status).toBe(404);
  expect((await missing.json()).error).toBe("not_found");

  const ran = await g.post("/api/admin/jobs/prune/run", {}, { headers: sysop });
  expect(ran.status).toBe(200);
  const body = await ran.json();
  expect(body).toMatchObject({ job: "prune", error: null });
  expect(typeof body.result).toBe("object");
  const after = await (await g.get("/api/admin/jobs", { headers: sysop })).json();
  expect(after.jobs.find((j: { name: string }) => j.name === "prune").lastFinishedAt).toBeGreaterThan(0);
});
