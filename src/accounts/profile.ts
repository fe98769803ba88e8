/**
 * Thin, opt-in public profiles. An account chooses to publish a profile for
 * its verified callsign; until it does, `GET /api/profile/:call` says nothing
 * about whether an account exists. There is no name or address field and no
 * directory: a profile is found only by its callsign.
 *
 * Other domains add public facts about a callsign (e.g. the game's find
 * counts, which are public in logbooks anyway) by adding a section to
 * PROFILE_SECTIONS; each returns a JSON value or null (left out).
 */
import type { Core } from "../core/core.ts";
import { badRequest } from "../lib/errors.ts";
import { baseCall } from "../lib/callsign.ts";
import { parseCallsign, verifiedHolder } from "./users.ts";
import { gameProfile } from "../game/account-data.ts";
import type { ProfileSection } from "./data-sections.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable } from "../lib/schema.ts";

/** The public fields of a profile, each there only when set. */
const PUBLIC_FIELDS = {
  about: t.Optional(t.String({ description: "a short free text, at most 280 characters" })),
  grid: t.Optional(t.String({ description: "Maidenhead locator, 4 or 6 characters" })),
  url: t.Optional(t.String({ description: "one https link (QRZ page, club, blog)" })),
};

/** The account's profile settings, as its holder sees them (GET and POST /auth/profile). */
export const PROFILE = closed({ public: t.Boolean({ description: "published at /api/profile/{call}" }), ...PUBLIC_FIELDS });
export type Profile = Static<typeof PROFILE>;

/** Sections other domains add to public profiles. One line per domain. */
export const PROFILE_SECTIONS: ProfileSection[] = [gameProfile];

/** GET /api/profile/{call}: what anyone may see about a callsign. */
export const PUBLIC_PROFILE = closed({
  call: t.String({ description: "the base call" }),
  profile: nullable(closed(PUBLIC_FIELDS), "the verified holder's profile when they made it public, else null"),
  // each domain's section, there when it has something to say about the call
  ...Object.fromEntries(PROFILE_SECTIONS.map((s) => [s.name, t.Optional(s.schema)])),
});
/** The sections are named by PROFILE_SECTIONS at run time: the type names only the fixed members. */
export type PublicProfile = Static<typeof PUBLIC_PROFILE> & { [section: string]: unknown };

export function profileOf(gw: Core, userId: number): Profile {
  const row = gw.db.query("SELECT profile FROM users WHERE id = ?").get(userId) as { profile: string } | null;
  const p = row ? (JSON.parse(row.profile) as Partial<Profile>) : {};
  return { public: p.public === true, ...(p.about ? { about: p.about } : {}), ...(p.grid ? { grid: p.grid } : {}), ...(p.url ? { url: p.url } : {}) };
}

/** The public profile's settings (POST /auth/profile, and an account bundle's import). */
export const PROFILE_BODY = closed({
  public: t.Optional(t.Boolean({ description: "show the profile at /api/profile/:call" })),
  about: t.Optional(t.Nullable(t.String({ maxLength: 280, description: "a few words, at most 280 characters; null or empty clears" }))),
  grid: t.Optional(t.Nullable(t.String({ description: "a Maidenhead locator such as FN42 or FN42ab; null or empty clears" }))),
  url: t.Optional(t.Nullable(t.String({ maxLength: 200, description: "an https:// link, at most 200 characters; null or empty clears" }))),
});

/** Updates the fields given; `null` or "" clears a field. Returns the new profile. */
export function updateProfile(gw: Core, userId: number, body: Static<typeof PROFILE_BODY>): Profile {
  const p: Profile = profileOf(gw, userId);
  if (body.public !== undefined) p.public = body.public;
  if (body.about !== undefined) {
    if (!body.about) delete p.about;
    else p.about = body.about.trim();
  }
  if (body.grid !== undefined) {
    if (!body.grid) delete p.grid;
    else if (!/^[A-R]{2}[0-9]{2}([A-X]{2})?$/i.test(body.grid)) throw badRequest("invalid", "grid must be a Maidenhead locator such as FN42 or FN42ab");
    else p.grid = body.grid.slice(0, 4).toUpperCase() + body.grid.slice(4).toLowerCase();
  }
  if (body.url !== undefined) {
    if (!body.url) delete p.url;
    else {
      let ok = false;
      try {
        ok = new URL(body.url).protocol === "https:";
      } catch {}
      if (!ok) throw badRequest("invalid", "url must be an https:// link of at most 200 characters");
      p.url = body.url;
    }
  }
  gw.db.query("UPDATE users SET profile = ? WHERE id = ?").run(JSON.stringify(p), userId);
  return p;
}

/** What anyone may see about a callsign: the verified holder's profile if they opted in, and other domains' sections. */
export function publicProfile(gw: Core, rawCall: unknown): PublicProfile {
  const call = baseCall(parseCallsign(rawCall));
  const holder = verifiedHolder(gw.db, call);
  const p = holder !== null ? profileOf(gw, holder) : null;
  const out: PublicProfile = {
    call,
    profile: p && p.public ? { ...(p.about ? { about: p.about } : {}), ...(p.grid ? { grid: p.grid } : {}), ...(p.url ? { url: p.url } : {}) } : null,
  };
  for (const s of PROFILE_SECTIONS) {
    const v = s.build(gw, call);
    if (v !== null && v !== undefined) out[s.name] = v;
  }
  return out;
}
