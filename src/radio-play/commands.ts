/**
 * Playing the game from a radio: the commands a player sends as APRS messages
 * to the station's call, and their answers (docs/protocol.md "Radio
 * commands"). Parsing and answering only; acks, retries, rate limits and
 * sending are the service's (service.ts). Answers are lists of parts, packed
 * into messages of at most 67 characters by splitReply.
 */
import type { Core } from "../core/core.ts";
import { cacheByCode, nearestActiveCaches } from "../game/cache-lookup.ts";
import { codeOf, type CacheRow } from "../game/caches.ts";
import { logbook, logFromRadio } from "../game/logs.ts";
import type { LogKind } from "../game/model.ts";
import { isCallsign } from "../lib/callsign.ts";

/** APRS message text: at most 67 characters (APRS 1.01 ch. 14). */
const MESSAGE_MAX = 67;
/** NEAR lists at most this many caches. */
export const NEAR_MAX = 5;
export const NEAR_DEFAULT = 3;
/** NEAR looks this far around the sender's last position. */
const NEAR_KM = 50;
/** A position older than this is not "where the sender is". */
const POSITION_MAX_AGE_MS = 24 * 3_600_000;

export const HELP = ["Geocaching cmds: NEAR [n], INFO/HINT/LOGS <code>,", "FOUND <code> [text], DNF <code> [text], NOTE <code> text"];

export interface Asker {
  /** the sender's callsign as heard */
  call: string;
  /** how the command reached us: our radio, or APRS-IS */
  via: "radio" | "aprsis";
}

/** What a command does: `logged` when it wrote a log (for counting). */
export interface Answer {
  parts: string[];
  logged?: { kind: LogKind; tier: string };
}

const answer = (...parts: string[]): Answer => ({ parts });

/** Text a radio shows: printable ASCII, accents dropped, none of APRS's reserved | ~ {. */
export function radioText(s: string): string {
  return s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[{]/g, "(")
    .replace(/[|~]/g, "/")
    .replace(/[^\x20-\x7e]/g, "?")
    .replace(/\s+/g, " ")
    .trim();
}

const clip = (s: string, n: number) => (s.length <= n ? s : s.slice(0, n - 1).trimEnd() + ".");

/**
 * Packs parts into messages of at most `max` characters: one message when it
 * fits, else numbered `1/3 ...`; a part too long for one message is cut at
 * spaces (or anywhere, for a word longer than a message).
 */
export function splitReply(parts: string[], max = MESSAGE_MAX): string[] {
  const clean = parts.map(radioText).filter((p) => p.length > 0);
  const whole = clean.join(" ");
  if (whole.length <= max) return whole ? [whole] : [];
  // the numbering takes "n/N " (room for up to 99 messages)
  for (const width of [4, 6]) {
    const room = max - width;
    const msgs: string[] = [];
    let cur = "";
    const push = () => {
      if (cur) msgs.push(cur);
      cur = "";
    };
    for (const p of clean) {
      if (cur && cur.length + 1 + p.length <= room) {
        cur += " " + p;
        continue;
      }
      push();
      let rest = p;
      while (rest.length > room) {
        let cut = rest.lastIndexOf(" ", room);
        if (cut <= 0) cut = room;
        msgs.push(rest.slice(0, cut).trimEnd());
        rest = rest.slice(cut).trimStart();
      }
      cur = rest;
    }
    push();
    if (msgs.length < 10 || width === 6) return msgs.map((m, i) => `${i + 1}/${msgs.length} ${m}`);
  }
  return [];
}

/** "850m", "1.2km", "12km" */
function distanceText(m: number): string {
  if (m < 1000) return `${Math.round(m)}m`;
  if (m < 10_000) return `${(m / 1000).toFixed(1)}km`;
  return `${Math.round(m / 1000)}km`;
}

