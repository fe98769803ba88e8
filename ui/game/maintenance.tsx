/**
 * Maintenance on the cache page (issue 29 item 6): the kinds the signed-in
 * user may log here now (GET /api/caches/:id/log-kinds, so the log form offers only those), the open-maintenance flag, and a
 * user's report of the cache.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useAction, useLoad } from "../hooks.ts";
import { t } from "../i18n/i18n.ts";

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
    <span class="tag warn" data-testid="needs-maintenance" title={t("cache.needsMaintenanceTitle")}>
      {t("cache.needsMaintenance")}
    </span>
  );
}

/** A signed-in user's report of the cache to its owner and the reviewers. */
export function ReportCache({ id }: { id: number }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [done, setDone] = useState(false);
  const { run, errorView } = useAction();
  if (done) return <p role="status">{t("cache.reported")}</p>;
  if (!open)
    return (
      <p>
        <button type="button" class="link" onClick={() => setOpen(true)}>
          {t("cache.report")}
        </button>
      </p>
    );
  const send = async (e: Event) => {
    e.preventDefault();
    await run(async () => {
      await api(`/api/caches/${id}/report`, { method: "POST", json: { reason } });
      setDone(true);
    });
  };
  return (
    <form class="card" onSubmit={send}>
      <label for="report-reason">{t("cache.whatWrong")}</label>
      <textarea id="report-reason" rows={2} value={reason} onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} />
      <p>
        <button type="submit">{t("cache.sendReport")}</button>
      </p>
      {errorView}
    </form>
  );
}
