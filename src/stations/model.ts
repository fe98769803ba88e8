/**
 * The station registry's request schemas: what its routes (and /api/v1's)
 * take in the query and path. The registry checks the values (parseBbox,
 * the length of q) for every caller.
 */
import { t } from "elysia";
import { DEFAULT_STATIONS, MAX_STATIONS } from "./registry.ts";

/** The query of a station listing: a box, a search, a time and a page size. */
export const STATION_LIST_QUERY = {
  bbox: t.Optional(t.String({ description: "west,south,east,north in decimal degrees" })),
  q: t.Optional(t.String({ description: "call prefix or comment text, 1 to 40 characters" })),
  since: t.Optional(t.Integer({ description: "heard at or after, unix ms" })),
  limit: t.Optional(t.Integer({ description: `how many, 1-${MAX_STATIONS}, default ${DEFAULT_STATIONS}` })),
};

/** A station named in a path. */
export const STATION_CALL = t.String({ description: "a callsign with SSID, or an object or item name" });
