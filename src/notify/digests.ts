/**
 * Watch-alert digests (the `watch-digests` task, hourly): new logs on the
 * caches an account watches, batched per account as its notification
 * settings ask (hourly or daily; e-mail, web push or both), each log in one
 * digest per channel and never sent twice.
 *
 * Two steps, both recorded in the database so a restart changes nothing:
 * making digests (in one transaction: the account's cursor moves past the
 * logs it reports, and a `pending` row per channel is written), then sending
 * them (each is marked `sending` before it goes out and `sent` after). A
 * refusal (the mail server says no, every push service fails) leaves it
 * `pending` for the next run, up to MAX_ATTEMPTS. A digest found `sending`
 * when the task starts was cut off by a crash after it may have gone out:
 * it becomes `unknown` and is not sent again.
 *
 *   await runWatchDigests(gw)   // { made: 2, sent: 2, failed: 0, retry: 0 }
 */
import type { Core } from "../core/core.ts";
import { sendMail } from "./mail.ts";
import { sendPush } from "./push.ts";
import { getPrefs } from "../accounts/prefs.ts";
import { accountLanguage, translator, type Translate } from "../i18n/server.ts";
import { LOG_KINDS } from "../game/model.ts";

const MAX_ATTEMPTS = 5;
/** Logs one digest lists; more are counted, not listed. */
const MAX_LISTED = 50;
/** The cron is not exact: a digest an hour (a day) after the last is due a little early. */
const SLACK_MS = 5 * 60_000;
const PERIOD_MS = { hourly: 3_600_000, daily: 24 * 3_600_000 } as const;

interface Candidate {
  userId: number;
  digest: "hourly" | "daily";
  email: number;
  push: number;
  address: string | null;
  subscriptions: number;
  lastLogId: number | null;
  lastAt: number | null;
}

/** Makes the digests that are due; returns how many rows were written. */
export function makeDigests(gw: Core): number {
  const now = gw.clock.now();
  return gw.db.transaction(() => {
    const candidates = gw.db
      .query(
        `SELECT n.user_id AS userId, n.digest, n.email, n.push, u.email AS address,
           (SELECT count(*) FROM push_subscriptions p WHERE p.user_id = n.user_id) AS subscriptions,
           s.last_log_id AS lastLogId, s.last_at AS lastAt
         FROM notify_prefs n JOIN users u ON u.id = n.user_id LEFT JOIN watch_digest_state s ON s.user_id = n.user_id
         WHERE n.digest <> 'off' AND (n.email = 1 OR n.push = 1) AND EXISTS (SELECT 1 FROM watches w WHERE w.user_id = n.user_id)`,
      )
      .all() as Candidate[];
    let made = 0;
    for (const c of candidates) {
      // (a clock stepped back past the last digest does not hold the next one until it catches up)
      if (c.lastAt !== null && now >= c.lastAt && now - c.lastAt < PERIOD_MS[c.digest] - SLACK_MS) continue;
      // New logs on watched caches since the cursor, logged after the watch began, by others.
      const ids = (
        gw.db
          .query(
            `SELECT l.id FROM logs l JOIN watches w ON w.cache_id = l.cache_id AND w.user_id = ?1
             WHERE l.id > ?2 AND l.created_at >= w.created_at AND l.state = 'active' AND (l.user_id IS NULL OR l.user_id <> ?1)
             ORDER BY l.id`,
          )
          .all(c.userId, c.lastLogId ?? 0) as Array<{ id: number }>
      ).map((r) => r.id);
      if (ids.length === 0) continue;
      const channels: Array<"email" | "push"> = [];
      if (c.email && c.address) channels.push("email");
      if (c.push && c.subscriptions > 0) channels.push("push");
      for (const ch of channels) {
        gw.db
          .query("INSERT INTO watch_digests (user_id, channel, log_ids, state, created_at) VALUES (?, ?, ?, 'pending', ?)")
          .run(c.userId, ch, JSON.stringify(ids), now);
        made++;
      }
      gw.db
        .query(
          "INSERT INTO watch_digest_state (user_id, last_log_id, last_at) VALUES (?1, ?2, ?3) ON CONFLICT(user_id) DO UPDATE SET last_log_id = ?2, last_at = ?3",
        )
        .run(c.userId, ids[ids.length - 1]!, now);
    }
    return made;
  })();
}

interface DigestLog {
  id: number;
  kind: string;
  call: string | null;
  text: string | null;
  createdAt: number;
  cacheId: number;
  name: string;
}

/** The logs of a digest still to report (withdrawn ones are left out), grouped by cache. */
function digestLogs(gw: Core, ids: number[]): DigestLog[] {
  return gw.db
    .query(
      `SELECT l.id, l.kind, l.call, l.text, l.created_at AS createdAt, c.id AS cacheId, c.name
       FROM logs l JOIN caches c ON c.id = l.cache_id
       WHERE l.id IN (SELECT value FROM json_each(?)) AND l.state = 'active' ORDER BY c.name, c.id, l.id`,
    )
    .all(JSON.stringify(ids)) as DigestLog[];
}

const base = (gw: Core) => gw.config.publicUrl ?? gw.url ?? `http://localhost:${gw.config.port}`;
/** What a log of this kind says its writer did ("found it", "will attend", "reported that it needs maintenance"); a kind unknown here reads as a note. */
const verb = (t: Translate, kind: string) => t((LOG_KINDS as readonly string[]).includes(kind) ? `digest.${kind}` : "digest.note");
const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";

