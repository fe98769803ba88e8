/**
 * Cache attributes (issue 29 item 4): the owner sets Groundspeak's yes/no
 * attributes on hiding and editing; the cache, /api/v1 and the map and near
 * queries show them; `attr=` filters in SQL before the limit; an unknown id
 * is a 400 that changes nothing; and a GPX export carries them as
 * groundspeak:attributes (valid against the Groundspeak schema, read by
 * gpsbabel) that an import on another gateway reads back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { count } from "../helpers/fed.ts";
import { tmpDir } from "../helpers/tmp.ts";

const XSD = join(import.meta.dir, "../fixtures/xsd/pocket-query.xsd");
let g: Running;
let owner: TestUser;
let other: TestUser;
const ids: Record<string, number> = {};
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const patch = (id: number, body: unknown, who = owner) =>
  g.get(`/api/caches/${id}`, { method: "PATCH", body: JSON.stringify(body), headers: { cookie: who.cookie, "content-type": "application/json" } });
const detail = async (id: number | string) => (await (await g.get(`/api/caches/${id}`)).json()) as { attributes: Array<{ id: number; inc: boolean }> };
const BOX = "8.40,47.30,8.60,47.50";
const names = async (path: string) => {
  const r = await g.get(path);
  expect(r.status).toBe(200);
  return ((await r.json()) as { caches: Array<{ name: string }> }).caches.map((c) => c.name).sort();
};
const run = (cmd: string[]) => {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? -1, out: p.stdout.toString(), err: p.stderr.toString() };
};

beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1", RATE_LIMIT_PER_MINUTE: "1000", PUBLIC_URL: "https://gw1.example.org" });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  other = signedInUser(g.gw, "N0OTH", { verified: true });
  const hide = async (name: string, lat: number, attributes?: unknown) => {
    const r = await g.post(
      "/api/caches",
      { name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon: 8.5, ...(attributes ? { attributes } : {}) },
      as(owner),
    );
    expect(r.status).toBe(201);
    return ((await r.json()) as { id: number }).id;
  };
  // nearest the point 47.4,8.5 first: Plain, then Bike park, then Dog walk
  ids.plain = await hide("Plain", 47.4);
  ids.bikes = await hide("Bike park", 47.41, [{ id: 32, inc: true }]);
  ids.dogs = await hide("Dog walk", 47.42, [
    { id: 32, inc: false },
    { id: 1, inc: true },
    { id: 8, inc: true },
  ]);
}, 60_000);
afterAll(() => g.stop());

describe("attributes on a cache", () => {
  test("set on hiding, shown by id in order, in the cache, the map and /api/v1; the owner edits and clears them", async () => {
    expect((await detail(ids.dogs!)).attributes).toEqual([
      { id: 1, inc: true },
      { id: 8, inc: true },
      { id: 32, inc: false },
    ]);
    expect((await detail(ids.plain!)).attributes).toEqual([]);
    const v1 = (await (await g.get(`/api/v1/caches/${ids.dogs}`)).json()) as { attributes: unknown };
    expect(v1.attributes).toEqual([
      { id: 1, inc: true },
      { id: 8, inc: true },
      { id: 32, inc: false },
    ]);
    const map = (await (await g.get(`/api/caches?bbox=${BOX}`)).json()) as { caches: Array<{ name: string; attributes: unknown }> };
    expect(map.caches.find((c) => c.name === "Bike park")!.attributes).toEqual([{ id: 32, inc: true }]);

    const r = await patch(ids.plain!, { attributes: [{ id: 25, inc: true }] });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { attributes: unknown }).attributes).toEqual([{ id: 25, inc: true }]);
    expect((await detail(ids.plain!)).attributes).toEqual([{ id: 25, inc: true }]);
    // someone else's cache: refused, unchanged
    expect((await patch(ids.plain!, { attributes: [] }, other)).status).toBe(403);
    expect((await detail(ids.plain!)).attributes).toEqual([{ id: 25, inc: true }]);
    expect((await patch(ids.plain!, { attributes: null })).status).toBe(200);
    expect((await detail(ids.plain!)).attributes).toEqual([]);
  });

  test("an unknown id, a repeated one or a malformed entry is a 400 naming it, and changes nothing", async () => {
    const before = count(g.gw, "caches");
    for (const [attributes, says] of [
      [[{ id: 16, inc: true }], "unknown attribute id 16"],
      [[{ id: 999, inc: false }], "unknown attribute id 999"],
      [[{ id: "1", inc: true }], "attributes"],
      [[{ id: 1, inc: 1 }], "attributes"],
      [
        [
          { id: 1, inc: true },
          { id: 1, inc: false },
        ],
        "attribute 1 is given twice",
      ],
      [[{ id: 1, inc: true, name: "Dogs" }], `unknown field "name"; it takes id, inc`],
      [{ 1: true }, "attributes"],
    ] as Array<[unknown, string]>) {
      const hide = await g.post(
        "/api/caches",
        { name: "Bad", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 47, lon: 8, attributes },
        as(owner),
      );
      expect(hide.status).toBe(400);
      const e = (await hide.json()) as { error: string; message: string };
      expect(e.error).toBeString();
      expect(e.message).toContain(says);
      const edit = await patch(ids.dogs!, { attributes });
      expect(edit.status).toBe(400);
    }
    expect(count(g.gw, "caches")).toBe(before);
    expect((await detail(ids.dogs!)).attributes).toEqual([
      { id: 1, inc: true },
      { id: 8, inc: true },
      { id: 32, inc: false },
    ]);
  });
});

describe("the attr= filter", () => {
  test("bbox, near and /api/v1 keep the caches with every attribute asked, yes or no", async () => {
    expect(await names(`/api/caches?bbox=${BOX}&attr=1`)).toEqual(["Dog walk"]);
    expect(await names(`/api/caches?bbox=${BOX}&attr=32`)).toEqual(["Bike park"]);
    expect(await names(`/api/caches?bbox=${BOX}&attr=-32`)).toEqual(["Dog walk"]);
    expect(await names(`/api/caches?bbox=${BOX}&attr=1,-32,8`)).toEqual(["Dog walk"]);
    expect(await names(`/api/caches?bbox=${BOX}&attr=1,32`)).toEqual([]);
    expect(await names(`/api/v1/caches?attr=32`)).toEqual(["Bike park"]);
    expect(await names(`/api/v1/caches?near=47.4,8.5&attr=-32`)).toEqual(["Dog walk"]);
  });

  test("applied before the limit: the nearest matching cache, not the nearest cache filtered away; a small bbox limit lists rather than clusters", async () => {
    expect(await names("/api/caches?near=47.4,8.5&limit=1&attr=1")).toEqual(["Dog walk"]);
    expect(await names("/api/caches?near=47.4,8.5&limit=1")).toEqual(["Plain"]);
    const r = (await (await g.get(`/api/caches?bbox=${BOX}&limit=1&attr=8`)).json()) as { clustered: boolean; caches: Array<{ name: string }> };
    expect(r.clustered).toBe(false);
    expect(r.caches.map((c) => c.name)).toEqual(["Dog walk"]);
  });

  test("an unknown or malformed id is a 400", async () => {
    for (const attr of ["16", "1,999", "-68", "dogs", "1;2", ""]) {
      const r = await g.get(`/api/caches?bbox=${BOX}&attr=${encodeURIComponent(attr)}`);
      if (attr === "") {
        expect(r.status).toBe(200);
        continue;
      }
      expect(r.status).toBe(400);
      expect(((await r.json()) as { message: string }).message).toMatch(/attr|attribute/);
    }
    expect((await g.get("/api/caches?near=47.4,8.5&attr=16")).status).toBe(400);
    expect((await g.get("/api/v1/caches?attr=0")).status).toBe(400);
  });
});

describe("GPX", () => {
  test("the export writes groundspeak:attributes, valid and read by gpsbabel; another gateway's import reads them back", async () => {
    const dir = tmpDir();
    const gpx = await (await g.get(`/api/v1/caches.gpx?bbox=${BOX}`)).text();
    expect(gpx).toContain(
      [
        "<groundspeak:attributes>",
        '        <groundspeak:attribute id="1" inc="1">Dogs</groundspeak:attribute>',
        '        <groundspeak:attribute id="8" inc="1">Scenic view</groundspeak:attribute>',
        '        <groundspeak:attribute id="32" inc="0">Bicycles</groundspeak:attribute>',
        "      </groundspeak:attributes>",
      ].join("\n"),
    );
    const file = join(dir, "attrs.gpx");
    await Bun.write(file, gpx);
    const v = run(["xmllint", "--noout", "--schema", XSD, file]);
    expect({ code: v.code, err: v.err.trim() }).toEqual({ code: 0, err: `${file} validates` });
    const b = run(["gpsbabel", "-i", "gpx", "-f", file, "-o", "unicsv", "-F", "-"]);
    expect(b.code).toBe(0);
    expect(b.out).toContain("Dog walk");
    // attributes out of order against the schema fail it: the check is real
    const wrong = join(dir, "wrong.gpx");
    await Bun.write(wrong, gpx.replace(/(<groundspeak:attributes>[\s\S]*?<\/groundspeak:attributes>\n)(\s*<groundspeak:difficulty>[^\n]*\n)/, "$2$1"));
    expect(run(["xmllint", "--noout", "--schema", XSD, wrong]).code).not.toBe(0);

    const g2 = await startInProcess({ INSTANCE: "gw2" });
    try {
      const imp = signedInUser(g2.gw, "N0IMP", { verified: true });
      const post = (body: string) =>
        g2.get("/api/import/gpx", { method: "POST", body, headers: { cookie: imp.cookie, "content-type": "application/gpx+xml" } });
      expect(await (await post(gpx)).json()).toMatchObject({ caches: 3, created: 3 });
      const attrsOf = async (name: string) => {
        const m = (await (await g2.get(`/api/caches?bbox=${BOX}`)).json()) as { caches: Array<{ id: number; name: string }> };
        const r = (await (await g2.get(`/api/caches/${m.caches.find((c) => c.name === name)!.id}`)).json()) as { attributes: unknown };
        return r.attributes;
      };
      expect(await attrsOf("Dog walk")).toEqual([
        { id: 1, inc: true },
        { id: 8, inc: true },
        { id: 32, inc: false },
      ]);
      expect(await attrsOf("Bike park")).toEqual([{ id: 32, inc: true }]);
      expect(await attrsOf("Plain")).toEqual([]);
      // the same file again changes nothing; a flipped attribute is an update
      expect(await (await post(gpx)).json()).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
      expect(await (await post(gpx.replace('id="32" inc="0"', 'id="32" inc="1"'))).json()).toMatchObject({ updated: 1, unchanged: 2 });
      expect(await attrsOf("Dog walk")).toEqual([
        { id: 1, inc: true },
        { id: 8, inc: true },
        { id: 32, inc: true },
      ]);
      // the import filters like any cache
      const f = (await (await g2.get(`/api/caches?bbox=${BOX}&attr=1`)).json()) as { caches: Array<{ name: string }> };
      expect(f.caches.map((c) => c.name)).toEqual(["Dog walk"]);
    } finally {
      await g2.stop();
    }
  });
});