const COMPASS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
/** The initial bearing from one point to another, as one of eight compass points. */
function bearingText(lat1: number, lon1: number, lat2: number, lon2: number): string {
  const r = Math.PI / 180;
  const y = Math.sin((lon2 - lon1) * r) * Math.cos(lat2 * r);
  const x = Math.cos(lat1 * r) * Math.sin(lat2 * r) - Math.sin(lat1 * r) * Math.cos(lat2 * r) * Math.cos((lon2 - lon1) * r);
  const deg = (((Math.atan2(y, x) / r) % 360) + 360) % 360;
  return COMPASS[Math.round(deg / 45) % 8]!;
}

/** "D2/T1.5" */
export const dtText = (c: Pick<CacheRow, "difficulty" | "terrain">) => `D${c.difficulty}/T${c.terrain}`;

/** "N42 37.140 W071 20.830" */
function coordText(lat: number, lon: number): string {
  const dm = (v: number, deg: number) => {
    const a = Math.abs(v);
    let d = Math.floor(a);
    let m = Math.round((a - d) * 60_000) / 1000;
    if (m >= 60) (d += 1), (m = 0);
    return `${String(d).padStart(deg, "0")} ${m.toFixed(3).padStart(6, "0")}`;
  };
  return `${lat < 0 ? "S" : "N"}${dm(lat, 2)} ${lon < 0 ? "W" : "E"}${dm(lon, 3)}`;
}

/** The sender's last position heard (any feed), if recent enough. */
function lastPosition(gw: Core, call: string): { lat: number; lon: number } | null {
  const row = gw.db.query("SELECT lat, lon, last_position_at AS at FROM stations WHERE call = ? AND lat IS NOT NULL").get(call.toUpperCase()) as {
    lat: number;
    lon: number;
    at: number | null;
  } | null;
  if (!row || row.at === null || gw.clock.now() - row.at > POSITION_MAX_AGE_MS) return null;
  return row;
}

/** A cache a player may name: any but drafts. */
function named(gw: Core, code: string | undefined): CacheRow | null {
  if (!code) return null;
  const c = cacheByCode(gw, code);
  return c && c.status !== "draft" ? c : null;
}

const unknownCache = (code: string | undefined) =>
  answer(code ? `No cache ${radioText(code).slice(0, 12)}. NEAR lists codes near you.` : "Which cache? Send the code, e.g. INFO SV0001");

function near(gw: Core, asker: Asker, arg: string | undefined): Answer {
  let n = NEAR_DEFAULT;
  if (arg !== undefined) {
    if (!/^\d{1,2}$/.test(arg)) return answer("NEAR [n]: n is a number, 1 to 5");
    n = Math.min(Math.max(Number(arg), 1), NEAR_MAX);
  }
  const at = lastPosition(gw, asker.call);
  if (!at) return answer(`No position of ${asker.call} heard yet. Send a position, then NEAR.`);
  const found = nearestActiveCaches(gw, at.lat, at.lon, n, NEAR_KM);
  if (!found.length) return answer(`No active cache within ${NEAR_KM}km of you.`);
  return {
    parts: found.map(
      ({ cache, distanceM: d }) =>
        `${codeOf(cache)} ${clip(radioText(cache.name), 20)} ${distanceText(d)} ${bearingText(at.lat, at.lon, cache.lat, cache.lon)} ${dtText(cache)};`,
    ),
  };
}

function info(gw: Core, c: CacheRow): Answer {
  const finds = logbook(gw, String(c.id), null, { limit: 500 }).logs.filter((l) => l.kind === "find" && l.state === "active").length;
  const state = c.status === "active" ? "" : ` ${c.status.toUpperCase()}`;
  return answer(
    `${codeOf(c)} ${clip(radioText(c.name), 40)}${state}`,
    `${c.type} ${c.size} ${dtText(c)} by ${c.owner_call ?? c.placed_by ?? "?"}, ${finds} find${finds === 1 ? "" : "s"}.`,
    coordText(c.lat, c.lon),
  );
}

