/**
 * An event cache of a geocaching.com pocket query (docs/api.md "Import"):
 * its `<time>` is the event's day, and its times are in its description in
 * the owner's words, if anywhere. Without our own "Event: ..." line, the day
 * comes from `<time>` as written (its date, not converted), the zone from its
 * UTC offset when that is whole hours (Etc/GMT-2 for +02:00), else UTC, and
 * the times from the description when it holds exactly one clear range
 * (18:00-21:00, 18:00 to 21:00, 19h00 - 22h00, 7 PM - 9 PM), else the whole
 * day.
 */
import { isTimeZone, zonedToUtc, type EventTimes } from "./events.ts";

const TIME = /^(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const SEP = String.raw`\s*(?:-|–|—|to|until|till|bis|à)\s*`;
const H24 = new RegExp(String.raw`\b([01]?\d|2[0-3])[:h]([0-5]\d)\s*(?:uhr|h)?${SEP}([01]?\d|2[0-3])[:h]([0-5]\d)\b`, "gi");
const H12 = new RegExp(String.raw`\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*([ap])\.?m\.?${SEP}(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*([ap])\.?m\b\.?`, "gi");

const hhmm = (h: number, m: number) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
const from12 = (h: string, m: string | undefined, ap: string) => hhmm((Number(h) % 12) + (ap.toLowerCase() === "p" ? 12 : 0), Number(m ?? 0));

/** The one start-end range a description names, or null when it names none or several. */
export function timesInText(text: string): { start: string; end: string } | null {
  const found = new Set<string>();
  for (const m of text.matchAll(H24)) found.add(`${hhmm(Number(m[1]), Number(m[2]))}-${hhmm(Number(m[3]), Number(m[4]))}`);
  for (const m of text.matchAll(H12)) found.add(`${from12(m[1]!, m[2], m[3]!)}-${from12(m[4]!, m[5], m[6]!)}`);
  if (found.size !== 1) return null;
  const [start, end] = [...found][0]!.split("-") as [string, string];
  return start < end ? { start, end } : null;
}

/** The zone of a `<time>` offset: UTC, or Etc/GMT∓H for a whole-hour offset. */
function zoneOf(offset: string | undefined): string {
  if (!offset || offset === "Z" || /^[+-]00:00$/.test(offset)) return "UTC";
  const [h, m] = offset.slice(1).split(":").map(Number) as [number, number];
  const tz = `Etc/GMT${offset[0] === "+" ? "-" : "+"}${h}`;
  return m === 0 && isTimeZone(tz) ? tz : "UTC";
}

/** A pocket query event's times from its `<time>` and description; null when `<time>` holds no day. */
export function eventFromGcTime(time: string, description: string): EventTimes | null {
  const t = TIME.exec(time.trim());
  if (!t || !Number.isFinite(Date.parse(`${t[1]}T00:00:00Z`))) return null;
  const timeZone = zoneOf(t[2]);
  const { start, end } = timesInText(description) ?? { start: "00:00", end: "23:59" };
  const startAt = zonedToUtc(t[1]!, start, timeZone);
  const endAt = zonedToUtc(t[1]!, end, timeZone);
  return Number.isFinite(startAt) && endAt > startAt ? { startAt, endAt, timeZone } : null;
}
