/**
 * Hub and spoke. A spoke (FED_HUB_URL set) pushes its own signed records to
 * its hub on the cron and after its writes: `POST /federation/submit`, a CBOR
 * sync page, with `x-fed-secret` (the network's FED_SUBMIT_SECRET).
 *
 * The hub takes a submission only when it carries exactly one signing key and
 * the submitter is its own signer: every frame is the same instance's own
 * record (origin = signer = that instance) under that one key. A submitter it
 * does not know yet joins as an unvetted peer pinned to that key (the shared
 * secret is what admits it); a known one must use a key it accepts for it (a
 * key change without a signed rotation is refused). Then the frames go through
 * the one apply pipeline.
 */
import type { Core } from "../core/core.ts";
import { badRequest, conflict, forbidden } from "../lib/errors.ts";
import { applyFrames } from "./apply.ts";
import type { SubmitReport } from "./shapes.ts";
import { DialError, fedFetch } from "./dial.ts";
import { instanceSigner, readFeed } from "./feed.ts";
import { CBOR_TYPE, decodePage, encodePage } from "../lib/fed/page.ts";
import { getPeer, peerKeys, upsertPeer } from "./peers.ts";
import { decodeFrame, decodePayload, RECORD_TYPES, RecordError } from "../lib/fed/record.ts";

/** POST /federation/submit: a spoke's own records. */
export async function submit(gw: Core, bytes: Uint8Array): Promise<SubmitReport> {
  let frames: Uint8Array[];
  try {
    frames = decodePage(bytes).frames;
  } catch (e) {
    if (e instanceof RecordError) throw badRequest("bad_page", `the submission cannot be read: ${e.message}`);
    throw e;
  }
  if (frames.length === 0) throw badRequest("empty", "the submission carries no frames");
  const keys = new Set<string>();
  const origins = new Set<string>();
  for (const [i, f] of frames.entries()) {
    try {
      const frame = decodeFrame(f);
      const p = decodePayload(frame.payload);
      keys.add(frame.signerKey);
      origins.add(p.origin);
      if (p.signer !== p.origin)
        throw badRequest(
          "not_own_signer",
          `frame ${i} (${p.gid}) is signed for ${p.signer}, not by its instance ${p.origin}: a submitter submits only what it signed itself`,
        );
    } catch (e) {
      if (e instanceof RecordError) throw badRequest("bad_frame", `frame ${i} cannot be read: ${e.message}`);
      throw e;
    }
  }
  if (keys.size !== 1) throw badRequest("multiple_keys", `a submission carries exactly one signing key; this one carries ${keys.size}: rejected whole`);
  if (origins.size !== 1)
    throw badRequest("not_own_signer", `a submission carries one instance's own records; this one carries ${[...origins].join(", ")}: rejected whole`);
  const key = [...keys][0]!;
  const submitter = [...origins][0]!;
  if (submitter === gw.config.instance) throw conflict("self", "these are this instance's own records");
  const owner = gw.db
    .query("SELECT p.instance FROM peer_keys k JOIN peers p ON p.id = k.peer_id WHERE k.public_key = ? AND k.status = 'active' AND p.instance <> ? LIMIT 1")
    .get(key, submitter) as { instance: string } | null;
  if (owner) throw badRequest("not_own_signer", `key ${key} is ${owner.instance}'s: a submitter submits only its own records`);
  const peer = getPeer(gw, submitter);
  let added = false;
  if (!peer) {
    upsertPeer(gw, { instance: submitter, trust: "unvetted", keyPin: key, foundVia: "submit", trustSetBy: "discovery" });
    added = true;
  } else {
    if (peer.trust === "blocked") throw forbidden(`${submitter} is blocked here`, "blocked");
    const active = peerKeys(gw, submitter)
      .filter((k) => k.status === "active")
      .map((k) => k.publicKey);
    if (!active.includes(key)) throw conflict("key_changed", `${submitter} is not known by key ${key} here; a key changes only by a signed rotation`);
  }
  const report = await applyFrames(gw, frames, { via: "submit", servedBy: submitter });
  return { ...report, submitter, added };
}

/** What a spoke pushes, in order: tombstones first; its peer record last. */
const PUSH_ORDER = [
  RECORD_TYPES.tombstone,
  RECORD_TYPES.key,
  RECORD_TYPES["account-move"],
  RECORD_TYPES.cache,
  RECORD_TYPES.find,
  RECORD_TYPES.bulletin,
  RECORD_TYPES.peer,
];

export interface PushReport {
  hub: string | null;
  ok: boolean;
  error: string | null;
  pushed: number;
  applied: number;
  pages: number;
  skipped?: string;
}

declare module "../core/services.ts" {
  interface Services {
    /** the spoke's push to its hub now running, if one is */
    hubPush: { running: Promise<PushReport> | null };
  }
}

/** The spoke's push to FED_HUB_URL, from the stored push cursors; one at a time. */
export function pushToHub(gw: Core): Promise<PushReport> {
  const slot = gw.services.hubPush;
  if (slot.running) return slot.running.then(() => pushToHub(gw));
  const p = pushOnce(gw).finally(() => {
    if (slot.running === p) slot.running = null;
  });
  slot.running = p;
  return p;
}

async function pushOnce(gw: Core): Promise<PushReport> {
  const hub = gw.config.fedHubUrl;
  const out: PushReport = { hub, ok: false, error: null, pushed: 0, applied: 0, pages: 0 };
  if (!hub) return { ...out, ok: true, skipped: "FED_HUB_URL is not set" };
  if (!instanceSigner(gw)) return { ...out, skipped: "this instance is unsigned (no FED_PRIVATE_KEY): nothing it publishes can be submitted" };
  const cursorQ = gw.db.query("SELECT cursor FROM push_cursors WHERE target = ? AND type = ?");
  const setCursor = gw.db.query(
    "INSERT INTO push_cursors (target, type, cursor, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (target, type) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at",
  );
  try {
    for (const type of PUSH_ORDER) {
      let cursor = (cursorQ.get(hub, type) as { cursor: number } | null)?.cursor ?? 0;
      for (;;) {
        const page = readFeed(gw, type, cursor, gw.config.fedSyncBatch);
        const frames = page.rows.filter((r) => r.frame).map((r) => r.frame!);
        if (frames.length > 0) {
          const body = encodePage({ frames, next: page.next, more: page.more, type, instance: gw.config.instance });
          const r = await fedFetch(gw, `${hub}/federation/submit`, {
            method: "POST",
            headers: {
              "content-type": CBOR_TYPE,
              accept: "application/json",
              ...(gw.config.fedSubmitSecret ? { "x-fed-secret": gw.config.fedSubmitSecret } : {}),
            },
            body,
            timeoutMs: 120_000,
            maxBytes: 1024 * 1024,
          });
          let answer: { error?: string; message?: string; applied?: number } = {};
          try {
            answer = JSON.parse(new TextDecoder().decode(r.bytes));
          } catch {}
          if (r.status !== 200)
            throw new DialError(answer.error ?? `http_${r.status}`, `the hub answered ${r.status}${answer.message ? `: ${answer.message}` : ""}`);
          out.pushed += frames.length;
          out.applied += answer.applied ?? 0;
          out.pages++;
        }
        if (page.next !== cursor) setCursor.run(hub, type, page.next, gw.clock.now());
        cursor = page.next;
        if (!page.more) break;
      }
    }
    out.ok = true;
  } catch (e) {
    if (!(e instanceof DialError)) throw e;
    out.error = `${e.code}: ${e.message}`;
  }
  return out;
}
