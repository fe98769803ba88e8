/**
 * Units for readings: metric, with the imperial value beside it, unless the
 * signed-in user's preferences (`units`: "metric" | "imperial" in
 * /api/prefs) choose one system; then only that one is shown.
 */
import { api } from "../api.ts";
import { loadAccount } from "../account/session.ts";

export type UnitPref = "metric" | "imperial" | null;

let pref: Promise<UnitPref> | null = null;
/** The user's unit preference; null when signed out or not chosen. */
export const unitPref = () =>
  (pref ??= loadAccount()
    // signed out there are no preferences to ask for (and no 401 in the console)
    .then((a) => (a ? api<{ prefs: { units?: unknown } }>("/api/prefs") : null))
    .then(
      (r) => (r?.prefs.units === "metric" || r?.prefs.units === "imperial" ? r.prefs.units : null),
      () => null,
    ));

export interface Quantity {
  /** metric unit label and the imperial conversion */
  metric: string;
  imperial: string;
  toImperial: (v: number) => number;
  digits: [number, number];
}

export const Q = {
  temp: { metric: "°C", imperial: "°F", toImperial: (c: number) => (c * 9) / 5 + 32, digits: [1, 0] },
  speed: { metric: "km/h", imperial: "mph", toImperial: (k: number) => k / 1.609344, digits: [0, 0] },
  altitude: { metric: "m", imperial: "ft", toImperial: (m: number) => m / 0.3048, digits: [0, 0] },
  rain: { metric: "mm", imperial: "in", toImperial: (mm: number) => mm / 25.4, digits: [1, 2] },
  pressure: { metric: "hPa", imperial: "inHg", toImperial: (h: number) => h * 0.0295299830714, digits: [1, 2] },
} satisfies Record<string, Quantity>;

/** "21.5 °C (70.7 °F)", or one of them by preference. */
export function formatQ(v: number, q: Quantity, p: UnitPref): string {
  const m = `${v.toFixed(q.digits[0])} ${q.metric}`;
  const i = `${q.toImperial(v).toFixed(q.digits[1])} ${q.imperial}`;
  return p === "imperial" ? i : p === "metric" ? m : `${m} (${i})`;
}

/** The chart unit and value mapping for a quantity under a preference (metric unless imperial is chosen). */
export function chartUnit(q: Quantity, p: UnitPref): { unit: string; map: (v: number) => number } {
  return p === "imperial" ? { unit: q.imperial, map: q.toImperial } : { unit: q.metric, map: (v) => v };
}

/** A distance on the ground: "350 m", "12.4 km", "1240 km". */
export const formatDistance = (m: number) => (m < 1000 ? `${Math.round(m)} m` : m < 100_000 ? `${(m / 1000).toFixed(1)} km` : `${Math.round(m / 1000)} km`);

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

/** Compass point of a course or wind direction. */
export function compass(deg: number): string {
  return ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"][
    Math.round((((deg % 360) + 360) % 360) / 22.5) % 16
  ]!;
}
