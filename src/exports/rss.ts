/**
 * RSS 2.0 feeds under /feeds/: activity, caches, bulletins, leaderboard and
 * one per callsign. Bulletins come from every source registered in
 * BULLETIN_SOURCES (APRS bulletins heard, federated bulletins and the BBS's
 * own bulletins).
 */
import type { Core } from "../core/core.ts";
import { notFound } from "../lib/errors.ts";
import { baseCall, isCallsign } from "../lib/callsign.ts";
import { activity, leaderboard } from "../game/stats.ts";
import { cacheJson, type CacheRow } from "../game/caches.ts";
import { esc, rfc822 } from "./xml.ts";
import type { LogKind } from "../game/model.ts";

export const RSS_TYPE = "application/rss+xml; charset=utf-8";

export interface RssItem {
  title: string;
  link: string;
  description: string;
  guid: string;
  at: number;
  category?: string;
}

export interface BulletinSource {
  name: string;
  items(gw: Core, base: string, limit: number): RssItem[];
}

const aprsBulletins: BulletinSource = {
  name: "aprs",
  items: (gw, base, limit) =>
    (
      gw.db
        .query("SELECT id, ts, src, addressee, text FROM aprs_messages WHERE kind IN ('bulletin', 'announcement') ORDER BY ts DESC LIMIT ?")
        .all(limit) as Array<{ id: number; ts: number; src: string; addressee: string; text: string }>
    ).map((m) => ({
      title: `${m.addressee} from ${m.src}: ${m.text.slice(0, 60)}`,
      link: `${base}/station/${encodeURIComponent(m.src)}`,
      description: m.text,
      guid: `aprs-bulletin-${m.id}`,
      at: m.ts,
      category: "APRS",
    })),
};

const federatedBulletins: BulletinSource = {
  name: "federation",
  items: (gw, base, limit) =>
    (
      gw.db
        .query(
          `SELECT b.gid, b.from_call AS fromCall, b.category, b.subject, b.text, b.posted_at AS postedAt FROM mirror_bulletins b
         JOIN peers p ON p.instance = b.origin WHERE p.trust = 'trusted' AND b.category <> 'SVCFED' ORDER BY b.posted_at DESC LIMIT ?`,
        )
        .all(limit) as Array<{ gid: string; fromCall: string; category: string; subject: string; text: string; postedAt: number }>
    ).map((b) => ({
      title: `${b.category}: ${b.subject} (${b.fromCall})`,
      link: `${base}/bbs`,
      description: b.text,
      guid: b.gid,
      at: b.postedAt,
      category: b.category,
    })),
};

/** The bulletins this BBS holds (posted here or forwarded to it), not killed; SVCFED is machine traffic. */
const bbsBulletins: BulletinSource = {
  name: "bbs",
  items: (gw, base, limit) =>
    (
      gw.db
        .query(
          `SELECT id, bid, from_call AS fromCall, to_call AS category, subject, body, created_at AS at FROM bbs_messages
         WHERE type = 'B' AND killed_at IS NULL AND to_call <> 'SVCFED' ORDER BY created_at DESC, id DESC LIMIT ?`,
        )
        .all(limit) as Array<{ id: number; bid: string; fromCall: string; category: string; subject: string; body: string; at: number }>
    ).map((b) => ({
      title: `${b.category}: ${b.subject} (${b.fromCall})`,
      link: `${base}/bbs/msg/${b.id}`,
      description: b.body,
      guid: `bbs-bulletin-${b.bid}`,
      at: b.at,
      category: b.category,
    })),
};

/** Every source of bulletins for /feeds/bulletins.xml. A domain adds one line. */
const BULLETIN_SOURCES: BulletinSource[] = [aprsBulletins, federatedBulletins, bbsBulletins];

