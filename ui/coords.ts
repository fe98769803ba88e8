/**
 * Coordinates as people type them: decimal degrees ("42.50205, -71.0909"),
 * degrees and decimal minutes as geocaching.com writes them
 * ("N 42° 30.123 W 071° 05.456"), or degrees, minutes and seconds
 * (42°30'07.4"N 71°05'27.4"W).
 */

/** One number: "42.5", "-71.09", "N 42° 30.123", "W 071 05.456", "42°30'07.4\"N". Null when it is not one. */
export function parseAxis(text: string, axis: "lat" | "lon"): number | null {
  let t = text.trim().toUpperCase().replace(/,/g, ".");
  if (t === "") return null;
  let sign = 1;
  const hemi = /^([NSEW])\s*|\s*([NSEW])$/.exec(t);
  if (hemi) {
    const h = (hemi[1] ?? hemi[2])!;
    if ((axis === "lat") !== (h === "N" || h === "S")) return null;
    if (h === "S" || h === "W") sign = -1;
    t = t.replace(/^[NSEW]\s*|\s*[NSEW]$/g, "");
  }
  const parts = t.split(/[°º'′"″\s]+/).filter(Boolean);
  if (parts.length === 0 || parts.length > 3 || !parts.every((p) => /^[-+]?\d+(\.\d+)?$/.test(p))) return null;
  const [d, m = "0", s = "0"] = parts;
  const deg = Number(d);
  const min = Number(m);
  const sec = Number(s);
  if (parts.length > 1 && (deg < 0 || !Number.isInteger(deg) || min >= 60 || sec >= 60 || min < 0 || sec < 0)) return null;
  if (hemi && deg < 0) return null;
  const v = sign * (Math.abs(deg) + min / 60 + sec / 3600) * (deg < 0 ? -1 : 1);
  const max = axis === "lat" ? 90 : 180;
  return Math.abs(v) <= max ? v : null;
}

/** A pair in one string, both halves with a hemisphere or two decimals separated by a comma. */
export function parseCoordPair(text: string): { lat: number; lon: number } | null {
  const t = text.trim().toUpperCase();
  // "N 42° 30.123 W 071° 05.456" / "42°30'07.4"N 71°05'27.4"W": split where the longitude's hemisphere starts or the latitude's ends.
  const lead = /^([NS][^EW]*)([EW].*)$/.exec(t);
  const trail = /^([^NS]*[NS])\s*,?\s*([^EW]*[EW])$/.exec(t);
  const halves = lead ? [lead[1]!, lead[2]!] : trail ? [trail[1]!, trail[2]!] : /^[-+\d.\s]+,\s*[-+\d.\s]+$/.test(t) ? t.split(",") : null;
  if (!halves) return null;
  const lat = parseAxis(halves[0]!.replace(/,\s*$/, ""), "lat");
  const lon = parseAxis(halves[1]!, "lon");
  return lat === null || lon === null ? null : { lat, lon };
}
