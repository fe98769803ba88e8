/**
 * Saved map views: a name and where the map looks (centre, zoom, layers,
 * filters). The random id makes a share link, `/v/:id`, which opens the map
 * there; anyone with the link can open it, nobody can list them.
 */
import { randomBytes } from "node:crypto";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { badRequest, conflict, notFound } from "../lib/errors.ts";
import { closed, unixMs } from "../lib/schema.ts";

export const MAX_VIEWS = 100;

const token = /^[A-Za-z0-9_-]{1,32}$/;

/** A saved map view's fields: their types here; the ranges and names are checked by parseView. */
const VIEW_FIELDS = {
  name: t.String({ description: "1 to 80 characters" }),
  lat: t.Number({ description: "the centre's latitude, -90 to 90" }),
  lon: t.Number({ description: "the centre's longitude, -180 to 180" }),
  zoom: t.Number({ description: "the zoom, 0 to 22" }),
  layers: t.Optional(t.Array(t.String(), { description: "up to 20 layer names" })),
  filters: t.Optional(
    t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean()]), {
      description: "up to 20 short names mapped to short text, numbers or true/false",
    }),
  ),
};
const { name: _name, ...STATE_FIELDS } = VIEW_FIELDS;
/** Where a saved view's map looks (its stored state). */
export const VIEW_STATE = closed(STATE_FIELDS);
/** A new view (POST /api/views; a moved account's views, checked with check()). */
export const VIEW_BODY = closed(VIEW_FIELDS);
export type ViewBody = Static<typeof VIEW_BODY>;
/** A change to a view (PUT /api/views/:id): any of the fields. */
export const VIEW_PATCH = t.Partial(VIEW_BODY);
export type ViewPatch = Static<typeof VIEW_PATCH>;

/** A saved view as its owner sees it (GET /api/views lists them; POST and PUT answer one). */
export const SAVED_VIEW = closed({
  id: t.String({ description: "its random id: the share link is /v/{id}" }),
  ...VIEW_FIELDS,
  createdAt: unixMs(),
  updatedAt: unixMs(),
});
export type SavedView = Static<typeof SAVED_VIEW>;
type ViewState = Static<typeof VIEW_STATE>;

/** Checks what the schema cannot: the name, the ranges, the layer and filter names. */
function parseView(body: ViewPatch): Partial<ViewState> & { name?: string } {
  const out: Partial<ViewState> & { name?: string } = {};
  if (body.name !== undefined) {
    if (!body.name.trim() || body.name.length > 80) throw badRequest("invalid", "name must be 1 to 80 characters");
    out.name = body.name.trim();
  }
  const num = (k: "lat" | "lon" | "zoom", min: number, max: number) => {
    const v = body[k];
    if (v === undefined) return;
    if (!Number.isFinite(v) || v < min || v > max) throw badRequest("invalid", `${k} must be a number from ${min} to ${max}`);
    out[k] = k === "zoom" ? Math.round(v) : Math.round(v * 1e7) / 1e7;
  };
  num("lat", -90, 90);
  num("lon", -180, 180);
  num("zoom", 0, 22);
  if (body.layers !== undefined) {
    if (body.layers.length > 20 || !body.layers.every((l) => token.test(l))) throw badRequest("invalid", "layers must be a list of up to 20 layer names");
    out.layers = body.layers;
  }
  if (body.filters !== undefined) {
    const f = body.filters;
    if (Object.keys(f).length > 20) throw badRequest("invalid", "filters must be an object of up to 20 entries");
    for (const [k, v] of Object.entries(f)) {
      if (!token.test(k) || (typeof v === "string" && v.length > 100)) {
        throw badRequest("invalid", "filters map short names to short text, numbers or true/false");
      }
    }
    out.filters = f;
  }
  return out;
}

type Row = { id: string; name: string; state: string; createdAt: number; updatedAt: number };
const toView = (r: Row): SavedView => ({ id: r.id, name: r.name, ...JSON.parse(r.state), createdAt: r.createdAt, updatedAt: r.updatedAt });
const COLS = "id, name, state, created_at AS createdAt, updated_at AS updatedAt";

export function viewsOf(gw: Core, userId: number): SavedView[] {
  return (gw.db.query(`SELECT ${COLS} FROM views WHERE user_id = ? ORDER BY created_at`).all(userId) as Row[]).map(toView);
}

export function createView(gw: Core, userId: number, body: ViewBody): SavedView {
  const { name, ...state } = parseView(body);
  const id = randomBytes(9).toString("base64url");
  const now = gw.clock.now();
  gw.db.transaction(() => {
    const n = (gw.db.query("SELECT COUNT(*) AS n FROM views WHERE user_id = ?").get(userId) as { n: number }).n;
    if (n >= MAX_VIEWS) throw conflict("too_many_views", `an account keeps at most ${MAX_VIEWS} views`);
    gw.db
      .query("INSERT INTO views (id, user_id, name, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(id, userId, name!, JSON.stringify(state), now, now);
  })();
  return { id, name: name!, ...(state as ViewState), createdAt: now, updatedAt: now };
}

export function updateView(gw: Core, userId: number, id: string, body: ViewPatch): SavedView {
  const change = parseView(body);
  return gw.db.transaction(() => {
    const row = gw.db.query(`SELECT ${COLS} FROM views WHERE id = ? AND user_id = ?`).get(id, userId) as Row | null;
    if (!row) throw notFound("view");
    const { name, ...state } = { ...toView(row), ...change };
    const { id: _i, createdAt: _c, updatedAt: _u, ...rest } = state as SavedView;
    gw.db.query("UPDATE views SET name = ?, state = ?, updated_at = ? WHERE id = ?").run(name, JSON.stringify(rest), gw.clock.now(), id);
    return toView(gw.db.query(`SELECT ${COLS} FROM views WHERE id = ?`).get(id) as Row);
  })();
}

export function deleteView(gw: Core, userId: number, id: string): void {
  if (gw.db.query("DELETE FROM views WHERE id = ? AND user_id = ?").run(id, userId).changes === 0) throw notFound("view");
}

/** Where `/v/:id` sends the browser: the map at that view. */
export function viewLocation(gw: Core, id: string): string {
  const row = token.test(id) ? (gw.db.query(`SELECT ${COLS} FROM views WHERE id = ?`).get(id) as Row | null) : null;
  if (!row) throw notFound("saved view");
  const v = toView(row);
  const q = new URLSearchParams({ lat: String(v.lat), lon: String(v.lon), z: String(v.zoom) });
  if (v.layers?.length) q.set("layers", v.layers.join(","));
  return `/map?${q}`;
}
