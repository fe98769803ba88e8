/**
 * Cache attributes (pure): the Groundspeak yes/no set, by Groundspeak's own
 * ids, one table for the server (API, filters, GPX, federation) and the web
 * app (chips, filter, the cache page). A cache sets each attribute yes, no,
 * or leaves it out. On the wire and in the database a set is a list of
 * signed ids, +id for yes and -id for no, ordered by id: [1, -32] is "dogs
 * allowed, no bicycles".
 *
 *   attributeById(1)?.label          // "Dogs"
 *   toSigned([{ id: 32, inc: false }, { id: 1, inc: true }])   // [1, -32]
 *   fromSigned([1, -32])             // [{ id: 1, inc: true }, { id: 32, inc: false }]
 *   parseAttrQuery("1,-32")          // [1, -32]
 */

export interface AttributeDef {
  id: number;
  /** Groundspeak's name, as a pocket query writes it */
  name: string;
  /** a short label for a chip */
  label: string;
}

/** One attribute as a cache sets it: yes (`inc: true`) or no. */
export interface CacheAttribute {
  id: number;
  inc: boolean;
}

export const ATTRIBUTES: readonly AttributeDef[] = [
  { id: 1, name: "Dogs", label: "Dogs" },
  { id: 2, name: "Access or parking fee", label: "Fee" },
  { id: 3, name: "Climbing gear", label: "Climbing gear" },
  { id: 4, name: "Boat", label: "Boat" },
  { id: 5, name: "Scuba gear", label: "Scuba gear" },
  { id: 6, name: "Recommended for kids", label: "Kids" },
  { id: 7, name: "Takes less than an hour", label: "Under an hour" },
  { id: 8, name: "Scenic view", label: "Scenic view" },
  { id: 9, name: "Significant hike", label: "Significant hike" },
  { id: 10, name: "Difficult climbing", label: "Difficult climbing" },
  { id: 11, name: "May require wading", label: "Wading" },
  { id: 12, name: "May require swimming", label: "Swimming" },
  { id: 13, name: "Available at all times", label: "Any time" },
  { id: 14, name: "Recommended at night", label: "At night" },
  { id: 15, name: "Available during winter", label: "In winter" },
  { id: 17, name: "Poison plants", label: "Poison plants" },
  { id: 18, name: "Dangerous animals", label: "Dangerous animals" },
  { id: 19, name: "Ticks", label: "Ticks" },
  { id: 20, name: "Abandoned mines", label: "Mines" },
  { id: 21, name: "Cliff / falling rocks", label: "Cliffs" },
  { id: 22, name: "Hunting", label: "Hunting" },
  { id: 23, name: "Dangerous area", label: "Dangerous area" },
  { id: 24, name: "Wheelchair accessible", label: "Wheelchair" },
  { id: 25, name: "Parking available", label: "Parking" },
  { id: 26, name: "Public transportation", label: "Public transport" },
  { id: 27, name: "Drinking water nearby", label: "Drinking water" },
  { id: 28, name: "Public restrooms nearby", label: "Restrooms" },
  { id: 29, name: "Telephone nearby", label: "Telephone" },
  { id: 30, name: "Picnic tables nearby", label: "Picnic tables" },
  { id: 31, name: "Camping available", label: "Camping" },
  { id: 32, name: "Bicycles", label: "Bicycles" },
  { id: 33, name: "Motorcycles", label: "Motorcycles" },
  { id: 34, name: "Quads", label: "Quads" },
  { id: 35, name: "Off-road vehicles", label: "Off-road" },
  { id: 36, name: "Snowmobiles", label: "Snowmobiles" },
  { id: 37, name: "Horses", label: "Horses" },
  { id: 38, name: "Campfires", label: "Campfires" },
  { id: 39, name: "Thorns", label: "Thorns" },
  { id: 40, name: "Stealth required", label: "Stealth" },
  { id: 41, name: "Stroller accessible", label: "Stroller" },
  { id: 42, name: "Needs maintenance", label: "Needs maintenance" },
  { id: 43, name: "Watch for livestock", label: "Livestock" },
  { id: 44, name: "Flashlight required", label: "Flashlight" },
  { id: 45, name: "Lost and found tour", label: "Lost and found tour" },
  { id: 46, name: "Truck driver/RV", label: "Truck/RV" },
  { id: 47, name: "Field puzzle", label: "Field puzzle" },
  { id: 48, name: "UV light required", label: "UV light" },
  { id: 49, name: "Snowshoes", label: "Snowshoes" },
  { id: 50, name: "Cross country skis", label: "Skis" },
  { id: 51, name: "Special tool required", label: "Special tool" },
  { id: 52, name: "Night cache", label: "Night cache" },
  { id: 53, name: "Park and grab", label: "Park and grab" },
  { id: 54, name: "Abandoned structure", label: "Abandoned structure" },
  { id: 55, name: "Short hike", label: "Short hike" },
  { id: 56, name: "Medium hike", label: "Medium hike" },
  { id: 57, name: "Long hike", label: "Long hike" },
  { id: 58, name: "Fuel nearby", label: "Fuel" },
  { id: 59, name: "Food nearby", label: "Food" },
  { id: 60, name: "Wireless beacon", label: "Beacon" },
  { id: 61, name: "Partnership cache", label: "Partnership" },
  { id: 62, name: "Seasonal access", label: "Seasonal" },
  { id: 63, name: "Tourist friendly", label: "Tourist friendly" },
  { id: 64, name: "Tree climbing", label: "Tree climbing" },
  { id: 65, name: "Front yard", label: "Front yard" },
  { id: 66, name: "Teamwork required", label: "Teamwork" },
  { id: 67, name: "GeoTour", label: "GeoTour" },
];

