/**
 * Cache attributes in the game: the column they live in (caches.attributes
 * and mirror_caches.attributes, migration 31: signed ids as JSON), the
 * checks of a body's `attributes` and of `attr=` (400 on an unknown id), and
 * the `attr=` filter as SQL on `c` (caches), so it applies before any limit.
 * The table of ids and names is src/lib/cache-attributes.ts, shared with the web
 * app.
 */
import type { Core } from "../core/core.ts";
import { badRequest } from "../lib/errors.ts";
import { attributeById, checkAttributes, fromSigned, parseAttrQuery, toSigned, type CacheAttribute } from "../lib/cache-attributes.ts";

/** The column's text as the API's list ({id, inc}, by id). */
export function attributesOf(raw: string | null): CacheAttribute[] {
  return raw ? fromSigned(JSON.parse(raw) as number[]) : [];
}

/** The column's text of a set (null when empty). */
export const attributesColumn = (attrs: readonly CacheAttribute[]): string | null => (attrs.length ? JSON.stringify(toSigned(attrs)) : null);

/** The column's text as signed ids (the wire's form). */
export const signedOf = (raw: string | null): number[] => (raw ? (JSON.parse(raw) as number[]) : []);

/** A body's `attributes` ([{id, inc}], or null for none): 400 naming the problem. */
export function checkCacheAttributes(v: unknown): CacheAttribute[] {
  const r = checkAttributes(v);
  if (typeof r === "string") throw badRequest("invalid", r);
  return r;
}

/** `attr=1,-32` as signed ids: 400 on an unknown id. */
export function parseAttrFilter(raw: string): number[] {
  const r = parseAttrQuery(raw);
  if (typeof r === "string") throw badRequest("invalid", r);
  return r;
}

/**
 * The `attr=` filter on `c` (caches): every signed id present. The column is
 * always attributesColumn's text ("[1,-32]": integers, commas, no spaces), so
 * ",1," in ",1,-32," finds one id without parsing the JSON (json_each per row
 * made a near= query with a rare filter, which reads many rows, slow).
 */
export function attrFilterSql(want: readonly number[]): { sql: string; args: string[] } {
  return {
    sql: want.map(() => "instr(replace(replace(c.attributes, '[', ','), ']', ','), ?) > 0").join(" AND "),
    args: want.map((id) => `,${Math.trunc(id)},`),
  };
}

/** Whether a set of signed ids holds every wanted one (mirrored caches, filtered in memory). */
export const hasAttributes = (have: readonly number[], want: readonly number[]): boolean => want.every((w) => have.includes(w));

/** Sets a catalog import's attributes (never federated); whether they changed. */
export function setImportedAttributes(gw: Core, cacheId: number, attrs: readonly CacheAttribute[]): boolean {
  const col = attributesColumn(attrs);
  return gw.db.query("UPDATE caches SET attributes = ? WHERE id = ? AND attributes IS NOT ?").run(col, cacheId, col).changes > 0;
}

/** `<groundspeak:attributes><groundspeak:attribute id="1" inc="1">Dogs</groundspeak:attribute>...`, as parsed: known ids, each once. */
export function gpxAttributes(list: Array<Record<string, unknown>>): CacheAttribute[] {
  const out: CacheAttribute[] = [];
  for (const a of list.slice(0, 200)) {
    const id = Number(String(a["@id"] ?? "").trim());
    const inc = String(a["@inc"] ?? "1").trim();
    if (!Number.isInteger(id) || !attributeById(id) || out.some((x) => x.id === id)) continue;
    out.push({ id, inc: inc !== "0" });
  }
  return out.sort((x, y) => x.id - y.id);
}
