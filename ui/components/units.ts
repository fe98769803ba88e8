/**
 * Units for readings and distances, the one formatter every page uses:
 * metric with the imperial value beside it until a system is chosen, then
 * that one alone: metric (m, km, km/h, °C), imperial (ft, mi, mph, °F) or
 * nautical (NM and kn; heights, rain and temperatures stay metric). The
 * choice is this browser's (localStorage), and a signed-in user's
 * preferences (`units` in /api/prefs) win over it. Numbers are written in
 * the interface's language (ui/i18n).
 */
import { fmtNumber, localeChanged, t } from "../i18n/i18n.ts";

export type UnitSystem = "metric" | "imperial" | "nautical";
export type UnitPref = UnitSystem | null;
export const UNIT_SYSTEMS: UnitSystem[] = ["metric", "imperial", "nautical"];
const STORED = "svc.units";
export const isUnitSystem = (v: unknown): v is UnitSystem => v === "metric" || v === "imperial" || v === "nautical";

let current: UnitPref = (() => {
  try {
    const v = typeof localStorage !== "undefined" ? localStorage.getItem(STORED) : null;
    return isUnitSystem(v) ? v : null;
  } catch {
    return null;
  }
})();

/** The units chosen in this browser (or brought from the account's preferences); null: none chosen. */
export const units = (): UnitPref => current;

/** Chooses a unit system for this browser and redraws the app. */
export function setUnits(u: UnitSystem, remember = true) {
  if (u === current) return;
  current = u;
  if (remember)
    try {
      localStorage.setItem(STORED, u);
    } catch {
      /* private mode: for this visit only */
    }
  localeChanged();
}

export interface Quantity {
  /** metric unit label and the imperial conversion */
  metric: string;
  imperial: string;
  toImperial: (v: number) => number;
  digits: [number, number];
  /** the nautical unit when it differs from the metric one (knots) */
  nautical?: { unit: string; from: (v: number) => number; digits: number };
}

export const Q = {
  temp: { metric: "°C", imperial: "°F", toImperial: (c: number) => (c * 9) / 5 + 32, digits: [1, 0] },
  speed: {
    metric: "km/h",
    imperial: "mph",
    toImperial: (k: number) => k / 1.609344,
    digits: [0, 0],
    nautical: { unit: "kn", from: (k: number) => k / 1.852, digits: 0 },
  },
  altitude: { metric: "m", imperial: "ft", toImperial: (m: number) => m / 0.3048, digits: [0, 0] },
  rain: { metric: "mm", imperial: "in", toImperial: (mm: number) => mm / 25.4, digits: [1, 2] },
  pressure: { metric: "hPa", imperial: "inHg", toImperial: (h: number) => h * 0.0295299830714, digits: [1, 2] },
} satisfies Record<string, Quantity>;

const num = (v: number, digits: number) =>
  fmtNumber(v, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: "min2" } as Intl.NumberFormatOptions);

/** "21.5 °C (70.7 °F)", or one of them by preference ("11 kn" for nautical speeds). */
export function formatQ(v: number, q: Quantity, p: UnitPref = current): string {
  if (p === "nautical" && q.nautical) return `${num(q.nautical.from(v), q.nautical.digits)} ${q.nautical.unit}`;
  const m = `${num(v, q.digits[0])} ${q.metric}`;
  const i = `${num(q.toImperial(v), q.digits[1])} ${q.imperial}`;
  return p === "imperial" ? i : p === "metric" || p === "nautical" ? m : `${m} (${i})`;
}

/** The chart unit and value mapping for a quantity under a preference (metric unless imperial or nautical is chosen). */
export function chartUnit(q: Quantity, p: UnitPref): { unit: string; map: (v: number) => number } {
  if (p === "nautical" && q.nautical) return { unit: q.nautical.unit, map: q.nautical.from };
  return p === "imperial" ? { unit: q.imperial, map: q.toImperial } : { unit: q.metric, map: (v) => v };
}

/**
 * A distance on the ground in the chosen system: "350 m", "12.4 km", "1240 km";
 * "850 ft", "3.2 mi"; "0.19 NM", "12.4 NM". Metric when none is chosen.
 */
export function formatDistance(m: number, p: UnitPref = current, fine = false): string {
  // fine: two decimals below 10 km or mi, for walking to a point (the compass)
  const near = fine ? 2 : 1;
  if (p === "imperial") {
    const ft = m / 0.3048;
    const mi = m / 1609.344;
    return ft < 1000 ? `${num(ft, 0)} ft` : mi < 10 ? `${num(mi, near)} mi` : mi < 100 ? `${num(mi, 1)} mi` : `${num(mi, 0)} mi`;
  }
  if (p === "nautical") {
    const nm = m / 1852;
    return nm < 10 ? `${num(nm, 2)} NM` : nm < 100 ? `${num(nm, 1)} NM` : `${num(nm, 0)} NM`;
  }
  return m < 1000 ? `${num(m, 0)} m` : m < 10_000 ? `${num(m / 1000, near)} km` : m < 100_000 ? `${num(m / 1000, 1)} km` : `${num(m / 1000, 0)} km`;
}

const pad = (n: number, w: number) => String(n).padStart(w, "0");

/** Degrees and decimal minutes, as geocachers write them: "N 42° 30.123 W 071° 05.456". */
export function formatDdm(lat: number, lon: number): string {
  const part = (v: number, pos: string, neg: string, w: number) => {
    const a = Math.abs(v);
    let d = Math.floor(a);
    let m = Math.round((a - d) * 60 * 1000) / 1000;
    if (m >= 60) (d += 1), (m = 0);
    const [mi, mf] = m.toFixed(3).split(".");
    return `${v < 0 ? neg : pos} ${pad(d, w)}° ${pad(Number(mi), 2)}.${mf}`;
  };
  return `${part(lat, "N", "S", 2)} ${part(lon, "E", "W", 3)}`;
}

const POINTS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];
/** Compass point of a course or wind direction, of sixteen, in the reader's letters ("OSO" in German, "ESE" in Spanish). */
export function compass(deg: number): string {
  return t(`compass.${POINTS[Math.round((((deg % 360) + 360) % 360) / 22.5) % 16]!}`);
}
