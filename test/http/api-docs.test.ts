/**
 * docs/api.md and the routes the gateway serves, held together: every route
 * of the running app has an entry in the doc, and every route the doc names
 * is served. How the doc writes a route is in its section "How routes are
 * written here".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ROOT } from "../helpers/paths.ts";

const METHOD = "GET|POST|PUT|PATCH|DELETE|HEAD|WS";
/** `GET /path`, `GET|HEAD /path`, with an optional query (`?a=&b=`), alone in backticks */
const ROUTE_SPAN = new RegExp(`\`((?:${METHOD})(?:\\|(?:${METHOD}))*) (/[^\`\\s?]*)(?:\\?[^\`\\s]*)?\``, "g");

interface Named {
  method: string;
  path: string;
  line: number;
}

function spans(text: string, line: number): Named[] {
  return [...text.matchAll(ROUTE_SPAN)].flatMap((m) => m[1]!.split("|").map((method) => ({ method, path: m[2]!, line })));
}

/**
 * What a doc names: `entries`, the routes a heading, a list item or a table
 * row begins with (a heading or a row: every route in it, a row's first cell;
 * a list item: every route of the item); `mentions`, every route in backticks
 * anywhere, code blocks left out.
 */
export function namedRoutes(md: string): { entries: Named[]; mentions: Named[] } {
  const entries: Named[] = [];
  const mentions: Named[] = [];
  let inCode = false;
  let item: { indent: number } | null = null;
  md.split("\n").forEach((text, i) => {
    const line = i + 1;
    if (/^\s*```/.test(text)) inCode = !inCode;
    if (inCode) return;
    mentions.push(...spans(text, line));
    const listItem = /^(\s*)(?:[-*]|\d+\.) (.*)$/.exec(text);
    if (/^#{2,4} /.test(text)) {
      entries.push(...spans(text, line));
      item = null;
    } else if (text.startsWith("|")) {
      const first = firstCell(text);
      if (new RegExp(`^\`(?:${METHOD})\\b`).test(first)) entries.push(...spans(first, line));
      item = null;
    } else if (listItem) {
      item = new RegExp(`^\`(?:${METHOD})\\b`).test(listItem[2]!) ? { indent: listItem[1]!.length } : null;
      if (item) entries.push(...spans(listItem[2]!, line));
    } else if (item && text.trim() && text.search(/\S/) > item.indent) {
      entries.push(...spans(text, line));
    } else if (text.trim()) item = null;
  });
  return { entries, mentions };
}

/** A table row's first cell (a `|` inside backticks is the cell's text, not its end). */
function firstCell(row: string): string {
  let code = false;
  for (let i = 1; i < row.length; i++) {
    if (row[i] === "`") code = !code;
    else if (row[i] === "|" && !code) return row.slice(1, i).trim();
  }
  return row.slice(1).trim();
}

/** A route pattern as the router matches it: `:name` is one segment, a trailing `*` the rest. */
function matcher(pattern: string): RegExp {
  const body = pattern
    .split(/(:[A-Za-z0-9_]+|\*$)/)
    .map((part) => (part === "*" ? ".*" : part.startsWith(":") ? "[^/]+" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

const shape = (path: string) => path.replace(/:[A-Za-z0-9_]+/g, ":").replace(/\*$/, ":");

/**
 * The served route a named one is (the same shape first, then the pattern
 * that matches it), or null. A `GET` names the WebSocket route of its path
 * when no GET route is there.
 */
export function routeFor(n: Pick<Named, "method" | "path">, routes: Array<{ method: string; path: string }>): string | null {
  const mine = [...routes.filter((r) => r.method === n.method), ...routes.filter((r) => n.method === "GET" && r.method === "WS")];
  const exact = mine.find((r) => shape(r.path) === shape(n.path)) ?? mine.find((r) => matcher(r.path).test(n.path));
  return exact ? `${exact.method} ${exact.path}` : null;
}

let g: Running;
let routes: Array<{ method: string; path: string }>;
const md = readFileSync(join(ROOT, "docs/api.md"), "utf8");

beforeAll(async () => {
  g = await startInProcess({});
  routes = (g.gw.app.routes as Array<{ method: string; path: string }>).map((r) => ({ method: r.method, path: r.path }));
});
afterAll(async () => {
  await g.stop();
});

describe("docs/api.md and the routes", () => {
  test("the reader finds entries and mentions, and matches them to routes (a control)", () => {
    const sample = [
      "### `GET /api/caches/:id` (public)",
      "### Two: `GET|PUT /api/prefs`, `POST /x?y=`",
      "- `DELETE /api/views/:id` → `204`; also",
      "  `PUT /api/views/:id` with any field",
      "- see `GET /not/an/entry` here",
      "| `GET /api/v1/caches/:id` | a cache |",
      '| `POST /api/v1` with `{"a"|"b"}` | `GET /not/first/cell` |',
      "| 200 | `GET /in/a/cell` |",
      "```",
      "GET /in/code",
      "```",
    ].join("\n");
    const { entries, mentions } = namedRoutes(sample);
    expect(entries.map((e) => `${e.method} ${e.path}`)).toEqual([
      "GET /api/caches/:id",
      "GET /api/prefs",
      "PUT /api/prefs",
      "POST /x",
      "DELETE /api/views/:id",
      "PUT /api/views/:id",
      "GET /api/v1/caches/:id",
      "POST /api/v1",
    ]);
    expect(mentions.map((e) => `${e.method} ${e.path}`)).toContain("GET /not/an/entry");
    const served = [
      { method: "GET", path: "/api/caches/near" },
      { method: "GET", path: "/api/caches/:code" },
      { method: "WS", path: "/ws" },
      { method: "GET", path: "/feeds/*" },
    ];
    expect(routeFor({ method: "GET", path: "/api/caches/:id" }, served)).toBe("GET /api/caches/:code");
    expect(routeFor({ method: "GET", path: "/api/caches/near" }, served)).toBe("GET /api/caches/near");
    expect(routeFor({ method: "GET", path: "/api/caches/42" }, served)).toBe("GET /api/caches/:code");
    expect(routeFor({ method: "GET", path: "/ws" }, served)).toBe("WS /ws");
    expect(routeFor({ method: "GET", path: "/feeds/caches.rss" }, served)).toBe("GET /feeds/*");
    expect(routeFor({ method: "POST", path: "/api/caches/:id" }, served)).toBeNull();
  });

  test("every route the gateway serves has an entry in docs/api.md", () => {
    expect(routes.length).toBeGreaterThan(200);
    const documented = new Set(namedRoutes(md).entries.map((e) => routeFor(e, routes)));
    // a WebSocket route is written as the GET that upgrades
    const key = (r: { method: string; path: string }) => (r.method === "WS" && documented.has(`GET ${r.path}`) ? `GET ${r.path}` : `${r.method} ${r.path}`);
    expect(routes.map(key).filter((r) => !documented.has(r))).toEqual([]);
  });

  test("every route docs/api.md names is served", () => {
    const stale = namedRoutes(md)
      .mentions.filter((n) => routeFor(n, routes) === null)
      .map((n) => `docs/api.md:${n.line}: ${n.method} ${n.path}`);
    expect(stale).toEqual([]);
  });
});