function rssDocument(ch: { title: string; link: string; self: string; description: string; items: RssItem[] }): string {
  const items = ch.items
    .map(
      (i) => `    <item>
      <title>${esc(i.title)}</title>
      <link>${esc(i.link)}</link>
      <description>${esc(i.description)}</description>
      <guid isPermaLink="false">${esc(i.guid)}</guid>
      <pubDate>${rfc822(i.at)}</pubDate>${i.category ? `\n      <category>${esc(i.category)}</category>` : ""}
    </item>`,
    )
    .join("\n");
  const last = ch.items.reduce((m, i) => Math.max(m, i.at), 0);
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>${esc(ch.title)}</title>
    <link>${esc(ch.link)}</link>
    <description>${esc(ch.description)}</description>
    <atom:link href="${esc(ch.self)}" rel="self" type="application/rss+xml"/>
    <generator>svc-gateway</generator>${last ? `\n    <lastBuildDate>${rfc822(last)}</lastBuildDate>` : ""}
${items}
  </channel>
</rss>
`;
}

const LIMIT = 50;

/** An item's title says what the log's writer did to the cache: "N0ABC will attend Meet at the mill". */
const RSS_VERB: Record<LogKind, string> = {
  find: "found",
  dnf: "did not find",
  note: "wrote a note on",
  "needs-maintenance": "reported a maintenance need on",
  "needs-archive": "asked to archive",
  "owner-maintenance": "did maintenance on",
  "temp-disable": "disabled",
  enable: "enabled",
  archive: "archived",
  "reviewer-note": "wrote a reviewer note on",
  "will-attend": "will attend",
  attended: "attended",
};

function activityItems(gw: Core, base: string, call?: string): RssItem[] {
  return activity(gw, { limit: LIMIT, call }).items.map((i) =>
    i.type === "log"
      ? {
          title: `${i.call ?? "someone"} ${RSS_VERB[i.kind as LogKind] ?? RSS_VERB.note} ${i.cacheName}${i.tier === "a" ? " (RF-verified)" : ""}`,
          link: `${base}/cache/${encodeURIComponent(String(i.cacheId))}`,
          description: i.text ?? "",
          guid: i.gid,
          at: i.createdAt,
          category: i.kind,
        }
      : {
          title: `New cache: ${i.cache.name} by ${i.cache.ownerCall ?? "?"}`,
          link: `${base}/cache/${i.cache.id}`,
          description: `${i.cache.type}, ${i.cache.size}, D${i.cache.difficulty}/T${i.cache.terrain}`,
          guid: i.cache.gid,
          at: i.at,
          category: "cache",
        },
  );
}

/** One feed by its file name: activity.xml, caches.xml, bulletins.xml, leaderboard.xml, or user/CALL.xml. */
export function feed(gw: Core, base: string, name: string): string {
  const instance = gw.config.instance;
  const self = `${base}/feeds/${name}`;
  switch (name) {
    case "activity.xml":
      return rssDocument({
        title: `${instance}: geocaching activity`,
        link: `${base}/activity`,
        self,
        description: "Finds, DNFs, notes and new caches",
        items: activityItems(gw, base),
      });
    case "caches.xml": {
      const rows = gw.db
        .query("SELECT * FROM caches WHERE status IN ('active', 'disabled') AND unlisted = 0 ORDER BY created_at DESC, id DESC LIMIT ?")
        .all(LIMIT) as CacheRow[];
      const items = rows.map((r) => {
        const c = cacheJson(gw, r, false);
        return {
          title: `${c.name} (${c.code})`,
          link: `${base}/cache/${c.id}`,
          description: `${c.type}, ${c.size}, D${c.difficulty}/T${c.terrain}, by ${c.ownerCall ?? c.placedBy ?? "?"}. ${c.description ?? ""}`,
          guid: c.gid,
          at: r.created_at,
          category: c.type,
        };
      });
      return rssDocument({ title: `${instance}: new caches`, link: `${base}/map`, self, description: "Caches hidden on this instance", items });
    }
    case "bulletins.xml": {
      const items = BULLETIN_SOURCES.flatMap((s) => s.items(gw, base, LIMIT))
        .sort((a, b) => b.at - a.at)
        .slice(0, LIMIT);
      return rssDocument({ title: `${instance}: bulletins`, link: `${base}/`, self, description: "APRS and BBS bulletins", items });
    }
    case "leaderboard.xml": {
      const lb = leaderboard(gw, { limit: 20 });
      const day = new Date(gw.clock.now()).toISOString().slice(0, 10);
      const at = Date.parse(day);
      const items = lb.finders.map((f, k) => ({
        title: `${k + 1}. ${f.call}: ${f.finds} ${f.finds === 1 ? "find" : "finds"} (${f.tierA} RF-verified)`,
        link: `${base}/profile/${f.call}`,
        description: `${f.call} is number ${k + 1} on ${instance} with ${f.finds} ${f.finds === 1 ? "find" : "finds"}, ${f.tierA} of them RF-verified.`,
        guid: `leaderboard-${day}-${k + 1}-${f.call}`,
        at,
        category: "finders",
      }));
      return rssDocument({ title: `${instance}: leaderboard`, link: `${base}/leaderboard`, self, description: "Top finders, daily", items });
    }
  }
  const m = /^user\/([A-Za-z0-9-]{3,12})\.xml$/.exec(name);
  if (m && isCallsign(m[1]!)) {
    const call = baseCall(m[1]!);
    return rssDocument({
      title: `${call} on ${instance}`,
      link: `${base}/profile/${call}`,
      self,
      description: `Finds, notes and caches of ${call}`,
      items: activityItems(gw, base, call),
    });
  }
  throw notFound(`feed ${name}`);
}
