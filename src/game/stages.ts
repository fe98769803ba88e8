/**
 * Audio-cache stages: numbered from 1; each is unlocked by its answer, in
 * order. Before stage n is unlocked a player sees its title and, once stage
 * n-1 is unlocked (or n = 1), its question and audio; unlocking reveals its
 * content (e.g. the next coordinates). Only a salted hash of each
 * normalised answer is stored.
 */
import { createHash } from "node:crypto";
import type { Core } from "../core/core.ts";
import { badRequest, conflict, forbidden, notFound, unprocessable } from "../lib/errors.ts";
import { isOwner, visibleRow } from "./cache-lookup.ts";
import { callsign, text, type Actor } from "./model.ts";
import { verifiedHolder } from "../accounts/users.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";

export const MAX_STAGES = 20;

/** Case, surrounding and repeated whitespace and Unicode forms do not matter. */
const normaliseAnswer = (a: string) => a.normalize("NFKC").trim().toLowerCase().replace(/\s+/g, " ");
const answerHash = (cacheId: number, n: number, answer: string) =>
  createHash("sha256")
    .update(`svc-stage/1\n${cacheId}\n${n}\n${normaliseAnswer(answer)}`)
    .digest("base64url");

interface StageRow {
  n: number;
  title: string;
  question: string;
  content: string;
  media_id: number | null;
}

/** A stage as the caller sees it: its question once the stage before is unlocked, its content once it is. */
export const STAGE_VIEW = closed({
  n: wholeNumber({ description: "the stage number, from 1" }),
  title: t.String(),
  question: t.Optional(t.String({ description: "shown once the stage before is unlocked (or for stage 1)" })),
  audio: t.Optional(nullable(t.String(), "with the question: the stage's audio file (/api/media/{id}); null: none")),
  unlocked: t.Boolean({ description: "the caller unlocked it (the owner sees every stage unlocked)" }),
  content: t.Optional(t.String({ description: "revealed once unlocked" })),
});
export type StageView = Static<typeof STAGE_VIEW>;
/** A cache's stages and the first the caller has not unlocked. */
export const STAGES = closed({
  stages: t.Array(STAGE_VIEW),
  next: nullable(wholeNumber(), "the first stage still locked; null: all unlocked"),
});
/** An unlocked stage, and the stage after it (null after the last). */
export const STAGE_UNLOCKED = closed({ unlocked: STAGE_VIEW, next: nullable(STAGE_VIEW, "the next stage; null after the last") });

function unlockedSet(gw: Core, cacheId: number, userId: number | null): Set<number> {
  if (userId === null) return new Set();
  return new Set((gw.db.query("SELECT n FROM stage_unlocks WHERE cache_id = ? AND user_id = ?").all(cacheId, userId) as Array<{ n: number }>).map((r) => r.n));
}

export function listStages(gw: Core, cacheId: number, actor: Actor | null): Static<typeof STAGES> {
  const c = visibleRow(gw, cacheId, actor);
  const rows = gw.db.query("SELECT n, title, question, content, media_id FROM stages WHERE cache_id = ? ORDER BY n").all(cacheId) as StageRow[];
  const owner = !!actor && isOwner(actor, c);
  const done = unlockedSet(gw, cacheId, actor?.userId ?? null);
  const stages = rows.map((r): StageView => {
    const unlocked = owner || done.has(r.n);
    const open = unlocked || r.n === 1 || done.has(r.n - 1);
    return {
      n: r.n,
      title: r.title,
      ...(open ? { question: r.question, audio: r.media_id ? `/api/media/${r.media_id}` : null } : {}),
      unlocked,
      ...(unlocked ? { content: r.content } : {}),
    };
  });
  const next = stages.find((s) => !s.unlocked)?.n ?? null;
  return { stages, next };
}

/** The owner sets every stage at once: `{stages: [{title, question, content, answer, audioMediaId?}]}`. Unlocks start over. */
/** The stages as a body sends them: the shape is checked at the route; the texts here. */
export interface StagesBody {
  stages: Array<{ title: string; question: string; content: string; answer: string; audioMediaId?: number | null }>;
}

export function setStages(gw: Core, actor: Actor, cacheId: number, body: StagesBody) {
  const c = visibleRow(gw, cacheId, actor);
  if (!isOwner(actor, c)) throw forbidden("only the cache's owner sets its stages", "not_owner");
  const stages = body.stages.map((s, i) => {
    const media = s.audioMediaId ?? null;
    if (media !== null) {
      const m = gw.db.query("SELECT type FROM media WHERE id = ? AND cache_id = ?").get(media, cacheId) as { type: string } | null;
      if (!m || !m.type.startsWith("audio/")) throw badRequest("invalid", `stages[${i}].audioMediaId is an audio file of this cache`);
    }
    const answer = text(s.answer, `stages[${i}].answer`, 1, 200);
    return {
      title: text(s.title, `stages[${i}].title`, 1, 100),
      question: text(s.question, `stages[${i}].question`, 1, 1000),
      content: text(s.content, `stages[${i}].content`, 1, 4000),
      answer,
      media: media as number | null,
    };
  });
  gw.db.transaction(() => {
    gw.db.query("DELETE FROM stage_unlocks WHERE cache_id = ?").run(cacheId);
    gw.db.query("DELETE FROM stages WHERE cache_id = ?").run(cacheId);
    stages.forEach((s, i) =>
      gw.db
        .query("INSERT INTO stages (cache_id, n, title, question, content, media_id, answer_hash) VALUES (?, ?, ?, ?, ?, ?, ?)")
        .run(cacheId, i + 1, s.title, s.question, s.content, s.media, answerHash(cacheId, i + 1, s.answer)),
    );
  })();
  return listStages(gw, cacheId, actor);
}

/**
 * Unlocks stage n with its answer; stage n-1 must be unlocked first. The
 * ingest box relays a player heard on RF: it names `call`, and the unlock is
 * the account's that holds that callsign verified.
 */
export function unlockStage(gw: Core, actor: Actor, cacheId: number, n: number, body: { answer: string; call?: string }): Static<typeof STAGE_UNLOCKED> {
  visibleRow(gw, cacheId, actor);
  const row = gw.db.query("SELECT n, answer_hash AS hash FROM stages WHERE cache_id = ? AND n = ?").get(cacheId, n) as { n: number; hash: string } | null;
  if (!row) throw notFound(`stage ${n}`);
  if (actor.userId === null) {
    if (body.call === undefined) throw badRequest("invalid", "the ingest box names the player: call");
    const call = callsign(body.call, "call");
    const holder = verifiedHolder(gw.db, call);
    if (holder === null) throw notFound(`an account holding ${call} verified`);
    actor = { userId: holder, call, verified: true, ingest: false, via: "ingest" };
  }
  const userId = actor.userId!;
  const done = unlockedSet(gw, cacheId, userId);
  if (n > 1 && !done.has(n - 1)) throw conflict("locked_in_order", `unlock stage ${n - 1} first`);
  const answer = text(body.answer, "answer", 1, 200);
  if (!done.has(n)) {
    if (answerHash(cacheId, n, answer) !== row.hash) throw unprocessable("wrong_answer", "that is not the answer");
    gw.db.query("INSERT OR IGNORE INTO stage_unlocks (cache_id, user_id, n, created_at) VALUES (?, ?, ?, ?)").run(cacheId, userId, n, gw.clock.now());
  }
  const view = listStages(gw, cacheId, actor);
  return { unlocked: view.stages.find((s) => s.n === n)!, next: view.stages.find((s) => s.n === n + 1) ?? null };
}
