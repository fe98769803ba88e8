/** APRS text the tests put on the air or through the ingest box. */

/** An uncompressed position report of a point: `!DDMM.mmN/DDDMM.mmE` and the symbol (default `[`). */
export function aprsPos(lat: number, lon: number, symbol = "["): string {
  const la = Math.abs(lat);
  const lo = Math.abs(lon);
  const latS = `${String(Math.floor(la)).padStart(2, "0")}${((la % 1) * 60).toFixed(2).padStart(5, "0")}${lat >= 0 ? "N" : "S"}`;
  const lonS = `${String(Math.floor(lo)).padStart(3, "0")}${((lo % 1) * 60).toFixed(2).padStart(5, "0")}${lon >= 0 ? "E" : "W"}`;
  return `!${latS}/${lonS}${symbol}`;
}