function hint(c: CacheRow): Answer {
  // hints are kept in clear (the web app shows them ROT13 until asked)
  return c.hint ? answer(`${codeOf(c)} hint: ${c.hint}`) : answer(`${codeOf(c)} has no hint.`);
}

const KIND_WORD: Partial<Record<LogKind, string>> = {
  find: "found",
  dnf: "DNF",
  note: "note",
  "needs-maintenance": "NM",
  "temp-disable": "disabled",
  enable: "enabled",
};

function logs(gw: Core, c: CacheRow): Answer {
  const last = logbook(gw, String(c.id), null, { limit: 3 }).logs.filter((l) => l.state === "active");
  if (!last.length) return answer(`${codeOf(c)}: no logs yet.`);
  return {
    parts: last.map((l) => {
      const day = new Date(l.foundAt).toISOString().slice(5, 10);
      return `${l.call ?? "?"} ${KIND_WORD[l.kind] ?? l.kind} ${day}${l.text ? ": " + clip(radioText(l.text), 40) : ""};`;
    }),
  };
}

/** The game's refusals (HttpError codes) in a radio's words. */
function refusal(e: unknown, c: CacheRow, asker: Asker): Answer {
  const code = (e as { code?: string }).code;
  const cc = codeOf(c);
  if (code === "own_cache") return answer(`${cc} is your own cache: no find logged.`);
  if (code === "already_found") return answer(`${asker.call} already logged a find on ${cc}.`);
  if (code === "cache_archived") return answer(`${cc} is archived: only NOTE is taken.`);
  if (code === "clock_not_set") return answer("The station's clock is not set: try again later.");
  // any other refusal of the game (4xx): its reason, briefly
  const status = (e as { status?: number }).status;
  if (code === "invalid" || (status !== undefined && status < 500)) return answer(`Not logged: ${clip(radioText((e as Error).message), 50)}`);
  throw e;
}

function log(gw: Core, asker: Asker, kind: LogKind, c: CacheRow, text: string | undefined): Answer {
  if (kind === "note" && !text) return answer("NOTE <code> text: the note needs text.");
  // a tactical call or object name logs nothing: a log is a licensee's
  if (!isCallsign(asker.call)) return answer("Logs need a callsign such as N0CALL-7.");
  let l;
  try {
    l = logFromRadio(gw, c.id, { call: asker.call, kind, text: text ?? null, via: asker.via });
  } catch (e) {
    return refusal(e, c, asker);
  }
  const tier = (l.tier ?? "c").toUpperCase();
  const what = kind === "find" ? "Find" : kind === "dnf" ? "DNF" : "Note";
  const more = kind === "find" && l.tier !== "a" ? " Beacon there for A." : "";
  return { parts: [`${what} on ${codeOf(c)} logged for ${asker.call}, Tier ${tier}.${more}`], logged: { kind, tier: l.tier ?? "c" } };
}

/** Answers one command (any case, extra spaces allowed). Never throws for what the player sent. */
export function answerCommand(gw: Core, asker: Asker, raw: string): Answer {
  const text = raw.trim();
  const m = /^(\S+)(?:\s+(\S+))?(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return answer(...HELP);
  const verb = m[1]!.toUpperCase();
  const arg = m[2];
  const rest = m[3]?.trim() || undefined;
  switch (verb) {
    case "HELP":
    case "?":
    case "H":
      return answer(...HELP);
    case "NEAR":
      return near(gw, asker, arg);
    case "INFO":
    case "HINT":
    case "LOGS":
    case "FOUND":
    case "DNF":
    case "NOTE": {
      const c = named(gw, arg);
      if (!c) return unknownCache(arg);
      if (verb === "INFO") return info(gw, c);
      if (verb === "HINT") return hint(c);
      if (verb === "LOGS") return logs(gw, c);
      return log(gw, asker, verb === "FOUND" ? "find" : verb === "DNF" ? "dnf" : "note", c, rest);
    }
    default:
      return answer(`Unknown command ${clip(radioText(verb), 10)}. Send HELP.`);
  }
}
