/**
 * Event caches (issue 29 item 5; docs/api.md "Events"): an `event` or `cito`
 * cache takes place on a day, from a start to an end time, in an IANA time
 * zone. Kept as two instants (unix ms) and the zone; shown as the day and
 * times of that zone. The logs Will Attend and Attended, an event as an
 * iCalendar file, upcoming events near a point, and past events archiving
 * themselves (the `events-archive` job).
 */
import type { Core } from "../core/core.ts";
import { badRequest } from "../lib/errors.ts";
import { distanceM, type LogKind } from "./model.ts";

export const EVENT_TYPES: readonly string[] = ["event", "cito"];
/** An event is archived this long after it ended, leaving time for Attended logs. */
export const EVENT_ARCHIVE_AFTER_MS = 7 * 86_400_000;

export interface EventTimes {
  /** unix ms */
  startAt: number;
  endAt: number;
  /** IANA name, e.g. Europe/Berlin */
  timeZone: string;
}

/** An event as the API shows it: its day and times in its own zone, and the instants. */
export interface EventInfo extends EventTimes {
  /** YYYY-MM-DD */
  date: string;
  /** HH:MM */
  start: string;
  end: string;
}

/** Whether a name is a time zone this runtime knows (IANA names, and UTC). */
export function isTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(tz) || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
function parts(utcMs: number, tz: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(utcMs)).map((x) => [x.type, x.value]));
  return { y: Number(p.year), mo: Number(p.month), d: Number(p.day), h: Number(p.hour), mi: Number(p.minute), s: Number(p.second) };
}

/** The instant of a wall-clock time in a zone (the earlier one when a clock change repeats it). */
export function zonedToUtc(date: string, time: string, tz: string): number {
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
  const [h, mi] = time.split(":").map(Number) as [number, number];
  const naive = Date.UTC(y, mo - 1, d, h, mi);
  const offset = (t: number) => {
    const p = parts(t, tz);
    return Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s) - t;
  };
  const first = naive - offset(naive);
  return naive - offset(first);
}

const pad = (n: number) => String(n).padStart(2, "0");
/** The day (YYYY-MM-DD) and time (HH:MM) of an instant in a zone. */
export function wallClock(utcMs: number, tz: string): { date: string; time: string } {
  const p = parts(utcMs, tz);
  return { date: `${p.y}-${pad(p.mo)}-${pad(p.d)}`, time: `${pad(p.h)}:${pad(p.mi)}` };
}

/**
 * Checks an event's `{date, start, end, timeZone}`: a real day, HH:MM times,
 * the end after the start, a known IANA zone, and not over already (400).
 */
export function checkEvent(v: unknown, now: number): EventTimes {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw badRequest("invalid", "event is {date, start, end, timeZone}");
  const e = v as Record<string, unknown>;
  for (const k of Object.keys(e))
    if (!["date", "start", "end", "timeZone"].includes(k)) throw badRequest("invalid", `event.${k} is not an event field (date, start, end, timeZone)`);
  const date = typeof e.date === "string" && /^\d{4}-\d{2}-\d{2}$/.test(e.date) ? e.date : null;
  if (!date || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date)
    throw badRequest("invalid", "event.date is a day, YYYY-MM-DD");
  const time = (x: unknown, f: string) => {
    if (typeof x !== "string" || !/^([01]\d|2[0-3]):[0-5]\d$/.test(x)) throw badRequest("invalid", `event.${f} is a time, HH:MM`);
    return x;
  };
  const start = time(e.start, "start");
  const end = time(e.end, "end");
  if (typeof e.timeZone !== "string" || !isTimeZone(e.timeZone))
    throw badRequest("invalid", "event.timeZone is an IANA time zone such as Europe/Berlin or America/New_York");
  const startAt = zonedToUtc(date, start, e.timeZone);
  const endAt = zonedToUtc(date, end, e.timeZone);
  if (endAt <= startAt) throw badRequest("invalid", "event.end is after event.start, on the same day");
  if (endAt <= now) throw badRequest("invalid", "this event is in the past: an event is hidden before it ends");
  return { startAt, endAt, timeZone: e.timeZone };
}

/** A stored event (null when the cache has none). */
export function eventInfo(startAt: number | null, endAt: number | null, timeZone: string | null): EventInfo | null {
  if (startAt === null || endAt === null || !timeZone || !isTimeZone(timeZone)) return null;
  const s = wallClock(startAt, timeZone);
  return { date: s.date, start: s.time, end: wallClock(endAt, timeZone).time, timeZone, startAt, endAt };
}

/**
 * Refuses a will-attend or attended that its event's times do not allow
 * (400): will-attend once the event is over, attended before its day.
 */
export function checkEventLog(kind: LogKind, ev: EventInfo | null, foundAt: number, now: number): void {
  if (!ev) return;
  if (kind === "attended" && foundAt < zonedToUtc(ev.date, "00:00", ev.timeZone))
    throw badRequest("invalid", `attended is logged on or after the event's day (${ev.date}, ${ev.timeZone})`);
  if (kind === "will-attend" && now > ev.endAt) throw badRequest("invalid", "this event is over: log attended instead");
}

