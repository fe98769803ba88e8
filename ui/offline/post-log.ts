/**
 * A log from the cache page, sent with a fresh clientId. When the network
 * fails it is kept as a field note in IndexedDB (by the service worker where
 * one runs, else here: plain http has none) and sent later, once: a log whose
 * answer was lost goes again with the same clientId and the server keeps one.
 */
import { api, NetworkError } from "../api.ts";
import { newClientId, type NoteKind } from "./db.ts";
import { keepNote } from "./notes.ts";
import { networkLost } from "./status.ts";
import type { LogBody } from "../../src/game/model.ts";

/** "sent"; "kept" by the service worker (which answers for the logbook offline); "kept-here" by this page. */
export type PostResult = "sent" | "kept" | "kept-here";

export async function postLog(cache: { key: string; code: string; name: string }, kind: NoteKind, text: string): Promise<PostResult> {
  const clientId = newClientId();
  const foundAt = Date.now();
  try {
    const r = await api<{ fieldNote?: boolean }>(`/api/caches/${encodeURIComponent(cache.key)}/logs`, {
      method: "POST",
      json: { kind, text: text || undefined, clientId } satisfies LogBody,
    });
    return r.fieldNote ? "kept" : "sent";
  } catch (e) {
    // only when no answer came; an answer (an ApiError of the server) is shown as it is
    if (!(e instanceof NetworkError)) throw e;
    await keepNote({ clientId, cacheKey: cache.key, code: cache.code, name: cache.name, kind, text, foundAt });
    networkLost();
    return "kept-here";
  }
}
