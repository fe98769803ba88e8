/**
 * The search filters of the map, the near-me list and search (q, type, size,
 * difficulty, terrain, owner, attributes, and the personal ones): read from a
 * query, as SQL on native caches, and matched on mirrored and living ones.
 */
import { badRequest } from "../lib/errors.ts";
import type { MirroredCache } from "../fed/mirror.ts";
import { attrFilterSql, hasAttributes, parseAttrFilter } from "./attributes.ts";
import { CACHE_SIZES, CACHE_TYPES, callsign, oneOf, type CacheFilterQuery } from "./model.ts";

export interface CacheFilters {
  q?: string;
  types?: string[];
  sizes?: string[];
  difficulty?: [number, number];
  terrain?: [number, number];
  owner?: string;
  /** personal filters (near.ts personalFilters): native caches only */
  foundBy?: { userId: number; found: boolean };
  ownedBy?: { userId: number; mine: boolean };
  disabled?: boolean;
  tierA?: boolean;
  /** the open-maintenance flag (native caches: a mirror's is read from its record, so `true` leaves mirrors out) */
  maintenance?: boolean;
  /** `attr=`: signed attribute ids the cache must have (+id yes, -id no) */
  attrs?: number[];
}

/** A personal filter is set: mirrors and living caches are left out. */
const personal = (f: CacheFilters) => f.foundBy !== undefined || f.ownedBy !== undefined || f.tierA !== undefined;

const range = (raw: string, field: string): [number, number] => {
  const m = /^(\d(?:\.5)?)(?:-(\d(?:\.5)?))?$/.exec(raw);
  if (!m) throw badRequest("invalid", `${field} is a value or a range such as 1.5-3`);
  const lo = Number(m[1]);
  const hi = Number(m[2] ?? m[1]);
  if (lo < 1 || hi > 5 || lo > hi) throw badRequest("invalid", `${field} is within 1-5`);
  return [lo, hi];
};

/** The search filters from query parameters: q, type, size, difficulty, terrain, owner. */
export function parseFilters(q: CacheFilterQuery): CacheFilters {
  const f: CacheFilters = {};
  if (q.q !== undefined && q.q.trim() !== "") {
    if (q.q.length > 100) throw badRequest("invalid", "q is at most 100 characters");
    f.q = q.q.trim().toLowerCase();
  }
  if (q.type) f.types = q.type.split(",").map((t) => oneOf(t.trim(), "type", [...CACHE_TYPES, "living"]));
  if (q.size) f.sizes = q.size.split(",").map((s) => oneOf(s.trim(), "size", CACHE_SIZES));
  if (q.difficulty) f.difficulty = range(q.difficulty, "difficulty");
  if (q.terrain) f.terrain = range(q.terrain, "terrain");
  if (q.owner) f.owner = callsign(q.owner, "owner");
  if (q.attr) f.attrs = parseAttrFilter(q.attr);
  return f;
}

export const hasFilters = (f: CacheFilters) => Object.keys(f).length > 0;

/** SQL conditions on `c` (caches) for the filters. */
export function filterSql(f: CacheFilters): { sql: string; args: Array<string | number> } {
  const where: string[] = [];
  const args: Array<string | number> = [];
  if (f.q) {
    where.push("(c.search LIKE ? ESCAPE '\\' OR lower(c.description) LIKE ? ESCAPE '\\')");
    const t = "%" + f.q.replace(/[%_\\]/g, (ch) => "\\" + ch) + "%";
    args.push(t, t);
  }
  if (f.types) where.push(`c.type IN (${f.types.map(() => "?").join(",")})`), args.push(...f.types);
  if (f.sizes) where.push(`c.size IN (${f.sizes.map(() => "?").join(",")})`), args.push(...f.sizes);
  if (f.difficulty) where.push("c.difficulty BETWEEN ? AND ?"), args.push(...f.difficulty);
  if (f.terrain) where.push("c.terrain BETWEEN ? AND ?"), args.push(...f.terrain);
  if (f.owner) where.push("(c.owner_call = ? OR c.owner_call LIKE ? || '-%')"), args.push(f.owner.split("-")[0]!, f.owner.split("-")[0]!);
  if (f.foundBy) {
    where.push(
      `${f.foundBy.found ? "" : "NOT "}EXISTS (SELECT 1 FROM logs l WHERE l.cache_id = c.id AND l.user_id = ? AND l.kind = 'find' AND l.state = 'active')`,
    );
    args.push(f.foundBy.userId);
  }
  if (f.ownedBy) where.push(f.ownedBy.mine ? "c.owner_id = ?" : "c.owner_id IS NOT ?"), args.push(f.ownedBy.userId);
  if (f.disabled !== undefined) where.push(f.disabled ? "c.status = 'disabled'" : "c.status <> 'disabled'");
  if (f.maintenance !== undefined) where.push(`c.needs_maintenance = ${f.maintenance ? 1 : 0}`);
  if (f.tierA) where.push("EXISTS (SELECT 1 FROM logs l WHERE l.cache_id = c.id AND l.kind = 'find' AND l.tier = 'a' AND l.state = 'active')");
  if (f.attrs?.length) {
    const a = attrFilterSql(f.attrs);
    where.push(a.sql), args.push(...a.args);
  }
  return { sql: where.length ? " AND " + where.join(" AND ") : "", args };
}

export function livingMatches(f: CacheFilters): boolean {
  return (
    !f.q &&
    !f.sizes &&
    !f.difficulty &&
    !f.terrain &&
    !f.owner &&
    !personal(f) &&
    !f.disabled &&
    !f.maintenance &&
    !f.attrs?.length &&
    (!f.types || f.types.includes("living"))
  );
}

export function mirrorMatches(m: MirroredCache, f: CacheFilters): boolean {
  if (personal(f) || f.maintenance) return false;
  if (f.disabled !== undefined && (m.status === "disabled") !== f.disabled) return false;
  if (f.q && !`${m.name} ${m.ownerCall ?? ""} ${m.description ?? ""}`.toLowerCase().includes(f.q)) return false;
  if (f.types && !f.types.includes(m.type)) return false;
  if (f.sizes && !f.sizes.includes(m.size)) return false;
  if (f.difficulty && (m.difficulty < f.difficulty[0] || m.difficulty > f.difficulty[1])) return false;
  if (f.terrain && (m.terrain < f.terrain[0] || m.terrain > f.terrain[1])) return false;
  if (f.owner && (m.ownerCall ?? "").split("-")[0] !== f.owner.split("-")[0]) return false;
  if (f.attrs?.length && !hasAttributes(m.attributes, f.attrs)) return false;
  return m.status === "active" || m.status === "disabled";
}
