/**
 * Field notes: logs kept in the browser until the server has them, sent with
 * their clientId (so a retry after a lost answer is stored once) and their
 * original found-at time; and the `geocache_visits.txt` field-notes file that
 * Garmin units, c:geo and GSAK read and write (in English, as the format
 * is: "Found it", whatever the interface's language). A note's failure is
 * kept as a reason code (db.ts NoteReason), worded where it is shown.
 */
import { all, get, notesChanged, put, type FieldNote, type NoteKind, type SavedCache } from "./db.ts";
import { sha256 } from "./sha256.ts";

let sending: Promise<{ sent: number; failed: number }> | null = null;

/** Sends every pending note; stops at the first network failure (still offline). Safe to call often. */
export function sendPending(): Promise<{ sent: number; failed: number }> {
  sending ??= (async () => {
    let sent = 0;
    let failed = 0;
    try {
      const notes = (await all<FieldNote>("notes")).filter((n) => n.state === "pending").sort((a, b) => a.foundAt - b.foundAt);
      for (const n of notes) {
        if (n.cacheKey === null && !(await resolveCode(n))) continue;
        let res: Response;
        try {
          res = await fetch(`/api/caches/${encodeURIComponent(n.cacheKey!)}/logs`, {
            method: "POST",
            credentials: "same-origin",
            headers: { "content-type": "application/json", "x-field-note": "1" },
            body: JSON.stringify({ kind: n.kind, text: n.text || undefined, foundAt: n.foundAt, clientId: n.clientId }),
          });
        } catch {
          break; // no network: try again when it returns
        }
        const body = (await res.json().catch(() => ({}))) as { id?: number | string; error?: string; message?: string };
        if (res.ok) {
          await put("notes", { ...n, state: "sent", logId: body.id, sentAt: Date.now(), reason: undefined, error: undefined });
          sent++;
        } else if (res.status === 401 || res.status === 403 || res.status >= 500) {
          await put("notes", { ...n, reason: res.status >= 500 ? { code: "serverError", status: res.status } : { code: "signIn" }, error: undefined });
          if (res.status < 500) break;
        } else {
          await put("notes", {
            ...n,
            state: "failed",
            reason: { code: "refused", status: res.status, error: body.error, message: body.message },
            error: undefined,
          });
          failed++;
        }
      }
    } finally {
      sending = null;
      notesChanged();
    }
    return { sent, failed };
  })();
  return sending;
}

/** An imported note names a cache code only: find it among the saved caches, or ask the server. */
async function resolveCode(n: FieldNote): Promise<boolean> {
  const saved = (await all<SavedCache>("caches")).find((c) => c.code.toUpperCase() === n.code.toUpperCase());
  let key = saved?.key ?? null;
  if (!key) {
    try {
      const r = await fetch(`/api/search?q=${encodeURIComponent(n.code)}&limit=5`, { credentials: "same-origin" });
      if (!r.ok) return false;
      const found = ((await r.json()) as { caches?: Array<{ id: number | string; code: string; name: string }> }).caches ?? [];
      const hit = found.find((c) => c.code.toUpperCase() === n.code.toUpperCase());
      if (!hit) {
        await put("notes", { ...n, state: "failed", reason: { code: "noCache" }, error: undefined });
        return false;
      }
      key = String(hit.id);
      n.name ||= hit.name;
    } catch {
      return false;
    }
  }
  n.cacheKey = key;
  await put("notes", n);
  return true;
}

/** Keeps a log written without a signal. */
export async function keepNote(n: Omit<FieldNote, "state">): Promise<FieldNote> {
  const note: FieldNote = { ...n, state: "pending" };
  await put("notes", note);
  notesChanged();
  return note;
}

/* The geocache_visits.txt format: one visit a line, `GCCODE,2024-05-01T10:20Z,Found it,"text"`,
   CRLF, UTF-16LE with a byte-order mark; quotes inside the text doubled. */

const TYPE_OUT: Record<NoteKind, string> = { find: "Found it", dnf: "Didn't find it", note: "Write note" };
const TYPE_IN: Record<string, NoteKind> = {
  "found it": "find",
  "didn't find it": "dnf",
  "write note": "note",
  "needs maintenance": "note",
  attended: "find",
  "webcam photo taken": "find",
};