// ---------------------------------------------------------------- iCalendar (RFC 5545)

/** TEXT values: backslash, semicolon, comma and line breaks escaped. */
const icsText = (s: string) => s.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r?\n/g, "\\n");
const icsTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, "")}Z`;

/** Lines are folded at 75 octets (a CRLF and a space), never inside a UTF-8 character. */
function fold(line: string): string {
  const bytes = new TextEncoder();
  if (bytes.encode(line).length <= 75) return line;
  const out: string[] = [];
  let cur = "";
  let n = 0;
  for (const ch of line) {
    const w = bytes.encode(ch).length;
    if (n + w > (out.length ? 74 : 75)) {
      out.push(cur);
      cur = "";
      n = 0;
    }
    cur += ch;
    n += w;
  }
  out.push(cur);
  return out.join("\r\n ");
}

/** One event as a VCALENDAR: times in UTC, the cache's gid as its UID. */
export function eventIcs(
  c: { gid: string; name: string; lat: number; lon: number; description: string | null; url: string },
  ev: EventInfo,
  now: number,
): string {
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//svc-gateway//events//EN",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    "BEGIN:VEVENT",
    `UID:${c.gid}`,
    `DTSTAMP:${icsTime(now)}`,
    `DTSTART:${icsTime(ev.startAt)}`,
    `DTEND:${icsTime(ev.endAt)}`,
    `SUMMARY:${icsText(c.name)}`,
    `LOCATION:${c.lat.toFixed(6)}\\, ${c.lon.toFixed(6)}`,
    `GEO:${c.lat.toFixed(6)};${c.lon.toFixed(6)}`,
    `URL:${c.url}`,
    ...(c.description ? [`DESCRIPTION:${icsText(c.description)}`] : []),
    "END:VEVENT",
    "END:VCALENDAR",
  ];
  return `${lines.map(fold).join("\r\n")}\r\n`;
}

// ---------------------------------------------------------------- GPX

/** The line a GPX export puts first in an event's short description, and an import reads back. */
export const eventLine = (ev: EventInfo) => `Event: ${ev.date} ${ev.start}-${ev.end} ${ev.timeZone}`;
const EVENT_LINE = /^Event: (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})-(\d{2}:\d{2}) (\S+)$/m;

/** An event line in a GPX description (any day, past ones too: an import keeps history), and the text without it. */
export function eventFromGpx(text: string): { event: EventTimes | null; text: string } {
  const m = EVENT_LINE.exec(text);
  if (!m || !isTimeZone(m[4]!) || !/^([01]\d|2[0-3]):[0-5]\d$/.test(m[2]!) || !/^([01]\d|2[0-3]):[0-5]\d$/.test(m[3]!)) return { event: null, text };
  const startAt = zonedToUtc(m[1]!, m[2]!, m[4]!);
  const endAt = zonedToUtc(m[1]!, m[3]!, m[4]!);
  if (!Number.isFinite(startAt) || endAt <= startAt) return { event: null, text };
  return { event: { startAt, endAt, timeZone: m[4]! }, text: text.replace(EVENT_LINE, "").trim() };
}

/** Sets an imported cache's event; whether it changed. Inside the import's transaction. */
export function setImportedEvent(gw: Core, cacheId: number, ev: EventTimes | null): boolean {
  return (
    gw.db
      .query(
        `UPDATE caches SET event_start_at = ?1, event_end_at = ?2, time_zone = ?3 WHERE id = ?4
         AND (event_start_at IS NOT ?1 OR event_end_at IS NOT ?2 OR time_zone IS NOT ?3)`,
      )
      .run(ev?.startAt ?? null, ev?.endAt ?? null, ev?.timeZone ?? null, cacheId).changes > 0
  );
}

// ---------------------------------------------------------------- near, and archiving

interface EventRow {
  id: number;
  lat: number;
  lon: number;
}

/** Upcoming (not yet ended) listed events of this instance, nearest a point first: ids and distances. */
export function upcomingNear(gw: Core, at: { lat: number; lon: number }, limit: number): Array<{ id: number; distanceM: number }> {
  const rows = gw.db
    .query(
      `SELECT id, lat, lon FROM caches WHERE event_end_at >= ? AND status IN ('active', 'disabled') AND unlisted = 0
       AND type IN ('event', 'cito') LIMIT 20000`,
    )
    .all(gw.clock.now()) as EventRow[];
  return rows
    .map((r) => ({ id: r.id, distanceM: Math.round(distanceM(at.lat, at.lon, r.lat, r.lon) * 10) / 10 }))
    .sort((a, b) => a.distanceM - b.distanceM)
    .slice(0, limit);
}

/** The ids of events that ended more than EVENT_ARCHIVE_AFTER_MS ago and are not archived yet. */
export function pastEvents(gw: Core): number[] {
  return (
    gw.db
      .query("SELECT id FROM caches WHERE event_end_at < ? AND status IN ('active', 'disabled') AND type IN ('event', 'cito')")
      .all(gw.clock.now() - EVENT_ARCHIVE_AFTER_MS) as Array<{ id: number }>
  ).map((r) => r.id);
}