/** The e-mail, in the account's language (its `lang` preference): every log under its cache, with links. */
function digestMail(gw: Core, logs: DigestLog[], period: string, t: Translate): { subject: string; text: string } {
  const lines: string[] = [t("digest.intro", { instance: gw.config.instance }), ""];
  let cache = -1;
  for (const l of logs.slice(0, MAX_LISTED)) {
    if (l.cacheId !== cache) {
      cache = l.cacheId;
      if (lines.length > 2) lines.push("");
      lines.push(`${l.name}  ${base(gw)}/cache/${l.cacheId}`);
    }
    lines.push(`  ${l.call ?? t("digest.someone")} ${verb(t, l.kind)}, ${when(l.createdAt)}${l.text ? `: ${l.text.replace(/\s+/g, " ").slice(0, 200)}` : ""}`);
  }
  if (logs.length > MAX_LISTED) lines.push("", t("digest.more", { count: logs.length - MAX_LISTED }));
  const every = period === "hourly" || period === "daily" ? t(`digest.${period}`) : period;
  lines.push("", t("digest.why", { period: every }), t("digest.change", { url: `${base(gw)}/account` }));
  return { subject: t("digest.subject", { count: logs.length }), text: lines.join("\n") + "\n" };
}

/** The push notification: a count and the first few, opening the cache when there is one. */
function digestPush(logs: DigestLog[], t: Translate): { title: string; body: string; url: string } {
  const caches = new Set(logs.map((l) => l.cacheId));
  const body = logs
    .slice(0, 3)
    .map((l) => `${l.call ?? t("digest.someone")} ${verb(t, l.kind)}: ${l.name}`)
    .join("\n");
  return {
    title: t("digest.subject", { count: logs.length }),
    body: (body + (logs.length > 3 ? `\n${t("digest.morePush", { count: logs.length - 3 })}` : "")).slice(0, 500),
    url: caches.size === 1 ? `/cache/${logs[0]!.cacheId}` : "/account",
  };
}

export interface DigestReport {
  made: number;
  sent: number;
  failed: number;
  retry: number;
  unknown: number;
}

/** The task: settle digests a crash cut off, make the due ones, send every pending one. */
export async function runWatchDigests(gw: Core): Promise<DigestReport> {
  const unknown = gw.db
    .query("UPDATE watch_digests SET state = 'unknown', error = 'cut off while sending (the gateway stopped)' WHERE state = 'sending'")
    .run().changes;
  const made = makeDigests(gw);
  const report: DigestReport = { made, sent: 0, failed: 0, retry: 0, unknown };
  const pending = gw.db
    .query(
      `SELECT d.id, d.user_id AS userId, d.channel, d.log_ids AS logIds, d.attempts, u.email AS address, coalesce(n.digest, 'daily') AS period
       FROM watch_digests d JOIN users u ON u.id = d.user_id LEFT JOIN notify_prefs n ON n.user_id = d.user_id
       WHERE d.state = 'pending' ORDER BY d.id`,
    )
    .all() as Array<{ id: number; userId: number; channel: "email" | "push"; logIds: string; attempts: number; address: string | null; period: string }>;
  const mark = (id: number, state: string, error: string | null) =>
    gw.db
      .query("UPDATE watch_digests SET state = ?, error = ?, sent_at = CASE WHEN ? = 'sent' THEN ? ELSE sent_at END WHERE id = ?")
      .run(state, error, state, gw.clock.now(), id);
  for (const d of pending) {
    const logs = digestLogs(gw, JSON.parse(d.logIds) as number[]);
    if (logs.length === 0 || (d.channel === "email" && !d.address)) {
      mark(d.id, "failed", logs.length === 0 ? "nothing left to report (the logs were withdrawn or deleted)" : "the account has no e-mail address any more");
      report.failed++;
      continue;
    }
    gw.db.query("UPDATE watch_digests SET state = 'sending', attempts = attempts + 1 WHERE id = ?").run(d.id);
    let error: string | null = null;
    const t = translator(accountLanguage(getPrefs(gw, d.userId)));
    try {
      if (d.channel === "email") {
        await sendMail(gw, { to: d.address!, ...digestMail(gw, logs, d.period, t) });
      } else {
        const r = await sendPush(gw, d.userId, digestPush(logs, t));
        if (r.sent === 0) error = r.failed > 0 ? `every push service refused it (${r.failed})` : "no push subscription left";
        if (r.sent === 0 && r.failed === 0) {
          mark(d.id, "failed", error);
          report.failed++;
          continue;
        }
      }
    } catch (e) {
      error = String((e as Error)?.message ?? e);
    }
    if (error === null) {
      mark(d.id, "sent", null);
      report.sent++;
    } else if (d.attempts + 1 >= MAX_ATTEMPTS) {
      mark(d.id, "failed", error);
      report.failed++;
      gw.log.warn("digests", `gave up on a watch digest after ${MAX_ATTEMPTS} attempts`, { id: d.id, channel: d.channel, error });
    } else {
      mark(d.id, "pending", error);
      report.retry++;
    }
  }
  return report;
}