/** The most attributes a set may hold (a federated record's limit; there are fewer ids). */
export const MAX_ATTRIBUTES = 80;

const BY_ID = new Map(ATTRIBUTES.map((a) => [a.id, a]));

export const attributeById = (id: number): AttributeDef | undefined => BY_ID.get(id);

/** A set as signed ids, ordered by id: +id yes, -id no. */
export const toSigned = (attrs: readonly CacheAttribute[]): number[] => [...attrs].sort((a, b) => a.id - b.id).map((a) => (a.inc ? a.id : -a.id));

/** Signed ids as a set, ordered by id; ids this table does not know are kept (a peer may know more). */
export const fromSigned = (signed: readonly number[]): CacheAttribute[] =>
  signed
    .filter((n) => Number.isInteger(n) && n !== 0)
    .map((n) => ({ id: Math.abs(n), inc: n > 0 }))
    .sort((a, b) => a.id - b.id);

/**
 * A set as a body sends it: a list of {id, inc} (inc true or false), each a
 * known id, each id once. Returns the set or the problem.
 */
export function checkAttributes(v: unknown): CacheAttribute[] | string {
  if (v === null) return [];
  if (!Array.isArray(v)) return "attributes is a list of {id, inc}";
  if (v.length > MAX_ATTRIBUTES) return `at most ${MAX_ATTRIBUTES} attributes`;
  const out: CacheAttribute[] = [];
  for (const a of v) {
    if (typeof a !== "object" || a === null || Array.isArray(a)) return "each attribute is {id, inc}";
    const { id, inc, ...rest } = a as Record<string, unknown>;
    if (Object.keys(rest).length) return `an attribute has id and inc only, not ${Object.keys(rest).join(", ")}`;
    if (typeof id !== "number" || !BY_ID.has(id))
      return `unknown attribute id ${JSON.stringify(id)} (known: ${ATTRIBUTES[0]!.id}-${ATTRIBUTES.at(-1)!.id}, not 16)`;
    if (typeof inc !== "boolean") return `attribute ${id}: inc is true (yes) or false (no)`;
    if (out.some((x) => x.id === id)) return `attribute ${id} is given twice`;
    out.push({ id, inc });
  }
  return out.sort((a, b) => a.id - b.id);
}

/** `attr=1,-32` (has 1 yes and 32 no) as signed ids; the problem when an id is unknown or malformed. */
export function parseAttrQuery(raw: string): number[] | string {
  const parts = raw.split(",").map((s) => s.trim());
  if (parts.length > MAX_ATTRIBUTES) return `attr names at most ${MAX_ATTRIBUTES} attributes`;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^-?\d{1,3}$/.test(p)) return `attr is a comma list of attribute ids, negative for "no": e.g. 1,-32 (not "${p}")`;
    const n = Number(p);
    if (!BY_ID.has(Math.abs(n))) return `unknown attribute id ${Math.abs(n)}`;
    if (!out.includes(n)) out.push(n);
  }
  return out;
}
