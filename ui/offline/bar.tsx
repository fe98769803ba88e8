/** A strip under the header: offline, field notes waiting, a new version ready. */
import { applyUpdate, useOfflineState } from "./status.ts";
import { secureContext } from "../secure-context.tsx";
import { t } from "../i18n/i18n.ts";
import "./offline.css";

export function OfflineBar() {
  const st = useOfflineState();
  const n = st.pending.length;
  if (st.online && !n && !st.updateReady) return null;
  return (
    <div class="offline-bar" data-testid="offline-bar">
      {!st.online && (
        <p role="status" class="offline-state" data-testid="offline-state">
          <b>{t("offlineBar.offline")}</b> {secureContext() ? t("offlineBar.secure") : t("offlineBar.plain")}
        </p>
      )}
      {n > 0 && (
        <p data-testid="pending-notes">
          <a href="/offline">{t("offlineBar.waiting", { count: n })}</a>
          {st.online ? t("offlineBar.sending") : t("offlineBar.whenBack")}
        </p>
      )}
      {st.updateReady && (
        <p role="alert" data-testid="update-ready">
          {t("offlineBar.update")}{" "}
          <button type="button" onClick={applyUpdate}>
            {t("offlineBar.reload")}
          </button>
        </p>
      )}
    </div>
  );
}