export function visitTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16) + "Z";
}

export function exportVisits(notes: FieldNote[]): Uint8Array<ArrayBuffer> {
  const text =
    notes
      .slice()
      .sort((a, b) => a.foundAt - b.foundAt)
      .map((n) => `${n.code},${visitTime(n.foundAt)},${TYPE_OUT[n.kind]},"${n.text.replaceAll('"', '""')}"`)
      .join("\r\n") + "\r\n";
  const out = new Uint8Array(2 + text.length * 2);
  out[0] = 0xff;
  out[1] = 0xfe;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[2 + i * 2] = c & 0xff;
    out[3 + i * 2] = c >> 8;
  }
  return out;
}

export interface Visit {
  code: string;
  foundAt: number;
  kind: NoteKind;
  type: string;
  text: string;
}

function decode(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder().decode(bytes.subarray(3));
  // No mark: UTF-16LE if every other byte of ASCII text is zero.
  if (bytes.length > 3 && bytes[1] === 0 && bytes[3] === 0) return new TextDecoder("utf-16le").decode(bytes);
  return new TextDecoder().decode(bytes);
}

/** The visits in a field-notes file; lines with an unknown type or no usable time are skipped and counted. */
export function parseVisits(bytes: Uint8Array): { visits: Visit[]; skipped: number } {
  const s = decode(bytes);
  const visits: Visit[] = [];
  let skipped = 0;
  let i = 0;
  while (i < s.length) {
    // code,time,type,"text" — the text may hold commas, newlines and doubled quotes
    const start = i;
    const fields: string[] = [];
    while (fields.length < 3) {
      const comma = s.indexOf(",", i);
      const eol = s.indexOf("\n", i);
      if (comma < 0 || (eol >= 0 && eol < comma)) break;
      fields.push(s.slice(i, comma).trim());
      i = comma + 1;
    }
    let text = "";
    if (fields.length === 3 && s[i] === '"') {
      i++;
      for (;;) {
        const q = s.indexOf('"', i);
        if (q < 0) {
          text += s.slice(i);
          i = s.length;
          break;
        }
        text += s.slice(i, q);
        if (s[q + 1] === '"') {
          text += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
    }
    const eol = s.indexOf("\n", i);
    i = eol < 0 ? s.length : eol + 1;
    if (fields.length < 3) {
      if (s.slice(start, i).trim()) skipped++;
      continue;
    }
    const [code, time, type] = fields as [string, string, string];
    const foundAt = Date.parse(/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?Z$/.test(time) ? time : "x");
    const kind = TYPE_IN[type.toLowerCase()];
    if (!code || !/^[A-Za-z0-9-]{2,40}$/.test(code) || Number.isNaN(foundAt) || !kind) {
      skipped++;
      continue;
    }
    visits.push({ code: code.toUpperCase(), foundAt, kind, type, text: text.replace(/\r\n/g, "\n") });
  }
  return { visits, skipped };
}

/** A note's clientId from the visit itself, so importing the same file twice keeps one note (and one log). */
function visitId(v: Visit): string {
  const d = sha256(new TextEncoder().encode(`${v.code}|${v.foundAt}|${v.kind}|${v.text}`));
  return "fn-" + [...d.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Imports a field-notes file as pending notes. Answers how many were new, already kept, and skipped. */
export async function importVisits(bytes: Uint8Array): Promise<{ added: number; known: number; skipped: number }> {
  const { visits, skipped } = parseVisits(bytes);
  const saved = await all<SavedCache>("caches");
  let added = 0;
  let known = 0;
  for (const v of visits) {
    const clientId = visitId(v);
    if (await get("notes", clientId)) {
      known++;
      continue;
    }
    const c = saved.find((x) => x.code.toUpperCase() === v.code);
    await put<FieldNote>("notes", {
      clientId,
      cacheKey: c?.key ?? null,
      code: v.code,
      name: c?.summary.name ?? "",
      kind: v.kind,
      text: v.type === "Needs Maintenance" ? `Needs maintenance. ${v.text}`.trim() : v.text,
      foundAt: v.foundAt,
      state: "pending",
    });
    added++;
  }
  notesChanged();
  return { added, known, skipped };
}
