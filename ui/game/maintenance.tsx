/**
 * Maintenance on the cache page (issue 29 item 6): the log kinds' names, the
 * kinds the signed-in user may log here now (GET /api/caches/:id/log-kinds,
 * so the log form offers only those), the open-maintenance flag, and a
 * user's report of the cache.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad } from "../hooks.ts";

/** Each log kind as the logbook and the log form name it (Groundspeak's words). */
export const LOG_LABEL: Record<string, string> = {
  find: "Found it",
  dnf: "Didn't find it",
  note: "Note",
  "needs-maintenance": "Needs maintenance",
  "needs-archive": "Needs archive",
  "owner-maintenance": "Owner maintenance",
  "temp-disable": "Temporarily disable",
  enable: "Enable",
  archive: "Archive",
  "reviewer-note": "Reviewer note",
  "will-attend": "Will attend",
  attended: "Attended",
};

/** The kinds a field note may keep offline (ui/offline/db.ts): the others are sent at once or not at all. */
export const OFFLINE_KINDS = ["find", "dnf", "note"];

/** The kinds the user may log on this cache now; while loading (or offline), find, DNF and note. */
export function useLogKinds(cacheKey: string, owner: boolean, reload: number): string[] {
  const path = `/api/caches/${encodeURIComponent(cacheKey)}/log-kinds`;
  const k = useLoad(() => api<{ kinds: string[] }>(path), [cacheKey, reload]);
  return k.data?.kinds ?? (owner ? ["note"] : OFFLINE_KINDS);
}

/** "Needs maintenance" beside the status, while a need is open. */
export function MaintenanceFlag({ open }: { open: boolean | undefined }) {
  if (!open) return null;
  return (
    <span class="tag warn" data-testid="needs-maintenance" title="A finder reported a problem; the owner has not logged maintenance since">
      needs maintenance
    </span>
  );
}

/** A signed-in user's report of the cache to its owner and the reviewers. */
export function ReportCache({ id }: { id: number }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (done) return <p role="status">Reported: the owner and the reviewers will see it.</p>;
  if (!open)
    return (
      <p>
        <button type="button" class="link" onClick={() => setOpen(true)}>
          Report this cache
        </button>
      </p>
    );
  const send = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api(`/api/caches/${id}/report`, { method: "POST", json: { reason } });
      setDone(true);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="card" onSubmit={send}>
      <label for="report-reason">What is wrong with this cache?</label>
      <textarea id="report-reason" rows={2} value={reason} onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} />
      <p>
        <button type="submit">Send report</button>
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
